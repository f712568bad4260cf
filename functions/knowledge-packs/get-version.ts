import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { readPackVersion } from '../../shared/knowledge/publish.js';
import { knowledgePackVersion, versionPath } from '../../shared/schemas/knowledge-packs.js';

/** GET /v1/knowledge-packs/{pack_id}/versions/{version} — immutable once published. */
export const handler = defineRoute(
  'getKnowledgePackVersion',
  bearer,
  { path: versionPath, responses: { 200: knowledgePackVersion } },
  async ({ principal, path }) => {
    const version = await readPackVersion(principal.tenantId, path.pack_id, path.version);
    if (!version) throw notFound('Knowledge pack version');
    return ok(version);
  },
);
