/**
 * The voice runtime's side of the API: POST /runtime/v1/calls/{call_id}/events with the
 * call's Stream token (the one our TwiML handed to the carrier), over the local stack.
 */

import '../support/debug-log-level.js';
import { randomBytes } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { analyzeCall } from '../../shared/calls/analyze-call.js';
import { advanceClockForTests } from '../../shared/clock.js';
import { db, tableName } from '../../shared/db/client.js';
import { callPartition } from '../../shared/db/keys.js';
import { newId } from '../../shared/ids.js';
import { LATE_EVENT_WINDOW_SECONDS } from '../../shared/policy/call-state/runtime-window.js';
import { getCall, getCallBySid } from '../../shared/repositories/calls.js';
import { listTenantEvents } from '../../shared/repositories/outbox-events.js';
import type { CallRecordWithEvents } from '../../shared/repositories/runtime-events.js';
import { callTokenKey } from '../../shared/telephony/call-token-key.js';
import { mintStreamToken } from '../../shared/telephony/call-tokens.js';
import { admitRelayConnection } from '../../shared/voice/relay-admission.js';
import { captureLogs } from '../support/log-capture.js';
import { useTestStack } from '../support/stack.js';
import { locs } from './agent-fixtures.js';
import { resetClock, setClock } from './call-fixtures.js';
import { client } from './client.js';
import { agentNumberWorld, newCallSid } from './inbound-fixtures.js';
import { activeNumber, randomNumber } from './telephony-fixtures.js';

const logs = captureLogs();
const stack = useTestStack({ workers: false });
/** Every Stream token this file uses: none may reach a log line. */
const tokens: string[] = [];

const consent = {
  consent_basis: 'pewc',
  captured_at: '2026-10-01T12:00:00Z',
  scope: { purposes: ['appointment_reminders'] },
  evidence: { artifact_type: 'web_form', artifact_ref: 'https://acme.test/forms/1', content_hash: 'a'.repeat(64) },
};
const at = (s = 0) => new Date(Date.UTC(2026, 10, 24, 12, 0, s)).toISOString();
let n = 0;
const eid = (prefix = 'ev') => `${prefix}-${Date.now().toString(36)}-${++n}`;

/** A tenant with an agent-routed number; `call()` places an inbound call and returns its Stream token. */
async function setup() {
  const world = await agentNumberWorld(stack);
  const call = async (from = randomNumber('212')) => {
    const { sid, params, token: minted, call: record } = await world.ring(from);
    const token = minted!;
    tokens.push(token);
    const runtime = client(stack, token);
    const post = (body: unknown) => runtime('POST', `/runtime/v1/calls/${record.id}/events`, { body });
    const end = () => world.carrier('/carrier/twilio/status', { ...params, CallStatus: 'completed', CallDuration: '42' });
    return { sid, from, token, id: record.id, post, end, read: async () => (await getCall(world.tenantId, record.id))! as CallRecordWithEvents };
  };
  return { ...world, call };
}

/** The call partition's EVENT items. */
async function eventItems(tenantId: string, callId: string) {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :e)',
      ExpressionAttributeValues: { ':pk': callPartition(tenantId, callId), ':e': 'EVENT#' },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

const turn = (speaker: 'agent' | 'contact', text: string, extra: Record<string, unknown> = {}) => ({
  id: eid('turn'),
  type: 'turn',
  at: at(),
  speaker,
  text,
  ...extra,
});

