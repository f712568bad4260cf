import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { listPacks } from '../../shared/knowledge/lists.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { knowledgePack } from '../../shared/schemas/knowledge-packs.js';

/** GET /v1/knowledge-packs — newest first. */
export const handler = defineRoute(
  'listKnowledgePacks',
  bearer,
  { query: pageQuery, responses: { 200: cursorPage(knowledgePack) } },
  async ({ principal, query }) => ok(await listPacks(principal.tenantId, query)),
);
