import { listCallDetails } from '../../shared/calls/list-calls.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { defineListRoute } from '../../shared/http/list-route.js';
import { ok } from '../../shared/http/responses.js';
import { CALL_STATES } from '../../shared/policy/call-state/machine.js';
import { CALL_DIRECTIONS, callDetail, DISPOSITIONS } from '../../shared/schemas/call-detail.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';

/**
 * GET /v1/calls — newest first; filter grammar of the API conventions. `idempotency_key`
 * finds what a POST /v1/calls whose answer was lost created.
 */
export const handler = defineListRoute(
  'listCalls',
  bearer,
  {
    query: pageQuery,
    filters: {
      state: { kind: 'enum', values: CALL_STATES },
      disposition: { kind: 'enum', values: DISPOSITIONS },
      direction: { kind: 'enum', values: CALL_DIRECTIONS },
      contact_id: { kind: 'string' },
      created_at: { kind: 'datetime' },
      idempotency_key: { kind: 'string' },
    },
    responses: { 200: cursorPage(callDetail) },
  },
  async ({ principal, query, filters }) => {
    return ok(await listCallDetails(principal.tenantId, { ...query, filters }));
  },
);
