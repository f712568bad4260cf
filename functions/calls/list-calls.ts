import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { withQualifications } from '../../shared/calls/present-call.js';
import { listCalls } from '../../shared/repositories/calls.js';
import { callQualifications } from '../../shared/repositories/workflow-outcomes.js';
import { CALL_STATES } from '../../shared/policy/call-state/machine.js';
import { CALL_DIRECTIONS, callDetail, DISPOSITIONS } from '../../shared/schemas/call-detail.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';

/**
 * GET /v1/calls — newest first; filter grammar of the API conventions. `idempotency_key`
 * finds what a POST /v1/calls whose answer was lost created.
 */
export const handler = defineRoute(
  'listCalls',
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
    const page = await listCalls(principal.tenantId, { ...query, filters });
    // Only calls that recorded a qualification have outcomes to read (one Query each).
    const data = await Promise.all(page.data.map(async (c) => (c.conversation_actions.some((a) => a.kind === 'record_qualification') ? withQualifications(c, await callQualifications(principal.tenantId, c.id)) : c)));
    return ok({ ...page, data });
  },
);
