import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { updatePack } from '../../shared/repositories/knowledge-packs.js';
import { knowledgePack, knowledgePackUpdateRequest, packIdPath } from '../../shared/schemas/knowledge-packs.js';

/** PATCH /v1/knowledge-packs/{pack_id} (admin or manager) — name and description only; versions never change. */
export const handler = defineRoute(
  'updateKnowledgePack',
  bearer,
  { path: packIdPath, body: knowledgePackUpdateRequest, responses: { 200: knowledgePack } },
  async ({ principal, path, body }) => {
    const pack = await updatePack(principal.tenantId, path.pack_id, body ?? {}, now());
    if (!pack) throw notFound('Knowledge pack');
    return ok(pack);
  },
);
