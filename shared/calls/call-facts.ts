/**
 * The analysis worker's mapping (pure): a stored call record (with the runtime's aggregates)
 * and its EVENT items → CallFacts (shared/policy/analysis/facts.ts). docs/decisions/dispatch-and-carrier.md,
 * "CallFacts mapping" (the worker's mapping):
 *   - turns: the `turn` events in stored order (seq); started_at is the event's `at`,
 *     ended_at adds the turn's own length (end_ms − start_ms) when reported;
 *   - disclosure: attributed to the first agent turn after the event (the runtime reports
 *     it just before the turn that says it), else the last agent turn before it;
 *   - opt-out: the first `opt_out` event, placed in the last contact turn before it;
 *     reason opt_out → do_not_call, wrong_person → wrong_person;
 *   - ended_by: the runtime's hang-up (`runtime` counts as the agent's side), else the
 *     carrier when the carrier ended an answered call, else null;
 *   - answered_by: machine for `machine` calls, human when answered_at is stamped (our
 *     TwiML streams only a person to the runtime), else null;
 *   - conversation actions: confirmed / declined (`corrected` counts as confirmed: the
 *     contact confirmed the corrected read-back) / `missing` for the tools that need a
 *     read-back (book_meeting, confirm_shift) / `not_required`;
 *   - questions: the call's own question ids;
 *   - an agent turn's `passage_ids` (the pack passages it relied on) ride on its turn fact;
 *     knowledge_pack and grounding are null here: the analysis worker fills them by running
 *     the grounding checker over those turns when the version names a pack.
 */
import type { CallFacts, ConversationActionFact, TurnFact } from '../policy/analysis/facts.js';
import type { CallRecordWithEvents } from '../schemas/call-aggregates.js';

/** An `EVENT#` item of the call partition, as stored by shared/repositories/runtime-events.ts. */
export interface StoredCallEvent {
  event_id: string;
  event_type: string;
  seq: number;
  event: Record<string, unknown>;
}

const CONFIRMATION_REQUIRED_TOOLS: readonly string[] = ['book_meeting', 'confirm_shift'];

const addMs = (iso: string, ms: number): string => {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t + ms).toISOString() : iso;
};

export function callFactsOf(call: CallRecordWithEvents, items: readonly StoredCallEvent[]): CallFacts {
  const events = [...items].sort((a, b) => a.seq - b.seq);
  const turns: TurnFact[] = [];
  const turnSeqs: number[] = [];
  for (const item of events) {
    if (item.event_type !== 'turn') continue;
    const e = item.event;
    const at = String(e.at ?? '');
    const length = typeof e.start_ms === 'number' && typeof e.end_ms === 'number' ? Math.max(0, e.end_ms - e.start_ms) : 0;
    turns.push({
      speaker: e.speaker === 'agent' ? 'agent' : 'contact',
      text: String(e.text ?? ''),
      started_at: at,
      ended_at: addMs(at, length),
      ...(typeof e.latency_ms === 'number' ? { latency_ms: e.latency_ms } : {}),
      ...(Array.isArray(e.passage_ids) ? { passage_ids: e.passage_ids.map(String) } : {}),
    });
    turnSeqs.push(item.seq);
  }
  const turnIndexes = (speaker: 'agent' | 'contact') => turns.map((t, i) => (t.speaker === speaker ? i : -1)).filter((i) => i >= 0);

  let disclosure: CallFacts['disclosure'] = null;
  const disclosed = events.find((e) => e.event_type === 'disclosure');
  if (disclosed) {
    const agents = turnIndexes('agent');
    const next = agents.find((i) => turnSeqs[i]! > disclosed.seq);
    const previous = [...agents].reverse().find((i) => turnSeqs[i]! < disclosed.seq);
    const index = next ?? previous;
    if (index !== undefined) disclosure = { turn_index: index };
  }

  let optOut: CallFacts['opt_out'] = null;
  const opted = events.find((e) => e.event_type === 'opt_out');
  if (opted) {
    const said = [...turnIndexes('contact')].reverse().find((i) => turnSeqs[i]! < opted.seq);
    optOut = { at: String(opted.event.at ?? ''), turn_index: said ?? null, reason: opted.event.reason === 'wrong_person' ? 'wrong_person' : 'do_not_call' };
  }

  const hangup = call.hangup ?? null;
  const endedBy: CallFacts['ended_by'] = hangup ? (hangup.by === 'contact' ? 'contact' : 'agent') : call.answered_at && call.ended_at ? 'carrier' : null;

  const actions: ConversationActionFact[] = (call.conversation_actions ?? []).map((a) => {
    const response = a.action_confirmation?.response;
    const confirmation: ConversationActionFact['confirmation'] =
      response === 'confirmed' || response === 'corrected'
        ? 'confirmed'
        : response === 'declined'
          ? 'declined'
          : CONFIRMATION_REQUIRED_TOOLS.includes(a.kind)
            ? 'missing'
            : 'not_required';
    return { kind: a.kind, confirmation, objective_ids: [] };
  });

  const outcome = call.outcome
    ? (({ outcome_type, event_id: _e, at: _a, ...payload }) => ({ kind: outcome_type, payload: payload as Record<string, unknown> }))(
        call.outcome as unknown as { outcome_type: string; event_id: string; at: string },
      )
    : null;

  return {
    direction: call.direction,
    state: call.state,
    disposition: call.disposition,
    answered_by: call.state === 'machine' ? 'machine' : call.answered_at ? 'human' : null,
    turns,
    disclosure,
    opt_out: optOut,
    ended_by: endedBy,
    ended_at: call.ended_at,
    outcome,
    conversation_actions: actions,
    recorded_responses: (call.recorded_responses ?? []).map((r) => ({ source: r.kind, id: r.question_id })),
    question_ids: (call.questions ?? []).map((q) => q.id),
    knowledge_pack: null,
    grounding: null,
  };
}
