import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { updatePool } from '../../shared/repositories/number-pools.js';
import { numberPoolResource, numberPoolUpdateRequest, poolPath } from '../../shared/schemas/campaigns.js';

/**
 * PATCH /v1/number-pools/{pool_id} (admin or manager) — rename and/or replace the members.
 * A running campaign keeps the numbers it started with (its snapshot; docs/decisions/campaigns.md).
 */
export const handler = defineRoute(
  'updateNumberPool',
  bearer,
  { path: poolPath, body: numberPoolUpdateRequest, responses: { 200: numberPoolResource } },
  async ({ principal, path, body }) => {
    const pool = await updatePool(principal.tenantId, path.pool_id, body ?? {}, now());
    if (!pool) throw notFound('Number pool');
    return ok(pool);
  },
);
