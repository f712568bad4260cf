import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { listPools } from '../../shared/repositories/number-pools.js';
import { numberPoolResource } from '../../shared/schemas/campaigns.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';

/** GET /v1/number-pools — newest first. */
export const handler = defineRoute(
  'listNumberPools',
  bearer,
  { query: pageQuery, responses: { 200: cursorPage(numberPoolResource) } },
  async ({ principal, query }) => ok(await listPools(principal.tenantId, query)),
);
