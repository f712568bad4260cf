import { describe, expect, it } from 'vitest';
import { inboundScriptEvents, offeredSlot } from '../../shared/sandbox/booking-script.js';
import { conversationEvents, type PinnedAgentView } from '../../shared/sandbox/conversation.js';
import { beats, eventsUrlFor, peekStreamClaims, toRuntimeEvents } from '../../shared/sandbox/runtime.js';
import { scenarioById } from '../../shared/sandbox/scenarios.js';
import { runtimeEventsRequest } from '../../shared/schemas/runtime-events.js';
import { mintStreamToken } from '../../shared/telephony/call-tokens.js';

const at = new Date('2026-11-24T12:00:00Z');
const receptionist: PinnedAgentView = {
  use_case: 'receptionist',
  objectives: [
    { id: 'greet', description: 'Greet', required: true },
    { id: 'understand_need', description: 'Need', required: true },
    { id: 'resolve', description: 'Resolve', required: true },
  ],
  tools: ['take_message', 'check_calendar', 'book_meeting', 'record_optout', 'end_call'],
  disclosure_config: { business_name: 'Acme Dental' },
};
const staffing: PinnedAgentView = {
  use_case: 'staffing',
  objectives: [{ id: 'confirm', description: 'Confirm the shift', required: true }],
  tools: ['confirm_shift', 'record_shift_response', 'record_optout', 'end_call'],
  disclosure_config: { business_name: 'Shifts Inc', opener: 'This is Shifts Inc.' },
};
/** Every batch the runtime would post is a valid request body. */
const valid = (events: ReturnType<typeof toRuntimeEvents>) => beats(events).every((b) => runtimeEventsRequest.safeParse({ events: b }).success);

describe('the sandbox runtime maps scripts onto runtime events', () => {
  it('booking: disclosure, turns with timing, responses, a confirmed book_meeting action, an appointment outcome naming it, usage and hang-up', () => {
    const events = toRuntimeEvents(inboundScriptEvents('booking', { version: receptionist, at }), { start: at, goalReached: true, outcomeType: 'appointment' });
    expect(valid(events)).toBe(true);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('disclosure');
    expect(types.slice(-2)).toEqual(['usage', 'hangup']);
    const booking = events.find((e) => e.type === 'conversation_action' && e.kind === 'book_meeting')!;
    expect(booking).toMatchObject({
      arguments: { outcome: 'booked', appointment: offeredSlot(at) },
      action_confirmation: { kind: 'read_back', response: 'confirmed' },
    });
    expect(events.find((e) => e.type === 'outcome')).toMatchObject({
      outcome: { outcome_type: 'appointment', goal_reached: true, status: 'booked', starts_at: offeredSlot(at).starts_at, action_id: booking.action_id },
    });
    expect(events.filter((e) => e.type === 'recorded_response').map((e) => e.question_id)).toEqual(['greet', 'understand_need', 'resolve']);
    const turns = events.filter((e) => e.type === 'turn');
    expect(turns.every((t, i) => i === 0 || (t.start_ms as number) >= (turns[i - 1]!.end_ms as number))).toBe(true);
    expect(turns.filter((t) => t.speaker === 'agent').every((t) => typeof t.latency_ms === 'number')).toBe(true);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    // Deterministic ids: a replayed step posts the same ids.
    expect(
      toRuntimeEvents(inboundScriptEvents('booking', { version: receptionist, at }), { start: at, goalReached: true, outcomeType: 'appointment' }),
    ).toEqual(events);
  });

  it('an outcome of another type than the pinned version records is reported as none; tools the version lacks are not used', () => {
    const events = toRuntimeEvents(inboundScriptEvents('booking', { version: receptionist, at }), {
      start: at,
      goalReached: true,
      outcomeType: 'shift_confirmation',
    });
    expect(events.find((e) => e.type === 'outcome')).toMatchObject({ outcome: { outcome_type: 'none', goal_reached: true } });
    const bare = toRuntimeEvents(inboundScriptEvents('booking', { version: { ...receptionist, tools: [] }, at }), {
      start: at,
      goalReached: true,
      outcomeType: 'appointment',
    });
    expect(bare.some((e) => e.type === 'conversation_action')).toBe(false);
    expect(bare.find((e) => e.type === 'outcome')).toMatchObject({ outcome: { outcome_type: 'none' } });
  });

  it('test-number scenarios: a confirmed shift, an opt-out (the agent honours it), a missing disclosure', () => {
    const goal = toRuntimeEvents(conversationEvents(scenarioById('goal').script!, { version: staffing, questions: [], at }), {
      start: at,
      goalReached: true,
      outcomeType: 'shift_confirmation',
    });
    expect(valid(goal)).toBe(true);
    expect(goal.find((e) => e.type === 'outcome')).toMatchObject({
      outcome: { outcome_type: 'shift_confirmation', response: 'confirmed', goal_reached: true },
    });
    const optOut = toRuntimeEvents(conversationEvents(scenarioById('do_not_call').script!, { version: staffing, questions: [], at }), {
      start: at,
      goalReached: false,
      outcomeType: 'shift_confirmation',
    });
    expect(valid(optOut)).toBe(true);
    expect(optOut.find((e) => e.type === 'opt_out')).toMatchObject({ reason: 'opt_out' });
    expect(optOut.find((e) => e.type === 'conversation_action')).toMatchObject({ kind: 'record_optout' });
    const wrong = toRuntimeEvents(conversationEvents(scenarioById('wrong_person').script!, { version: staffing, questions: [], at }), {
      start: at,
      goalReached: false,
      outcomeType: null,
    });
    expect(wrong.find((e) => e.type === 'opt_out')).toMatchObject({ reason: 'wrong_person' });
    const silent = toRuntimeEvents(conversationEvents(scenarioById('no_disclosure').script!, { version: staffing, questions: [], at }), {
      start: at,
      goalReached: true,
      outcomeType: null,
    });
    expect(silent.some((e) => e.type === 'disclosure')).toBe(false);
  });

  it('posts in beats: each contact turn starts a batch of at most 25', () => {
    const events = toRuntimeEvents(inboundScriptEvents('enquiry', { version: receptionist, at }), { start: at, goalReached: true, outcomeType: 'appointment' });
    const batches = beats(events);
    expect(batches.length).toBe(events.filter((e) => e.type === 'turn' && e.speaker === 'contact').length + 1);
    expect(batches.flat()).toEqual(events);
  });
});

