import { now } from '../../shared/clock.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { createPack } from '../../shared/repositories/knowledge-packs.js';
import { knowledgePack, knowledgePackCreateRequest } from '../../shared/schemas/knowledge-packs.js';

/** POST /v1/knowledge-packs (admin or manager) — 201 with an empty draft. */
export const handler = defineRoute(
  'createKnowledgePack',
  bearer,
  { body: knowledgePackCreateRequest, responses: { 201: knowledgePack } },
  async ({ principal, body }) => created(await createPack(principal.tenantId, body, now())),
);
