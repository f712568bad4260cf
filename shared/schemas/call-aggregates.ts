/**
 * What the voice runtime's events do to a call record, pure: the call's aggregates (kept on
 * the call item so the call detail and the analysis read one item) and a batch of new events
 * in → the new aggregates, the state change, the opt-out to suppress, and each event's
 * result; or the 422 issues when a per-call limit or a reference does not hold. No I/O, no
 * clock (`receivedAt` is passed in). The repository (shared/repositories/runtime-events.ts)
 * commits the result with the event items in one transaction.
 *
 * Aggregate fields on the call record (names are the contract for call detail and analysis):
 *   event_count, turn_count, conversation_started_at, latency {turns_measured, total_ms, max_ms},
 *   disclosure_given, disclosure_at, recorded_response_count, recorded_responses[],
 *   conversation_actions[] (with action_confirmation), outcome, opted_out, opt_out,
 *   usage {audio_seconds, characters_spoken, llm_input_tokens, llm_output_tokens}, hangup,
 *   last_event_at.
 */
import type { ValidationIssue } from '../errors.js';
import { type CallState, onConversationStarted, type StateChange } from '../policy/call-state/machine.js';
import type { UsageBounds } from '../policy/call-state/runtime-window.js';
import type { CallRecord } from './call-record.js';
import {
  type ActionConfirmation,
  MAX_ACTIONS_PER_CALL,
  MAX_EVENTS_PER_CALL,
  MAX_RECORDED_RESPONSES_PER_CALL,
  type OutcomeBody,
  RUNTIME_LIMITS,
  type RuntimeEvent,
  type RuntimeEventType,
} from './runtime-events.js';

export interface RecordedResponse {
  event_id: string;
  kind: 'objective' | 'question';
  question_id: string;
  value: string;
  value_truncated: boolean;
  note: string | null;
  note_truncated: boolean;
  fit_review: { status: 'unreviewed'; reason_truncated: boolean; latest_review: null };
  at: string;
}

export interface ConversationAction {
  id: string;
  event_id: string;
  kind: string;
  arguments: Record<string, unknown>;
  action_confirmation: ActionConfirmation | null;
  at: string;
}

export interface CallAggregates {
  event_count: number;
  turn_count: number;
  conversation_started_at: string | null;
  latency: { turns_measured: number; total_ms: number; max_ms: number };
  disclosure_given: boolean;
  disclosure_at: string | null;
  recorded_response_count: number;
  recorded_responses: RecordedResponse[];
  conversation_actions: ConversationAction[];
  outcome: (OutcomeBody & { event_id: string; at: string }) | null;
  opted_out: boolean;
  opt_out: { reason: 'opt_out' | 'wrong_person'; text: string | null; event_id: string; at: string; suppression_id: string | null } | null;
  /** gpu_seconds is absent on calls recorded before it was kept (read as 0). */
  usage: { audio_seconds: number; characters_spoken: number; llm_input_tokens: number; llm_output_tokens: number; gpu_seconds?: number };
  hangup: { by: 'agent' | 'contact' | 'runtime'; reason: string | null; event_id: string; at: string } | null;
  last_event_at: string | null;
}

export const AGGREGATE_FIELDS = [
  'event_count',
  'turn_count',
  'conversation_started_at',
  'latency',
  'disclosure_given',
  'disclosure_at',
  'recorded_response_count',
  'recorded_responses',
  'conversation_actions',
  'outcome',
  'opted_out',
  'opt_out',
  'usage',
  'hangup',
  'last_event_at',
] as const satisfies readonly (keyof CallAggregates)[];

export const emptyAggregates = (): CallAggregates => ({
  event_count: 0,
  turn_count: 0,
  conversation_started_at: null,
  latency: { turns_measured: 0, total_ms: 0, max_ms: 0 },
  disclosure_given: false,
  disclosure_at: null,
  recorded_response_count: 0,
  recorded_responses: [],
  conversation_actions: [],
  outcome: null,
  opted_out: false,
  opt_out: null,
  usage: { audio_seconds: 0, characters_spoken: 0, llm_input_tokens: 0, llm_output_tokens: 0, gpu_seconds: 0 },
  hangup: null,
  last_event_at: null,
});

/** The aggregates a stored call record holds (a call that never heard from the runtime holds none: the defaults). */
export function aggregatesOf(record: Record<string, unknown>): CallAggregates {
  const empty = emptyAggregates();
  const out = { ...empty } as Record<string, unknown>;
  for (const f of AGGREGATE_FIELDS) if (record[f] !== undefined) out[f] = record[f];
  return structuredClone(out) as unknown as CallAggregates;
}

