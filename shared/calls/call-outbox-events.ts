/**
 * The outbox events of the queue and dispatch path (see docs/decisions/dispatch-and-carrier.md), built from the call record so
 * every event of a call carries the same identifying fields. Each builder returns the items
 * to put in the transaction of the state change it reports (shared/events/outbox.ts).
 */

import { callEventData } from '../events/call-event-data.js';
import { type EventType, outboxItems } from '../events/outbox.js';
import type { OutboundCallRecord } from '../repositories/outbound-calls.js';

type Items = ReturnType<typeof outboxItems>['items'];

/**
 * `type` for `call` at `at`: the shared call-event payload (callEventData: ids, state,
 * disposition, …; null where not set) as the call stands after the change, then `extra`.
 */
function callEvent(call: OutboundCallRecord, type: EventType, at: Date, extra: Record<string, unknown> = {}): Items {
  return outboxItems(call.tenant_id, type, { ...callEventData(call), ...extra, at: at.toISOString() }, at).items;
}

export const queuedEvent = (call: OutboundCallRecord, at: Date) => callEvent(call, 'call.queued', at, { state: call.state, origin: call.origin });
export const scheduledEvent = (call: OutboundCallRecord, scheduledFor: string, at: Date) =>
  callEvent(call, 'call.scheduled', at, {
    state: 'scheduled',
    disposition: null,
    scheduled_for: scheduledFor,
    compliance_outcome: call.compliance.outcome,
    reasons: call.compliance.reasons.map((r) => r.code),
  });
export const blockedEvent = (call: OutboundCallRecord, end: { disposition: string; disposition_set_by: string; end_reason: string }, at: Date) =>
  callEvent(call, 'call.blocked', at, { state: 'disposed', ...end, reasons: call.compliance.reasons.map((r) => r.code) });
export const dialingEvent = (call: OutboundCallRecord, at: Date, from: { phone_number_id: string; from_e164: string }) =>
  callEvent(call, 'call.dialing', at, { state: 'dialing', ...from });
/**
 * The one final event every attempt ends with, whichever way it ends. A campaign attempt's
 * end also writes its row and counters: those go through attemptEndItems (attempt-end.ts),
 * so a call queued by the API, never a campaign's, bundles no campaign items.
 */
export const completedEvent = (
  call: OutboundCallRecord,
  end: { state: string; disposition: string | null; disposition_set_by: string | null; end_reason: string | null },
  at: Date,
) => callEvent(call, 'call.completed', at, end);
