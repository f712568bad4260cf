import { describe, expect, it } from 'vitest';
import {
  type CallTiming,
  callSeconds,
  LATE_EVENT_WINDOW_SECONDS,
  MAX_CALL_SECONDS,
  runtimeWindowClosesAt,
  runtimeWindowOpen,
  USAGE_PER_MINUTE,
  USAGE_SLACK_SECONDS,
  usageBounds,
} from '../../shared/policy/call-state/runtime-window.js';
import { type Applied, aggregatesOf, applyEvents, emptyAggregates, storedForm, truncate } from '../../shared/schemas/call-aggregates.js';
import {
  MAX_EVENTS_PER_CALL,
  MAX_RECORDED_RESPONSES_PER_CALL,
  type RuntimeEvent,
  runtimeEvent,
  runtimeEventsRequest,
} from '../../shared/schemas/runtime-events.js';

const at = '2026-11-24T12:00:00Z';
let n = 0;
const ev = (e: Record<string, unknown>): RuntimeEvent => runtimeEvent.parse({ id: `e${++n}`, at, ...e });
const batch = (...events: RuntimeEvent[]) => events.map((event, index) => ({ event, index }));
const roomy = { audio_seconds: 1e6, gpu_seconds: 1e6, characters_spoken: 1e9, llm_input_tokens: 1e9, llm_output_tokens: 1e9 };
const ctx = { state: 'answered' as const, receivedAt: '2026-11-24T12:00:01.000Z', bounds: roomy, outcomeFrozen: false };
const applied = (r: ReturnType<typeof applyEvents>): Applied => {
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r;
};

describe('runtime event schemas', () => {
  it('accept every kind, with defaults filled in', () => {
    const action = ev({ type: 'conversation_action', action_id: 'a1', kind: 'book_meeting', action_confirmation: { kind: 'explicit', response: 'confirmed' } });
    expect(action).toMatchObject({ arguments: {}, action_confirmation: { method: 'voice', policy_version: null } });
    for (const e of [
      { type: 'turn', speaker: 'contact', text: '' },
      { type: 'disclosure', text: 'This call is from Acme.' },
      { type: 'recorded_response', kind: 'question', question_id: 'q1', value: 'yes' },
      { type: 'action_confirmation', action_id: 'a1', action_confirmation: { kind: 'read_back', response: 'declined', method: 'dtmf', policy_version: 2 } },
      { type: 'outcome', outcome: { outcome_type: 'shift_confirmation', goal_reached: true, response: 'confirmed' } },
      { type: 'outcome', outcome: { outcome_type: 'survey_response', goal_reached: false, complete: false, answers: { q1: '5' } } },
      { type: 'outcome', outcome: { outcome_type: 'none', goal_reached: true } },
      { type: 'opt_out', reason: 'wrong_person' },
      { type: 'usage', audio_seconds: 1.5 },
      { type: 'hangup', by: 'contact' },
    ])
      expect(runtimeEvent.safeParse({ id: 'x', at, ...e }).success, JSON.stringify(e)).toBe(true);
  });

  it('refuse unknown types and fields, bad ids, reversed offsets and empty usage', () => {
    const bad = [
      { id: 'x', at, type: 'mood', text: 'hi' },
      { id: 'x', at, type: 'turn', speaker: 'agent', text: 'hi', extra: 1 },
      { id: 'a#b', at, type: 'hangup', by: 'agent' },
      { id: 'x', at, type: 'turn', speaker: 'agent', text: 'hi', start_ms: 10, end_ms: 5 },
      { id: 'x', at, type: 'usage' },
      { id: 'x', at: 'yesterday', type: 'hangup', by: 'agent' },
      { id: 'x', at, type: 'outcome', outcome: { outcome_type: 'appointment', goal_reached: true, status: 'maybe' } },
    ];
    for (const b of bad) expect(runtimeEvent.safeParse(b).success, JSON.stringify(b)).toBe(false);
    const dup = { id: 'same', at, type: 'hangup', by: 'agent' };
    expect(runtimeEventsRequest.safeParse({ events: [dup, dup] }).success).toBe(false);
    expect(runtimeEventsRequest.safeParse({ events: Array.from({ length: 26 }, (_, i) => ({ ...dup, id: `h${i}` })) }).success).toBe(false);
  });
});

describe('truncation', () => {
  it('keeps whole code points and says whether it shortened', () => {
    expect(truncate('abc', 3)).toEqual({ text: 'abc', truncated: false });
    expect(truncate('abcd', 3)).toEqual({ text: 'abc', truncated: true });
    expect(truncate('😀😀😀', 2)).toEqual({ text: '😀😀', truncated: true });
  });

  it('stores a recorded response with its value (1,000) and note (500) truncated and flagged', () => {
    const stored = storedForm(ev({ type: 'recorded_response', kind: 'question', question_id: 'q', value: 'v'.repeat(1001), note: 'n'.repeat(500) }));
    expect(stored).toMatchObject({ value_truncated: true, note_truncated: false });
    expect((stored.value as string).length).toBe(1000);
    const r = applied(
      applyEvents(emptyAggregates(), batch(ev({ type: 'recorded_response', kind: 'objective', question_id: 'o', value: 'short', note: 'n'.repeat(501) })), ctx),
    );
    expect(r.aggregates.recorded_responses[0]).toMatchObject({
      value: 'short',
      value_truncated: false,
      note_truncated: true,
      fit_review: { status: 'unreviewed' },
    });
  });
});