describe("runtime events are authenticated by the call's Stream token", () => {
  it("none → 401; a wrong signature, an expired token, another call's token or a tenant API key → 403; nothing written", async () => {
    const s = await setup();
    const c = await s.call();
    const other = await s.call();
    const key = await callTokenKey();
    const claims = { tenant_id: s.tenantId, call_id: c.id, agent_version_id: s.agent.versionId, number_id: s.number.id };
    const body = { events: [turn('contact', 'Hello?')] };
    // Through the contract-checking client with no token of its own: the header is the test's.
    const send = (authorization?: string) =>
      client(stack)('POST', `/runtime/v1/calls/${c.id}/events`, { body, headers: authorization ? { authorization } : {} });

    const none = await send();
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ code: 'unauthorized' });
    expect((await send(`Basic ${Buffer.from('a:b').toString('base64')}`)).status).toBe(401);

    const refused = {
      'wrong signature': mintStreamToken(randomBytes(32), claims, new Date()),
      expired: mintStreamToken(key, claims, new Date(Date.now() - 3600_000), 60),
      "another call's token": other.token,
      'a tenant API key': s.token,
      garbage: 'not-a-token',
    };
    for (const [name, token] of Object.entries(refused)) {
      const res = await send(`Bearer ${token}`);
      expect(res.status, name).toBe(403);
      expect(res.body, name).toMatchObject({ code: 'forbidden' });
    }
    // The valid token for the other call cannot reach this one, and nothing was written to either.
    expect(await eventItems(s.tenantId, c.id)).toEqual([]);
    expect(await c.read()).toMatchObject({ state: 'answered' });
    expect((await c.read()).event_count).toBeUndefined();
    expect(await eventItems(s.tenantId, other.id)).toEqual([]);

    // The token in the TwiML is good for the whole call (hours, not minutes).
    const exp = JSON.parse(Buffer.from(c.token.split('.')[1]!, 'base64url').toString()).exp as number;
    expect(exp - Date.now() / 1000).toBeGreaterThan(3 * 3600);
    expect((await send(`Bearer ${c.token}`)).status).toBe(200);
  });

  it('an unknown call → 404 (a valid token for a call id that was never stored)', async () => {
    const s = await setup();
    const ghost = newId('cal');
    const token = mintStreamToken(
      await callTokenKey(),
      { tenant_id: s.tenantId, call_id: ghost, agent_version_id: s.agent.versionId, number_id: s.number.id },
      new Date(),
    );
    const res = await client(stack, token)('POST', `/runtime/v1/calls/${ghost}/events`, { body: { events: [turn('contact', 'Hi')] } });
    expect(res.status).toBe(404);
  });
});

afterEach(resetClock);

