import { now } from '../../shared/clock.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { createPool } from '../../shared/repositories/number-pools.js';
import { numberPoolCreateRequest, numberPoolResource } from '../../shared/schemas/campaigns.js';

/** POST /v1/number-pools (admin or manager) — 201 with the pool; every number must be a voice number of the tenant (422 at its index). */
export const handler = defineRoute(
  'createNumberPool',
  bearer,
  { body: numberPoolCreateRequest, responses: { 201: numberPoolResource } },
  async ({ principal, body }) => created(await createPool(principal.tenantId, body, now())),
);