/** Shorten to `max` characters (whole code points), saying whether it was. */
export function truncate(text: string, max: number): { text: string; truncated: boolean } {
  const points = Array.from(text);
  return points.length <= max ? { text, truncated: false } : { text: points.slice(0, max).join(''), truncated: true };
}

/** The event as the EVENT item keeps it: a recorded response's value and note truncated, with the flags. */
export function storedForm(event: RuntimeEvent): Record<string, unknown> {
  if (event.type !== 'recorded_response') return { ...event };
  const value = truncate(event.value, RUNTIME_LIMITS.responseValueChars);
  const note = event.note === undefined ? undefined : truncate(event.note, RUNTIME_LIMITS.responseNoteChars);
  return { ...event, value: value.text, value_truncated: value.truncated, ...(note ? { note: note.text } : {}), note_truncated: note?.truncated ?? false };
}

export interface EventResult {
  id: string;
  type: RuntimeEventType;
  seq: number;
  received_at: string;
}

export interface Applied {
  ok: true;
  aggregates: CallAggregates;
  /** The state change the batch makes (answered → in_conversation on the first turn), if any. */
  stateChange: StateChange | null;
  /** The batch's first opt-out when the call had none yet: the repository suppresses the number. */
  optOut: { event_id: string; reason: 'opt_out' | 'wrong_person'; text: string | null } | null;
  results: EventResult[];
}

export type ApplyOutcome = Applied | { ok: false; issues: ValidationIssue[] };

/**
 * Apply `events` (new ones only: replays were filtered out) to `before`, in order. `index`
 * maps each event to its position in the request (for the issues' loc).
 */
export interface ApplyContext {
  state: CallState;
  receivedAt: string;
  /** The most the call's usage may add up to (shared/policy/call-state/runtime-window.ts): a usage event past it is 422 at its field. */
  bounds: UsageBounds;
  /** The call was scored: its outcome is frozen (a late `outcome` is stored as an event and changes nothing). */
  outcomeFrozen: boolean;
}

