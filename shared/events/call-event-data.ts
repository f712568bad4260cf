/**
 * The call.* event payload, built from the call record: events/ because both the call
 * lifecycle store and the queue and dispatch services (shared/calls/call-outbox-events.ts)
 * put these events in their transactions.
 */
import type { StateChange } from '../policy/call-state/machine.js';
import type { CallRecord } from '../schemas/call-record.js';

/**
 * The payload every call.* event carries (the queue and dispatch events too, through
 * shared/calls/call-outbox-events.ts): what a webhook receiver needs to act on one event alone —
 * which call, attempt and contact, and the state and disposition it is in (null until set).
 */
export const CALL_EVENT_FIELDS = [
  'call_id',
  'attempt_id',
  'contact_id',
  'agent_id',
  'agent_version_id',
  'campaign_id',
  'direction',
  'state',
  'disposition',
  'disposition_set_by',
  'end_reason',
] as const;

export function callEventData(
  call: Pick<
    CallRecord,
    | 'id'
    | 'direction'
    | 'state'
    | 'disposition'
    | 'disposition_set_by'
    | 'end_reason'
    | 'attempt_id'
    | 'contact_id'
    | 'agent_id'
    | 'agent_version_id'
    | 'campaign_id'
  >,
  change?: Partial<Omit<StateChange, 'disposition' | 'disposition_set_by' | 'end_reason'>> & {
    disposition?: string | null;
    disposition_set_by?: string | null;
    end_reason?: string | null;
  },
): Record<(typeof CALL_EVENT_FIELDS)[number], unknown> {
  return {
    call_id: call.id,
    attempt_id: call.attempt_id ?? null,
    contact_id: call.contact_id ?? null,
    agent_id: call.agent_id ?? null,
    agent_version_id: call.agent_version_id ?? null,
    campaign_id: call.campaign_id ?? null,
    direction: call.direction,
    state: change?.state ?? call.state,
    disposition: change?.disposition ?? call.disposition ?? null,
    disposition_set_by: change?.disposition_set_by ?? call.disposition_set_by ?? null,
    end_reason: change?.end_reason ?? call.end_reason ?? null,
  };
}