describe('where the sandbox runtime reports', () => {
  it('beside our own stream URL only', () => {
    expect(eventsUrlFor('ws://127.0.0.1:3000/runtime/v1/stream', 'cal_1')).toBe('http://127.0.0.1:3000/runtime/v1/calls/cal_1/events');
    expect(eventsUrlFor('ws://127.0.0.1:3000/runtime/v1/relay?token=v1.a.b', 'cal_1')).toBe('http://127.0.0.1:3000/runtime/v1/calls/cal_1/events');
    expect(eventsUrlFor('wss://api.example.com/prod/runtime/v1/relay?token=x', 'cal_1')).toBe('https://api.example.com/prod/runtime/v1/calls/cal_1/events');
    expect(eventsUrlFor('wss://runtime.example.com/relay?token=x', 'cal_1')).toBeNull();
    expect(eventsUrlFor('wss://api.example.com/prod/runtime/v1/stream', 'cal_1')).toBe('https://api.example.com/prod/runtime/v1/calls/cal_1/events');
    expect(eventsUrlFor('wss://runtime.invalid/stream', 'cal_1')).toBeNull();
    expect(eventsUrlFor('https://api.example.com/runtime/v1/stream', 'cal_1')).toBeNull();
    expect(eventsUrlFor(null, 'cal_1')).toBeNull();
  });

  it('reads the call and tenant a token is for (unverified: the route verifies)', () => {
    const token = mintStreamToken('k'.repeat(32), { tenant_id: 'ten_1', call_id: 'cal_1', agent_version_id: 'agv_1', number_id: 'num_1' }, at);
    expect(peekStreamClaims(token)).toEqual({ tenant_id: 'ten_1', call_id: 'cal_1', agent_version_id: 'agv_1' });
    expect(peekStreamClaims('tok_abc')).toBeNull();
    expect(peekStreamClaims(undefined)).toBeNull();
  });
});