describe('applying events to a call', () => {
  it('the first turn starts the conversation (answered → in_conversation, through the state machine); later turns and other states change nothing', () => {
    expect(applied(applyEvents(emptyAggregates(), batch(ev({ type: 'turn', speaker: 'contact', text: 'Hi' })), ctx)).stateChange).toEqual({
      state: 'in_conversation',
    });
    expect(
      applied(applyEvents(emptyAggregates(), batch(ev({ type: 'turn', speaker: 'contact', text: 'Hi' })), { ...ctx, state: 'completed' })).stateChange,
    ).toBeNull();
    expect(applied(applyEvents(emptyAggregates(), batch(ev({ type: 'usage', audio_seconds: 1 })), ctx)).stateChange).toBeNull();
  });

  it('counts, sums and keeps the first opt-out and hang-up', () => {
    const r = applied(
      applyEvents(
        emptyAggregates(),
        batch(
          ev({ type: 'turn', speaker: 'agent', text: 'a', latency_ms: 200 }),
          ev({ type: 'turn', speaker: 'agent', text: 'b', latency_ms: 600 }),
          ev({ type: 'usage', audio_seconds: 0.1, characters_spoken: 2 }),
          ev({ type: 'usage', audio_seconds: 0.2, llm_input_tokens: 3 }),
          ev({ type: 'opt_out', reason: 'opt_out' }),
          ev({ type: 'opt_out', reason: 'wrong_person' }),
          ev({ type: 'hangup', by: 'contact' }),
          ev({ type: 'hangup', by: 'agent' }),
        ),
        ctx,
      ),
    );
    expect(r.aggregates).toMatchObject({
      event_count: 8,
      turn_count: 2,
      latency: { turns_measured: 2, total_ms: 800, max_ms: 600 },
      usage: { audio_seconds: 0.3, characters_spoken: 2, llm_input_tokens: 3 },
      opted_out: true,
      opt_out: { reason: 'opt_out' },
      hangup: { by: 'contact' },
    });
    expect(r.optOut).toMatchObject({ reason: 'opt_out' });
    expect(r.results.map((x) => x.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // A call that already opted out asks for no second suppression.
    expect(applied(applyEvents(r.aggregates, batch(ev({ type: 'opt_out', reason: 'opt_out' })), ctx)).optOut).toBeNull();
  });

  it('confirms an action reported earlier or earlier in the batch; refuses an unknown or repeated action id', () => {
    const action = ev({ type: 'conversation_action', action_id: 'a1', kind: 'book_meeting', arguments: { slot: 'x' } });
    const confirm = ev({ type: 'action_confirmation', action_id: 'a1', action_confirmation: { kind: 'read_back', response: 'confirmed' } });
    const r = applied(applyEvents(emptyAggregates(), batch(action, confirm), ctx));
    expect(r.aggregates.conversation_actions).toMatchObject([{ id: 'a1', kind: 'book_meeting', action_confirmation: { response: 'confirmed' } }]);
    const stored = aggregatesOf({ ...r.aggregates, state: 'answered' });
    expect(
      applied(
        applyEvents(stored, batch(ev({ type: 'action_confirmation', action_id: 'a1', action_confirmation: { kind: 'explicit', response: 'corrected' } })), ctx),
      ).aggregates.conversation_actions[0]!.action_confirmation,
    ).toMatchObject({ response: 'corrected' });
    const refused = applyEvents(emptyAggregates(), batch(confirm), ctx);
    expect(refused.ok === false && refused.issues.map((i) => `${i.loc.join('.')}:${i.type}`)).toEqual(['body.events.0.action_id:unknown_action']);
    const repeated = applyEvents(stored, batch(ev({ type: 'conversation_action', action_id: 'a1', kind: 'book_meeting' })), ctx);
    expect(repeated.ok === false && repeated.issues[0]!.type).toBe('duplicate_action_id');
  });

  it('enforces the per-call limits with 422 issues', () => {
    const full = { ...emptyAggregates(), event_count: MAX_EVENTS_PER_CALL };
    const over = applyEvents(full, batch(ev({ type: 'hangup', by: 'agent' })), ctx);
    expect(over.ok === false && over.issues[0]).toMatchObject({ loc: ['body', 'events'], type: 'too_many_events_for_call' });
    const responses = { ...emptyAggregates(), recorded_response_count: MAX_RECORDED_RESPONSES_PER_CALL };
    const tooMany = applyEvents(responses, batch(ev({ type: 'recorded_response', kind: 'question', question_id: 'q', value: 'v' })), ctx);
    expect(tooMany.ok === false && tooMany.issues[0]!.type).toBe('too_many_recorded_responses');
  });

  it('reads a call record without aggregates as empty ones', () => {
    expect(aggregatesOf({ id: 'cal_x', state: 'answered' })).toEqual(emptyAggregates());
  });
});

describe('the late-event window and the usage bounds (the instant is an argument)', () => {
  // Answered 12:00:00, ended 12:05:00 with the carrier's 300 s.
  const ended: CallTiming = {
    state: 'completed',
    answered_at: '2026-11-24T12:00:00.000Z',
    ended_at: '2026-11-24T12:05:00.000Z',
    duration_seconds: 300,
    created_at: '2026-11-24T11:59:50.000Z',
    updated_at: '2026-11-24T12:05:00.000Z',
  };
  const live: CallTiming = { ...ended, state: 'in_conversation', ended_at: null, duration_seconds: null };
  const t = (iso: string) => new Date(iso);

  it('a live call is always open; an ended one for the window after its end, then never', () => {
    expect(runtimeWindowOpen(live, t('2026-11-25T12:00:00Z'))).toBe(true);
    expect(runtimeWindowClosesAt(ended)!.toISOString()).toBe(new Date(Date.parse(ended.ended_at!) + LATE_EVENT_WINDOW_SECONDS * 1000).toISOString());
    expect(runtimeWindowOpen(ended, t('2026-11-24T12:07:00Z'))).toBe(true);
    expect(runtimeWindowOpen(ended, t('2026-11-24T12:07:00.001Z'))).toBe(false);
    expect(runtimeWindowOpen(ended, t('2026-11-24T12:15:00Z'))).toBe(false);
    // A terminal call that never stored ended_at ends at its last update.
    expect(runtimeWindowOpen({ ...ended, ended_at: null }, t('2026-11-24T12:15:00Z'))).toBe(false);
  });

  it('bounds usage by the call: the carrier duration once ended (else end − answer), the longest call while live', () => {
    expect(callSeconds(ended)).toBe(300);
    expect(callSeconds({ ...ended, duration_seconds: null })).toBe(300);
    expect(callSeconds(live)).toBe(MAX_CALL_SECONDS);
    const b = usageBounds(ended);
    const minutes = Math.ceil((300 + USAGE_SLACK_SECONDS) / 60);
    expect(b).toEqual({
      audio_seconds: 300 + USAGE_SLACK_SECONDS,
      gpu_seconds: 2 * (300 + USAGE_SLACK_SECONDS),
      characters_spoken: minutes * USAGE_PER_MINUTE.characters_spoken,
      llm_input_tokens: minutes * USAGE_PER_MINUTE.llm_input_tokens,
      llm_output_tokens: minutes * USAGE_PER_MINUTE.llm_output_tokens,
    });
  });

  it('refuses usage past the bound with 422 at the field, counting what was already metered', () => {
    const bounds = usageBounds(ended);
    const before = { ...emptyAggregates(), usage: { ...emptyAggregates().usage, audio_seconds: 300 } };
    const fits = applyEvents(before, batch(ev({ type: 'usage', audio_seconds: USAGE_SLACK_SECONDS })), { ...ctx, bounds });
    expect(fits.ok).toBe(true);
    const forged = applyEvents(
      before,
      batch(
        ev({ type: 'turn', speaker: 'agent', text: 'bye' }),
        ev({ type: 'usage', audio_seconds: 86_400, llm_input_tokens: 100_000_000, characters_spoken: 10 }),
      ),
      { ...ctx, bounds },
    );
    expect(forged.ok === false && forged.issues.map((i) => `${i.loc.join('.')}:${i.type}`)).toEqual([
      'body.events.1.audio_seconds:usage_exceeds_call',
      'body.events.1.llm_input_tokens:usage_exceeds_call',
    ]);
    // Each event is checked against the running total, the batch's earlier events included.
    const split = applyEvents(emptyAggregates(), batch(ev({ type: 'usage', gpu_seconds: bounds.gpu_seconds }), ev({ type: 'usage', gpu_seconds: 0.001 })), {
      ...ctx,
      bounds,
    });
    expect(split.ok === false && split.issues.map((i) => i.loc.join('.'))).toEqual(['body.events.1.gpu_seconds']);
  });

  it("once analysed, a late outcome is kept as an event but leaves the call's outcome as scored", () => {
    const scored = applied(
      applyEvents(emptyAggregates(), batch(ev({ type: 'outcome', outcome: { outcome_type: 'appointment', goal_reached: true, status: 'booked' } })), ctx),
    ).aggregates;
    const late = applied(
      applyEvents(scored, batch(ev({ type: 'outcome', outcome: { outcome_type: 'appointment', goal_reached: false, status: 'not_booked' } })), {
        ...ctx,
        outcomeFrozen: true,
      }),
    );
    expect(late.aggregates.outcome).toMatchObject({ status: 'booked', goal_reached: true });
    expect(late.aggregates.event_count).toBe(2);
    expect(late.results).toHaveLength(1);
  });
});
