import { presentApiKey } from '../../shared/auth/api-keys.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { listApiKeys } from '../../shared/repositories/api-keys.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { apiKeySummary } from '../../shared/schemas/identity.js';

/** GET /v1/api-keys — the tenant's keys, newest first; secrets are never shown again. */
export const handler = defineRoute('listApiKeys', bearer, { query: pageQuery, responses: { 200: cursorPage(apiKeySummary) } }, async ({ principal, query }) => {
  const page = await listApiKeys(principal.tenantId, query);
  return ok({ ...page, data: page.data.map(presentApiKey) });
});
