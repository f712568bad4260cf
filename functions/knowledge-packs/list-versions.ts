import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { listPackVersions } from '../../shared/knowledge/lists.js';
import { getPack } from '../../shared/repositories/knowledge-packs.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { knowledgePackVersionSummary, packIdPath } from '../../shared/schemas/knowledge-packs.js';

/** GET /v1/knowledge-packs/{pack_id}/versions — newest first. */
export const handler = defineRoute(
  'listKnowledgePackVersions',
  bearer,
  { path: packIdPath, query: pageQuery, responses: { 200: cursorPage(knowledgePackVersionSummary) } },
  async ({ principal, path, query }) => {
    if (!(await getPack(principal.tenantId, path.pack_id))) throw notFound('Knowledge pack');
    return ok(await listPackVersions(principal.tenantId, path.pack_id, query));
  },
);