describe('runtime events', () => {
  it('records every kind: the first turn starts the conversation, aggregates land on the call record, long values are truncated', async () => {
    const s = await setup();
    const c = await s.call();
    const long = 'x'.repeat(1500);
    const events = [
      turn('contact', 'Hello?', { start_ms: 0, end_ms: 600 }),
      { id: eid('disc'), type: 'disclosure', at: at(1), text: 'This call is from Acme Solar.' },
      turn('agent', 'This call is from Acme Solar. How can I help?', { start_ms: 900, end_ms: 2500, latency_ms: 300 }),
      { id: eid('resp'), type: 'recorded_response', at: at(2), kind: 'question', question_id: 'budget', value: long, note: 'n'.repeat(800) },
      { id: eid('resp'), type: 'recorded_response', at: at(3), kind: 'objective', question_id: 'qualify', value: 'Yes' },
      {
        id: eid('act'),
        type: 'conversation_action',
        at: at(4),
        action_id: 'act-1',
        kind: 'book_meeting',
        arguments: { starts_at: '2026-11-25T15:00:00Z', duration_minutes: 30 },
      },
      { id: eid('conf'), type: 'action_confirmation', at: at(5), action_id: 'act-1', action_confirmation: { kind: 'read_back', response: 'confirmed' } },
      {
        id: eid('out'),
        type: 'outcome',
        at: at(6),
        outcome: {
          outcome_type: 'appointment',
          goal_reached: true,
          status: 'booked',
          starts_at: '2026-11-25T15:00:00Z',
          duration_minutes: 30,
          action_id: 'act-1',
        },
      },
      { id: eid('use'), type: 'usage', at: at(7), audio_seconds: 42.5, characters_spoken: 310, llm_input_tokens: 1200, llm_output_tokens: 90 },
      { id: eid('use'), type: 'usage', at: at(8), audio_seconds: 1.25, llm_output_tokens: 10 },
      { id: eid('bye'), type: 'hangup', at: at(9), by: 'agent' },
    ];
    const res = await c.post({ events });
    expect(res.status).toBe(200);
    expect(res.body.call_id).toBe(c.id);
    expect(res.body.results.map((r: { id: string; seq: number }) => [r.id, r.seq])).toEqual(events.map((e, i) => [e.id, i]));

    const call = (await c.read()) as unknown as Record<string, any>;
    expect(call).toMatchObject({
      state: 'in_conversation',
      event_count: 11,
      turn_count: 2,
      conversation_started_at: at(0),
      latency: { turns_measured: 1, total_ms: 300, max_ms: 300 },
      disclosure_given: true,
      disclosure_at: at(1),
      recorded_response_count: 2,
      conversation_actions: [
        {
          id: 'act-1',
          kind: 'book_meeting',
          arguments: { duration_minutes: 30 },
          action_confirmation: { kind: 'read_back', response: 'confirmed', method: 'voice', policy_version: null },
        },
      ],
      outcome: { outcome_type: 'appointment', goal_reached: true, status: 'booked', action_id: 'act-1' },
      opted_out: false,
      usage: { audio_seconds: 43.75, characters_spoken: 310, llm_input_tokens: 1200, llm_output_tokens: 100 },
      hangup: { by: 'agent' },
    });
    expect(call.recorded_responses[0]).toMatchObject({
      kind: 'question',
      question_id: 'budget',
      value_truncated: true,
      note_truncated: true,
      fit_review: { status: 'unreviewed' },
    });
    expect(call.recorded_responses[0].value).toHaveLength(1000);
    expect(call.recorded_responses[0].note).toHaveLength(500);
    expect(call.recorded_responses[1]).toMatchObject({ value: 'Yes', value_truncated: false, note: null, note_truncated: false });
    expect(await eventItems(s.tenantId, c.id)).toHaveLength(11);

    // The carrier's final callback completes the call; a late flush from the runtime is still taken, and never moves the state.
    expect((await c.end()).status).toBe(200);
    expect(await c.read()).toMatchObject({ state: 'completed' });
    const late = await c.post({ events: [turn('agent', 'Goodbye.'), { id: eid('use'), type: 'usage', at: at(10), audio_seconds: 1 }] });
    expect(late.status).toBe(200);
    expect(await c.read()).toMatchObject({ state: 'completed', turn_count: 3, event_count: 13, usage: { audio_seconds: 44.75 } });
  });

  it('is idempotent by event id: a replay answers the same result and counts nothing twice; the same id with another body is 409', async () => {
    const s = await setup();
    const c = await s.call();
    const batch = { events: [turn('contact', 'Hello?'), { id: eid('use'), type: 'usage', at: at(), audio_seconds: 5, llm_input_tokens: 10 }] };
    const first = await c.post(batch);
    expect(first.status).toBe(200);
    const again = await c.post(batch);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // A batch mixing a replayed event with a new one stores only the new one.
    const mixed = await c.post({ events: [batch.events[1], turn('agent', 'Hi there.')] });
    expect(mixed.body.results[0]).toEqual(first.body.results[1]);
    expect(mixed.body.results[1].seq).toBe(2);
    expect(await c.read()).toMatchObject({ event_count: 3, turn_count: 2, usage: { audio_seconds: 5, llm_input_tokens: 10 } });

    const reused = await c.post({ events: [{ ...batch.events[0], text: 'Something else' }] });
    expect(reused.status).toBe(409);
    expect(reused.body.code).toBe('event_id_reused');
    expect(await eventItems(s.tenantId, c.id)).toHaveLength(3);
  });

  it('concurrent batches for one call all land, each counted once; concurrent replays of one batch store it once', async () => {
    const s = await setup();
    const c = await s.call();
    const batches = Array.from({ length: 5 }, (_, i) => ({
      events: [turn(i % 2 ? 'agent' : 'contact', `line ${i}`), { id: eid('use'), type: 'usage', at: at(), characters_spoken: 10 }],
    }));
    const answers = await Promise.all(batches.map((b) => c.post(b)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.flatMap((a) => a.body.results.map((r: { seq: number }) => r.seq)).sort((a: number, b: number) => a - b)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    expect(await c.read()).toMatchObject({ state: 'in_conversation', event_count: 10, turn_count: 5, usage: { characters_spoken: 50 } });

    const same = { events: [turn('contact', 'once'), { id: eid('use'), type: 'usage', at: at(), characters_spoken: 7 }] };
    const replays = await Promise.all(Array.from({ length: 4 }, () => c.post(same)));
    expect(replays.every((r) => r.status === 200 && JSON.stringify(r.body) === JSON.stringify(replays[0]!.body))).toBe(true);
    expect(await c.read()).toMatchObject({ event_count: 12, turn_count: 6, usage: { characters_spoken: 57 } });
  });

  it('refuses what breaks a limit or a reference with 422 in the contract shape, and writes nothing', async () => {
    const s = await setup();
    const c = await s.call();
    const tooMany = await c.post({ events: Array.from({ length: 26 }, () => turn('contact', 'hi')) });
    expect(tooMany.status).toBe(422);
    expect(locs(tooMany.body)).toEqual(['body.events:too_long']);

    const dup = turn('contact', 'hi');
    const cases: [unknown, string[]][] = [
      [{ events: [] }, ['body.events:too_short']],
      [{ events: [turn('agent', 'a'.repeat(4001))] }, ['body.events.0.text:string_too_long']],
      [{ events: [dup, dup] }, ['body.events.1.id:duplicate_event_id']],
      [{ events: [{ id: 'has a space', type: 'turn', at: at(), speaker: 'agent', text: 'x' }] }, ['body.events.0.id:string_pattern_mismatch']],
      [{ events: [{ ...turn('agent', 'x'), speaker: 'robot' }] }, ['body.events.0.speaker:enum']],
      [{ events: [{ ...turn('agent', 'x'), mood: 'happy' }] }, ['body.events.0.mood:extra_forbidden']],
      [{ events: [{ id: eid(), type: 'usage', at: at() }] }, ['body.events.0:value_error']],
      [
        { events: [{ id: eid(), type: 'recorded_response', at: at(), kind: 'question', question_id: 'q', value: 'v'.repeat(16_001) }] },
        ['body.events.0.value:string_too_long'],
      ],
      [
        { events: [{ id: eid(), type: 'action_confirmation', at: at(), action_id: 'nope', action_confirmation: { kind: 'explicit', response: 'confirmed' } }] },
        ['body.events.0.action_id:unknown_action'],
      ],
      [
        { events: [{ id: eid(), type: 'outcome', at: at(), outcome: { outcome_type: 'shift_confirmation', goal_reached: true, response: 'confirmed' } }] },
        ['body.events.0.outcome.outcome_type:outcome_type_mismatch'],
      ],
    ];
    for (const [body, expected] of cases) {
      const res = await c.post(body);
      expect(res.status, JSON.stringify(expected)).toBe(422);
      expect(locs(res.body), JSON.stringify(expected)).toEqual(expected);
    }
    // A valid turn before a bad reference in the same batch is not stored either: all or nothing.
    const partial = await c.post({
      events: [
        turn('contact', 'Hello?'),
        { id: eid(), type: 'action_confirmation', at: at(), action_id: 'nope', action_confirmation: { kind: 'explicit', response: 'confirmed' } },
      ],
    });
    expect(partial.status).toBe(422);
    expect(locs(partial.body)).toEqual(['body.events.1.action_id:unknown_action']);
    expect(await eventItems(s.tenantId, c.id)).toEqual([]);
    expect(await c.read()).toMatchObject({ state: 'answered' });
  });

  it("an opt-out suppresses the number (source call) and flips the contact's do_not_call in the same transaction as the event", async () => {
    const s = await setup();
    const caller = randomNumber('646');
    const contact = (await s.api('POST', '/v1/contacts', { body: { phone_e164: caller, consent } })).body;
    expect(contact.do_not_call).toBe(false);
    const c = await s.call(caller);
    const res = await c.post({
      events: [
        turn('contact', "Please don't call me again."),
        { id: eid('opt'), type: 'opt_out', at: at(), reason: 'opt_out', text: "Please don't call me again." },
      ],
    });
    expect(res.status).toBe(200);

    const list = (await s.api('GET', '/v1/suppressions')).body.data as Record<string, unknown>[];
    const entry = list.find((e) => e.phone_e164 === caller);
    expect(entry).toMatchObject({ status: 'active', reason: 'opt_out', source: 'call', source_id: c.id });
    expect((await s.api('GET', `/v1/contacts/${contact.id}`)).body.do_not_call).toBe(true);
    expect(await c.read()).toMatchObject({ opted_out: true, opt_out: { reason: 'opt_out', suppression_id: entry!.id } });

    // A second call from the same number opting out again (wrong person) finds the number suppressed and adds no entry.
    const again = await s.call(caller);
    expect((await again.post({ events: [{ id: eid('opt'), type: 'opt_out', at: at(), reason: 'wrong_person' }] })).status).toBe(200);
    expect(await again.read()).toMatchObject({ opted_out: true, opt_out: { reason: 'wrong_person', suppression_id: entry!.id } });
    const after = (await s.api('GET', '/v1/suppressions')).body.data as Record<string, unknown>[];
    expect(after.filter((e) => e.phone_e164 === caller)).toHaveLength(1);
  });

  it('a call that never reached a person takes no events (409), and nothing is written', async () => {
    const s = await setup();
    // A number with no agent answers with a polite refusal: the call is stored disposed.
    const bare = await activeNumber(s.api, { accountId: s.accountId });
    const sid = newCallSid();
    await s.carrier('/carrier/twilio/voice', {
      AccountSid: s.creds.account_sid,
      CallSid: sid,
      From: randomNumber('212'),
      To: bare.phone_e164,
      CallStatus: 'ringing',
      Direction: 'inbound',
    });
    const disposed = (await getCallBySid(sid))!;
    expect(disposed.state).toBe('disposed');
    const token = mintStreamToken(
      await callTokenKey(),
      { tenant_id: s.tenantId, call_id: disposed.id, agent_version_id: s.agent.versionId, number_id: bare.id },
      new Date(),
    );
    const res = await client(stack, token)('POST', `/runtime/v1/calls/${disposed.id}/events`, { body: { events: [turn('contact', 'Hello?')] } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('call_not_in_conversation');
    expect(await eventItems(s.tenantId, disposed.id)).toEqual([]);
  });
});

describe('after the call ends', () => {
  it('late events are taken for the window only, never rewrite a scored outcome, and usage is bounded by the call', async () => {
    const s = await setup();
    const c = await s.call();
    const booked = { id: eid('out'), type: 'outcome', at: at(5), outcome: { outcome_type: 'appointment', goal_reached: true, status: 'booked' } };
    expect(
      (
        await c.post({
          events: [turn('contact', 'Tuesday works.'), booked, { id: eid('use'), type: 'usage', at: at(6), audio_seconds: 40, llm_input_tokens: 5000 }],
        })
      ).status,
    ).toBe(200);
    expect((await c.end()).status).toBe(200);
    const ended = await c.read();
    expect(ended).toMatchObject({ state: 'completed', duration_seconds: 42 });
    expect(await analyzeCall(s.tenantId, c.id)).toBe('stored');
    const scored = await c.read();
    expect(scored.analysis).toBeTruthy();

    // Within the window: a late outcome is stored as an event, and the scored outcome stays.
    advanceClockForTests(30_000);
    const notBooked = { id: eid('out'), type: 'outcome', at: at(50), outcome: { outcome_type: 'appointment', goal_reached: false, status: 'not_booked' } };
    expect((await c.post({ events: [notBooked] })).status).toBe(200);
    const after = await c.read();
    expect(after.outcome).toMatchObject({ status: 'booked', goal_reached: true, event_id: booked.id });
    expect({ disposition: after.disposition, analysis: after.analysis }).toEqual({ disposition: scored.disposition, analysis: scored.analysis });
    expect((await eventItems(s.tenantId, c.id)).map((i) => i.event_id)).toContain(notBooked.id);

    // Usage past what a 42 s call could use is 422 at the field; nothing is stored or metered.
    const forged = await c.post({ events: [{ id: eid('use'), type: 'usage', at: at(51), audio_seconds: 86_400, llm_input_tokens: 100_000_000 }] });
    expect(forged.status).toBe(422);
    expect(locs(forged.body)).toEqual(['body.events.0.audio_seconds:usage_exceeds_call', 'body.events.0.llm_input_tokens:usage_exceeds_call']);
    expect((await c.read()).usage).toEqual(after.usage);
    expect((await c.read()).event_count).toBe(after.event_count);

    // Past the window the token is spent: 409 call_ended, nothing written, on every runtime route.
    setClock(Date.parse(ended.ended_at!) + (LATE_EVENT_WINDOW_SECONDS + 1) * 1000);
    const late = await c.post({
      events: [
        { ...notBooked, id: eid('out') },
        { id: eid('use'), type: 'usage', at: at(52), audio_seconds: 1 },
      ],
    });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ code: 'call_ended' });
    const calendar = await client(stack, c.token)('POST', `/runtime/v1/calls/${c.id}/calendar/availability`, {
      body: { start_date: '2026-11-25', end_date: '2026-11-26', duration_minutes: 30 },
    });
    expect(calendar.status).toBe(409);
    expect(calendar.body).toMatchObject({ code: 'call_ended' });
    expect(await c.read()).toMatchObject({ event_count: after.event_count, usage: after.usage, outcome: { status: 'booked' } });
    // Nor may it open the voice relay again.
    const relayAt = (ms: number) =>
      admitRelayConnection({ rawQuery: `token=${encodeURIComponent(c.token)}`, signature: undefined, at: new Date(Date.parse(ended.ended_at!) + ms) });
    expect(await relayAt(LATE_EVENT_WINDOW_SECONDS * 1000)).toMatchObject({ ok: true });
    expect(await relayAt((LATE_EVENT_WINDOW_SECONDS + 1) * 1000)).toEqual({ ok: false, status: 403, reason: 'invalid_token' });
  });
});

describe('call tokens never reach the logs', () => {
  it('no Stream token appears in any log line of the runtime route (at DEBUG)', () => {
    expect(logs.requests('postCallEvents')).toBeGreaterThan(20);
    expect(tokens.length).toBeGreaterThan(5);
    const text = logs.text();
    for (const token of tokens) expect(text).not.toContain(token);
  });
});

describe('receptionist outcomes become events', () => {
  it('a conversation action using a receptionist tool commits its receptionist.* event with the action; other tools commit none', async () => {
    const s = await setup();
    const c = await s.call();
    const batch = {
      events: [
        turn('contact', 'Can someone call me back tomorrow?'),
        { id: eid('act'), type: 'conversation_action', at: at(3), action_id: 'cb-1', kind: 'schedule_callback', arguments: { at: '2026-11-25T15:00:00Z' } },
        { id: eid('act'), type: 'conversation_action', at: at(4), action_id: 'xfer-1', kind: 'transfer_to_human', arguments: {} },
        { id: eid('act'), type: 'conversation_action', at: at(5), action_id: 'book-1', kind: 'book_meeting', arguments: { duration_minutes: 30 } },
      ],
    };
    const res = await c.post(batch);
    expect(res.status).toBe(200);
    // (book_meeting and schedule_callback also open receptionist handoffs: handoff.created; see docs/decisions/call-analysis-and-outcomes.md.)
    const events = (await listTenantEvents(s.tenantId)).filter((e) => e.data.call_id === c.id && e.type.startsWith('receptionist.'));
    expect(events.map((e) => e.type).sort()).toEqual(['receptionist.callback_scheduled', 'receptionist.transfer_requested']);
    expect(events.find((e) => e.type === 'receptionist.callback_scheduled')!.data).toMatchObject({
      call_id: c.id,
      direction: 'inbound',
      action_id: 'cb-1',
      kind: 'schedule_callback',
      arguments: { at: '2026-11-25T15:00:00Z' },
    });
    // The same batch again (the runtime retried): stored once, no second event.
    expect((await c.post(batch)).status).toBe(200);
    expect((await listTenantEvents(s.tenantId)).filter((e) => e.data.call_id === c.id && e.type.startsWith('receptionist.'))).toHaveLength(2);
    expect((await listTenantEvents(s.tenantId)).filter((e) => e.data.call_id === c.id && e.type === 'handoff.created')).toHaveLength(2);
  });
});
