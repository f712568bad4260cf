import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getTenant } from '../../shared/repositories/tenants.js';
import { errorSchema } from '../../shared/schemas/common.js';
import { principalResource } from '../../shared/schemas/identity.js';

/** GET /v1/me — who is calling: the key, its role and its tenant. */
export const handler = defineRoute('getMe', bearer, { responses: { 200: principalResource, 404: errorSchema } }, async ({ principal }) => {
  const tenant = await getTenant(principal.tenantId);
  if (!tenant) throw notFound('Tenant');
  return ok({
    object: 'principal' as const,
    type: principal.type,
    role: principal.role,
    tenant,
    api_key: { id: principal.keyId, name: principal.keyName },
  });
});
