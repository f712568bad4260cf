/**
 * The call state machine (the contract "Contact attempt state"), pure: a call's current
 * state and one thing that happened → the change to store, or null when it changes nothing.
 *
 *   scheduled → dialing → answered → in_conversation → completed
 *                  └────→ no_answer | busy | failed | machine
 *   scheduled → disposed (blocked, cancelled)      dialing → failed (reconciler)
 *
 * Monotonic: a state only moves forward by rank and a terminal state never changes, so a
 * replayed, late or reordered carrier callback is harmless; the store applies a change with
 * a condition on the state it was computed from.
 */
export const CALL_STATES = [
  'pending',
  'scrubbed',
  'scheduled',
  'dialing',
  'answered',
  'in_conversation',
  'completed',
  'machine',
  'no_answer',
  'busy',
  'failed',
  'disposed',
] as const;
export type CallState = (typeof CALL_STATES)[number];
const TERMINAL_STATES: readonly CallState[] = ['completed', 'machine', 'no_answer', 'busy', 'failed', 'disposed'];
export const isTerminal = (s: CallState) => TERMINAL_STATES.includes(s);

const RANK: Record<CallState, number> = {
  pending: 0,
  scrubbed: 1,
  scheduled: 2,
  dialing: 3,
  answered: 4,
  in_conversation: 5,
  completed: 9,
  machine: 9,
  no_answer: 9,
  busy: 9,
  failed: 9,
  disposed: 9,
};

export type DispositionSetBy = 'carrier' | 'agent_llm' | 'compliance' | 'system';

export interface StateChange {
  state: CallState;
  /** Set when this change decides the outcome (carrier-decided ends, system ends). */
  disposition?: string;
  disposition_set_by?: DispositionSetBy;
  end_reason?: string;
  /** Which timestamp this change stamps. */
  stamp?: 'answered_at' | 'ended_at';
}

/** Twilio's status callback fields that matter here. */
export interface CarrierStatus {
  CallStatus: string;
  AnsweredBy?: string;
  SipResponseCode?: string;
}

const advance = (from: CallState, change: StateChange): StateChange | null => (isTerminal(from) || RANK[change.state] <= RANK[from] ? null : change);

/** A signed status callback from the carrier. */
export function onCarrierStatus(from: CallState, status: CarrierStatus): StateChange | null {
  const machine = typeof status.AnsweredBy === 'string' && status.AnsweredBy.startsWith('machine');
  switch (status.CallStatus) {
    case 'queued':
    case 'initiated':
    case 'ringing':
      return advance(from, { state: 'dialing' });
    case 'in-progress':
    case 'answered':
      return machine
        ? advance(from, {
            state: 'machine',
            disposition: 'voicemail_machine',
            disposition_set_by: 'carrier',
            end_reason: 'answering_machine',
            stamp: 'answered_at',
          })
        : advance(from, { state: 'answered', stamp: 'answered_at' });
    case 'completed':
      // A call that was never answered cannot complete: the carrier reports it as no-answer,
      // busy or failed; a `completed` for one is taken as the carrier's own no-answer.
      if (from === 'dialing' || from === 'scheduled')
        return advance(from, {
          state: 'no_answer',
          disposition: 'no_answer',
          disposition_set_by: 'carrier',
          end_reason: 'carrier_completed_unanswered',
          stamp: 'ended_at',
        });
      return advance(from, { state: 'completed', end_reason: 'carrier_completed', stamp: 'ended_at' });
    case 'busy':
      return advance(from, { state: 'busy', disposition: 'busy', disposition_set_by: 'carrier', end_reason: `carrier_busy${sip(status)}`, stamp: 'ended_at' });
    case 'no-answer':
      return advance(from, {
        state: 'no_answer',
        disposition: 'no_answer',
        disposition_set_by: 'carrier',
        end_reason: `carrier_no_answer${sip(status)}`,
        stamp: 'ended_at',
      });
    case 'failed':
      return advance(from, {
        state: 'failed',
        disposition: 'failed',
        disposition_set_by: 'carrier',
        end_reason: `carrier_failed${sip(status)}`,
        stamp: 'ended_at',
      });
    case 'canceled':
      return advance(from, { state: 'disposed', disposition: 'failed', disposition_set_by: 'system', end_reason: 'carrier_canceled', stamp: 'ended_at' });
    default:
      return null;
  }
}

const sip = (s: CarrierStatus) => (s.SipResponseCode && /^\d{3}$/.test(s.SipResponseCode) ? `_sip_${s.SipResponseCode}` : '');

/** The voice runtime reported the conversation started (its first event). */
export const onConversationStarted = (from: CallState): StateChange | null => (from === 'answered' ? { state: 'in_conversation' } : null);

/** Compliance blocked the call, or the tenant cancelled it, before dialling. */
export function onDisposedBeforeDial(from: CallState, why: { disposition: string; set_by: DispositionSetBy; end_reason: string }): StateChange | null {
  if (RANK[from] >= RANK.dialing) return null;
  return { state: 'disposed', disposition: why.disposition, disposition_set_by: why.set_by, end_reason: why.end_reason, stamp: 'ended_at' };
}

/** The reconciler: a call stuck in dialing without a carrier id is failed, never redialled. */
export const onDispatchUnknown = (from: CallState): StateChange | null =>
  from === 'dialing' ? { state: 'failed', disposition: 'failed', disposition_set_by: 'system', end_reason: 'dispatch_unknown', stamp: 'ended_at' } : null;

/**
 * The reconciler closes a call the carrier took but never reported the end of, and cannot or
 * will not report it now (shared/policy/call-state/unfinished.ts). end_reason
 * `carrier_unreported`, set by `system`. A call never answered → `failed` / `failed`. A call a
 * person answered → `completed` (every call a person answered ends completed, whatever its
 * disposition): its disposition is derived from what the runtime reported, like any completed
 * call (the caller applies completedDisposition).
 */
const CARRIER_UNREPORTED = 'carrier_unreported';
export function onCarrierUnreported(from: CallState): StateChange | null {
  if (from === 'dialing') return { state: 'failed', disposition: 'failed', disposition_set_by: 'system', end_reason: CARRIER_UNREPORTED, stamp: 'ended_at' };
  if (from === 'answered' || from === 'in_conversation') return { state: 'completed', end_reason: CARRIER_UNREPORTED, stamp: 'ended_at' };
  return null;
}
