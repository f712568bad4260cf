import { callEnded } from '../../shared/calls/call-ended.js';
import { presentCall } from '../../shared/calls/present-call.js';
import { now } from '../../shared/clock.js';
import { DomainError, notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { CANCEL_END_REASON, cancelCall } from '../../shared/repositories/call-lifecycle.js';
import { getCall } from '../../shared/repositories/calls.js';
import type { CallRecordWithEvents } from '../../shared/repositories/runtime-events.js';
import { callDetail, callNotCancellableError, callPath } from '../../shared/schemas/call-detail.js';

/**
 * POST /v1/calls/{call_id}/cancel — before dialling only: `scheduled` (or `pending`,
 * `scrubbed`) → `disposed` with end_reason `cancelled` and the final call.completed, in one
 * conditional transaction. A call already cancelled answers 200 again (nothing written);
 * any other call (dialling, dialled, ended some other way, inbound) → 409
 * call_not_cancellable. A cancel racing dispatch: whichever transition commits first wins.
 */
export const handler = defineRoute(
  'cancelCall',
  bearer,
  { path: callPath, responses: { 200: callDetail, 409: callNotCancellableError } },
  async ({ principal, path }) => {
    const result = await cancelCall(principal.tenantId, path.call_id, now());
    if (!result) throw notFound('Call');
    if (!result.change && !(result.call.state === 'disposed' && result.call.end_reason === CANCEL_END_REASON)) {
      throw new DomainError('conflict', 'call_not_cancellable', `The call is ${result.call.state}: only a call not yet dialled can be cancelled`, {
        state: result.call.state,
      });
    }
    if (result.ended) await callEnded(result.call);
    const call = (await getCall(principal.tenantId, path.call_id))!;
    return ok(presentCall(call as CallRecordWithEvents));
  },
);
