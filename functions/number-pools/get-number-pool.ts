import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getPool } from '../../shared/repositories/number-pools.js';
import { numberPoolResource, poolPath } from '../../shared/schemas/campaigns.js';

/** GET /v1/number-pools/{pool_id} — another tenant's pool is 404. */
export const handler = defineRoute('getNumberPool', bearer, { path: poolPath, responses: { 200: numberPoolResource } }, async ({ principal, path }) => {
  const pool = await getPool(principal.tenantId, path.pool_id);
  if (!pool) throw notFound('Number pool');
  return ok(pool);
});
