import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getPack } from '../../shared/repositories/knowledge-packs.js';
import { knowledgePack, packIdPath } from '../../shared/schemas/knowledge-packs.js';

/** GET /v1/knowledge-packs/{pack_id} — another tenant's pack is a 404, like a missing one. */
export const handler = defineRoute('getKnowledgePack', bearer, { path: packIdPath, responses: { 200: knowledgePack } }, async ({ principal, path }) => {
  const pack = await getPack(principal.tenantId, path.pack_id);
  if (!pack) throw notFound('Knowledge pack');
  return ok(pack);
});