export function applyEvents(before: CallAggregates, events: readonly { event: RuntimeEvent; index: number }[], ctx: ApplyContext): ApplyOutcome {
  const agg = structuredClone(before);
  const issues: ValidationIssue[] = [];
  const results: EventResult[] = [];
  let optOut: Applied['optOut'] = null;
  let startsConversation = false;

  if (before.event_count + events.length > MAX_EVENTS_PER_CALL) {
    issues.push({
      loc: ['body', 'events'],
      msg: `A call may record at most ${MAX_EVENTS_PER_CALL} events; it has ${before.event_count} and this request adds ${events.length}`,
      type: 'too_many_events_for_call',
      ctx: { max_events: MAX_EVENTS_PER_CALL },
    });
  }

  for (const { event, index } of events) {
    const loc = ['body', 'events', index];
    results.push({ id: event.id, type: event.type, seq: agg.event_count, received_at: ctx.receivedAt });
    agg.event_count += 1;
    if (!agg.last_event_at || event.at > agg.last_event_at) agg.last_event_at = event.at;
    switch (event.type) {
      case 'turn':
        agg.turn_count += 1;
        agg.conversation_started_at ??= event.at;
        startsConversation = true;
        if (event.speaker === 'agent' && event.latency_ms !== undefined) {
          agg.latency.turns_measured += 1;
          agg.latency.total_ms += event.latency_ms;
          agg.latency.max_ms = Math.max(agg.latency.max_ms, event.latency_ms);
        }
        break;
      case 'disclosure':
        agg.disclosure_given = true;
        agg.disclosure_at ??= event.at;
        break;
      case 'recorded_response': {
        if (agg.recorded_response_count >= MAX_RECORDED_RESPONSES_PER_CALL) {
          issues.push({
            loc,
            msg: `A call may record at most ${MAX_RECORDED_RESPONSES_PER_CALL} responses`,
            type: 'too_many_recorded_responses',
            ctx: { max_responses: MAX_RECORDED_RESPONSES_PER_CALL },
          });
          break;
        }
        const value = truncate(event.value, RUNTIME_LIMITS.responseValueChars);
        const note = event.note === undefined ? null : truncate(event.note, RUNTIME_LIMITS.responseNoteChars);
        agg.recorded_responses.push({
          event_id: event.id,
          kind: event.kind,
          question_id: event.question_id,
          value: value.text,
          value_truncated: value.truncated,
          note: note?.text ?? null,
          note_truncated: note?.truncated ?? false,
          fit_review: { status: 'unreviewed', reason_truncated: false, latest_review: null },
          at: event.at,
        });
        agg.recorded_response_count += 1;
        break;
      }
      case 'conversation_action':
        if (agg.conversation_actions.some((a) => a.id === event.action_id)) {
          issues.push({
            loc: [...loc, 'action_id'],
            msg: `Action ${event.action_id} was already reported on this call (under another event id)`,
            type: 'duplicate_action_id',
            input: event.action_id,
          });
          break;
        }
        if (agg.conversation_actions.length >= MAX_ACTIONS_PER_CALL) {
          issues.push({
            loc,
            msg: `A call may record at most ${MAX_ACTIONS_PER_CALL} conversation actions`,
            type: 'too_many_actions',
            ctx: { max_actions: MAX_ACTIONS_PER_CALL },
          });
          break;
        }
        agg.conversation_actions.push({
          id: event.action_id,
          event_id: event.id,
          kind: event.kind,
          arguments: event.arguments,
          action_confirmation: event.action_confirmation ?? null,
          at: event.at,
        });
        break;
      case 'action_confirmation': {
        const action = agg.conversation_actions.find((a) => a.id === event.action_id);
        if (!action) {
          issues.push({
            loc: [...loc, 'action_id'],
            msg: `No conversation action ${event.action_id} on this call (report the action first, or in the same batch before its confirmation)`,
            type: 'unknown_action',
            input: event.action_id,
          });
          break;
        }
        action.action_confirmation = event.action_confirmation;
        break;
      }
      case 'outcome':
        // Once analysed, the verdict, the disposition and the outcome they were drawn from stay together.
        if (!ctx.outcomeFrozen) agg.outcome = { ...event.outcome, event_id: event.id, at: event.at };
        break;
      case 'opt_out':
        // The first opt-out is the one that counts; a repeat is stored as an event only.
        if (!agg.opted_out) {
          agg.opted_out = true;
          agg.opt_out = { reason: event.reason, text: event.text ?? null, event_id: event.id, at: event.at, suppression_id: null };
          optOut = { event_id: event.id, reason: event.reason, text: event.text ?? null };
        }
        break;
      case 'usage': {
        const next = {
          audio_seconds: round3(agg.usage.audio_seconds + (event.audio_seconds ?? 0)),
          gpu_seconds: round3((agg.usage.gpu_seconds ?? 0) + (event.gpu_seconds ?? 0)),
          characters_spoken: agg.usage.characters_spoken + (event.characters_spoken ?? 0),
          llm_input_tokens: agg.usage.llm_input_tokens + (event.llm_input_tokens ?? 0),
          llm_output_tokens: agg.usage.llm_output_tokens + (event.llm_output_tokens ?? 0),
        };
        const over = (Object.keys(next) as (keyof UsageBounds)[]).filter((f) => event[f] !== undefined && next[f] > ctx.bounds[f]);
        for (const f of over) {
          const max = f.endsWith('_seconds') ? round3(ctx.bounds[f]) : ctx.bounds[f];
          issues.push({
            loc: [...loc, f],
            msg: `The call's ${f} may add up to at most ${max} (bounded by how long the call lasted); with this event it would be ${next[f]}`,
            type: 'usage_exceeds_call',
            input: event[f],
            ctx: { max_total: max, total_before: f === 'gpu_seconds' ? (agg.usage.gpu_seconds ?? 0) : agg.usage[f] },
          });
        }
        if (over.length === 0) agg.usage = next;
        break;
      }
      case 'hangup':
        agg.hangup ??= { by: event.by, reason: event.reason ?? null, event_id: event.id, at: event.at };
        break;
    }
  }
  if (issues.length) return { ok: false, issues };
  return { ok: true, aggregates: agg, stateChange: startsConversation ? onConversationStarted(ctx.state) : null, optOut, results };
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/**
 * Which call states take runtime events. The runtime speaks only on an answered call; it may
 * flush after the carrier's final callback, so a `completed` call still takes late events
 * (they update the aggregates, never the state). A call that never reached a person does not.
 */
export const ACCEPTS_EVENTS: readonly CallState[] = ['dialing', 'answered', 'in_conversation', 'completed'];

/** A call record as stored once the runtime reported on it: the aggregates are absent until its first event. */
export type CallRecordWithEvents = CallRecord & Partial<CallAggregates>;
