/**
 * An outbound call's life after dispatch, over the local stack with the sandbox carrier and
 * the sandbox voice runtime: status callbacks through the state machine, the TwiML of an
 * answered call (stream or voicemail drop), the disposition, the outbox events, the
 * analysis worker, and the call detail / list / cancel routes.
 */
import { randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../shared/db/client.js';
import { callKeys } from '../../shared/db/keys.js';
import type { OutboxEvent } from '../../shared/events/outbox.js';
import { newId } from '../../shared/ids.js';
import { isTerminal } from '../../shared/policy/call-state/machine.js';
import { createInboundCall, getCall, getCallPointer } from '../../shared/repositories/calls.js';
import { listTenantEvents } from '../../shared/repositories/outbox-events.js';
import type { CallRecordWithEvents } from '../../shared/repositories/runtime-events.js';
import { getActiveSuppression } from '../../shared/repositories/suppressions.js';
import { playInboundCall } from '../../shared/sandbox/inbound-call.js';
import { readTwiml } from '../../shared/sandbox/twiml-reader.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { profileBody } from './agent-fixtures.js';
import { client, newTenant } from './client.js';
import { dial, type OutboundTenant, outboundTenant, putOutboundCall, signedPost, VOICEMAIL_BODY } from './outbound-fixtures.js';

// Steps long enough that the sandbox runtime's beats land before the final status callback.
process.env.SANDBOX_STEP_MS = '250';
// The analysis waits this long after the end for the runtime's late events (default 5 s).
process.env.ANALYSIS_DELAY_SECONDS = '2';

const stack = useTestStack();

const read = async (s: OutboundTenant, id: string) => (await getCall(s.tenantId, id)) as CallRecordWithEvents;
const eventsOf = async (tenantId: string, callId: string): Promise<OutboxEvent[]> =>
  (await listTenantEvents(tenantId)).filter((e) => e.data.call_id === callId);
const typesOf = (events: OutboxEvent[]) => events.map((e) => e.type);
const count = (events: OutboxEvent[], type: string) => events.filter((e) => e.type === type).length;
const newCallSid = () => `CA${randomBytes(16).toString('hex')}`;

/**
 * Waits until the call ended and was analysed. Twelve calls play at once in the first test: on a
 * loaded machine the last one ended and was analysed more than 45 s in.
 */
const settled = (s: OutboundTenant, id: string) =>
  waitFor(
    async () => {
      const call = await read(s, id);
      return call && isTerminal(call.state) && call.analysis !== undefined && call.ended_at ? call : null;
    },
    { timeoutMs: 100_000, intervalMs: 100, message: `call ${id} ended and analysed` },
  );

describe('outbound calls through the sandbox carrier, per test number', () => {
  it('each test number ends in its state and disposition, with its analysis and exactly one final event', async () => {
    const s = await outboundTenant(stack);
    const cases = [
      { to: '+12125550100', state: 'completed', disposition: 'completed_goal', set_by: 'agent_llm', answered: true },
      { to: '+12125550120', state: 'busy', disposition: 'busy', set_by: 'carrier', answered: false },
      { to: '+12125550121', state: 'no_answer', disposition: 'no_answer', set_by: 'carrier', answered: false },
      { to: '+12125550122', state: 'machine', disposition: 'voicemail_machine', set_by: 'carrier', answered: false },
      { to: '+12125550123', state: 'failed', disposition: 'failed', set_by: 'carrier', answered: false },
      { to: '+12125550130', state: 'completed', disposition: 'opt_out', set_by: 'agent_llm', answered: true },
      { to: '+12125550131', state: 'completed', disposition: 'wrong_person_opt_out', set_by: 'agent_llm', answered: true },
      { to: '+12125550110', state: 'completed', disposition: 'completed_no_goal', set_by: 'agent_llm', answered: true },
      { to: '+12125550111', state: 'completed', disposition: 'completed_no_goal', set_by: 'agent_llm', answered: true },
      { to: '+12125550112', state: 'completed', disposition: 'completed_no_goal', set_by: 'agent_llm', answered: true },
      { to: '+12125550140', state: 'completed', disposition: 'completed_goal', set_by: 'agent_llm', answered: true },
      { to: '+12125550141', state: 'completed', disposition: 'opt_out', set_by: 'agent_llm', answered: true },
    ] as const;
    const placed = await Promise.all(
      cases.map(async (c) => {
        const id = await putOutboundCall(s, { to: c.to, questions: [{ id: 'roof_age', prompt: 'How old is your roof?' }] });
        const sid = await dial(s, id, c.to);
        return { ...c, id, sid };
      }),
    );
    const finals = await Promise.all(placed.map((p) => settled(s, p.id)));

    for (const [i, p] of placed.entries()) {
      const call = finals[i]!;
      expect({ to: p.to, state: call.state, disposition: call.disposition, set_by: call.disposition_set_by }).toEqual({
        to: p.to,
        state: p.state,
        disposition: p.disposition,
        set_by: p.set_by,
      });
      // The callback arrived before any pointer existed: it was linked from the URL's call_id.
      expect(call.provider_call_sid).toBe(p.sid);
      expect(call.telephony!.provider_call_sid).toBe(p.sid);
      expect(await getCallPointer(p.sid)).toMatchObject({ tenant_id: s.tenantId, call_id: p.id });
      const events = await waitFor(async () => {
        const e = await eventsOf(s.tenantId, p.id);
        return count(e, 'call.analysis_ready') === 1 ? e : null;
      });
      expect(count(events, 'call.completed'), p.to).toBe(1);
      expect(count(events, 'call.answered'), p.to).toBe(p.answered ? 1 : 0);
      const completed = events.find((e) => e.type === 'call.completed')!;
      expect(completed.data).toMatchObject({ call_id: p.id, state: p.state, disposition: p.disposition, disposition_set_by: p.set_by });
      // Analysis: rubric of the pinned version; floors always present.
      const detail = await s.api('GET', `/v1/calls/${p.id}`);
      expect(detail.status).toBe(200);
      const evaluation = detail.body.analysis.success_evaluation;
      expect(evaluation.rubric_version).toBe(s.versionId);
      expect(evaluation.dimensions.disclosure_given.result).not.toBe('unscored');
      expect(evaluation.dimensions.optout_honored.result).not.toBe('unscored');
      if (!p.answered) {
        expect(evaluation.verdict, p.to).toBe('not_applicable');
        expect(evaluation.dimensions.disclosure_given.result).toBe('not_applicable');
      }
    }

    const byTo = Object.fromEntries(placed.map((p, i) => [p.to, { ...p, call: finals[i]! }]));
    // Person, goal reached: a conversation with the disclosure, the question answered.
    const goal = byTo['+12125550100']!;
    expect(goal.call.turn_count).toBeGreaterThan(0);
    expect(goal.call.answered_at).not.toBeNull();
    expect(goal.call.duration_seconds).toBe(95);
    const goalDetail = (await s.api('GET', `/v1/calls/${goal.id}`)).body;
    expect(goalDetail.analysis.success_evaluation.dimensions.disclosure_given.result).toBe('pass');
    expect(goalDetail.analysis.success_evaluation.dimensions.goal_completion.result).toBe('pass');
    expect(goalDetail.recorded_responses.some((r: { question_id: string }) => r.question_id === 'roof_age')).toBe(true);
    // Opt-out: the number is suppressed, contact.opted_out committed once, the floor honoured.
    for (const to of ['+12125550130', '+12125550131']) {
      const o = byTo[to]!;
      expect(await getActiveSuppression(s.tenantId, to)).toMatchObject({ source: 'call', source_id: o.id });
      const opted = (await listTenantEvents(s.tenantId)).filter((e) => e.type === 'contact.opted_out' && e.data.call_id === o.id);
      expect(opted).toHaveLength(1);
      expect(opted[0]!.data).toMatchObject({ phone_e164: to, reason: to.endsWith('0131') ? 'wrong_person' : 'opt_out' });
      const d = (await s.api('GET', `/v1/calls/${o.id}`)).body;
      expect(d.opted_out).toBe(true);
      expect(d.analysis.success_evaluation.dimensions.optout_honored.result).toBe('pass');
    }
    // The floors: a conversation without the disclosure, and an opt-out the agent ignored, fail the call.
    const skipped = (await s.api('GET', `/v1/calls/${byTo['+12125550140']!.id}`)).body.analysis.success_evaluation;
    expect(skipped.dimensions.disclosure_given.result).toBe('fail');
    expect(skipped.verdict).toBe('fail');
    const ignored = (await s.api('GET', `/v1/calls/${byTo['+12125550141']!.id}`)).body.analysis.success_evaluation;
    expect(ignored.dimensions.optout_honored.result).toBe('fail');
    expect(ignored.verdict).toBe('fail');
    expect(await getActiveSuppression(s.tenantId, '+12125550141')).toMatchObject({ source: 'call' });
    // Machine: answered_at and ended_at stamped, no conversation.
    const machine = byTo['+12125550122']!;
    expect(machine.call.end_reason).toBe('answering_machine');
    expect(machine.call.turn_count ?? 0).toBe(0);
  }, 150_000);

  it('a machine hears the voicemail drop between the opener and the closing, then Hangup', async () => {
    const s = await outboundTenant(stack);
    const to = '+13125550122';
    const id = await putOutboundCall(s, { to });
    const sid = newCallSid();
    const params = {
      AccountSid: s.creds.account_sid,
      CallSid: sid,
      From: s.number.phone_e164,
      To: to,
      CallStatus: 'in-progress',
      AnsweredBy: 'machine_start',
      Direction: 'outbound-api',
    };
    const res = await signedPost(stack, s, `/carrier/twilio/outbound?call_id=${id}`, params);
    expect(res.status).toBe(200);
    const verbs = readTwiml(res.text) as { verb: string; text?: string }[];
    expect(verbs.map((v) => v.verb)).toEqual(['Say', 'Say', 'Say', 'Hangup']);
    expect(verbs[0]!.text).toContain('Acme Solar');
    expect(verbs[1]!.text).toBe(VOICEMAIL_BODY);
    expect(verbs[2]!.text).toContain('4 1 5 5 5 5 0 1 9 9');
    expect(await read(s, id)).toMatchObject({ state: 'machine', disposition: 'voicemail_machine', disposition_set_by: 'carrier', provider_call_sid: sid });
    // The same fetch again (a replay) plays the same message and writes no second event.
    const again = await signedPost(stack, s, `/carrier/twilio/outbound?call_id=${id}`, params);
    expect(readTwiml(again.text).map((v) => (v as { verb: string }).verb)).toEqual(['Say', 'Say', 'Say', 'Hangup']);
    expect(count(await eventsOf(s.tenantId, id), 'call.completed')).toBe(1);
  });

  it('a person is streamed to the runtime with the signed token; an unknown call gets a polite Hangup and nothing is written', async () => {
    const s = await outboundTenant(stack);
    const to = '+13125550100';
    const id = await putOutboundCall(s, { to });
    const params = {
      AccountSid: s.creds.account_sid,
      CallSid: newCallSid(),
      From: s.number.phone_e164,
      To: to,
      CallStatus: 'in-progress',
      AnsweredBy: 'human',
      Direction: 'outbound-api',
    };
    const res = await signedPost(stack, s, `/carrier/twilio/outbound?call_id=${id}`, params);
    const [connect] = readTwiml(res.text) as { verb: string; parameters: Record<string, string> }[];
    expect(connect!.verb).toBe('Connect');
    const claims = JSON.parse(Buffer.from(connect!.parameters.token!.split('.')[1]!, 'base64url').toString());
    expect(claims).toMatchObject({ tenant_id: s.tenantId, call_id: id, agent_version_id: s.versionId });
    expect(await read(s, id)).toMatchObject({ state: 'answered' });
    expect(typesOf(await eventsOf(s.tenantId, id))).toEqual(['call.answered']);

    const ghost = newId('cal');
    const unknown = await signedPost(stack, s, `/carrier/twilio/outbound?call_id=${ghost}`, { ...params, CallSid: newCallSid() });
    expect(unknown.status).toBe(200);
    expect(readTwiml(unknown.text).map((v) => (v as { verb: string }).verb)).toEqual(['Say', 'Hangup']);
    expect(await getCall(s.tenantId, ghost)).toBeUndefined();

    // Another tenant's call id under this account's signature: refused, nothing written.
    const other = await outboundTenant(stack);
    const theirs = await putOutboundCall(other, { to });
    const refused = await signedPost(stack, s, `/carrier/twilio/status?call_id=${theirs}`, { ...params, CallSid: newCallSid(), CallStatus: 'ringing' });
    expect(refused.status).toBe(200); // the call is not found under the signer's tenant: ignored
    expect(await read(other, theirs)).toMatchObject({ state: 'dialing', provider_call_sid: null });
  });
});

describe('the runtime reporting after the carrier ended the call', () => {
  it('its late outcome settles the disposition with the analysis (once)', async () => {
    const s = await outboundTenant(stack);
    const to = '+13125550185';
    const id = await putOutboundCall(s, { to });
    const sid = newCallSid();
    const base = { AccountSid: s.creds.account_sid, CallSid: sid, From: s.number.phone_e164, To: to, Direction: 'outbound-api' };
    const twimlRes = await signedPost(stack, s, `/carrier/twilio/outbound?call_id=${id}`, { ...base, CallStatus: 'in-progress', AnsweredBy: 'human' });
    const token = (readTwiml(twimlRes.text)[0] as { parameters: Record<string, string> }).parameters.token!;
    const runtime = client(stack, token);
    const t0 = new Date().toISOString();
    expect(
      (
        await runtime('POST', `/runtime/v1/calls/${id}/events`, {
          body: {
            events: [
              { id: 'late-1', type: 'turn', at: t0, speaker: 'contact', text: 'Hello?' },
              { id: 'late-2', type: 'disclosure', at: t0, text: 'This call is from Acme Solar.' },
              { id: 'late-3', type: 'turn', at: t0, speaker: 'agent', text: 'This call is from Acme Solar.' },
            ],
          },
        })
      ).status,
    ).toBe(200);
    // The carrier's final callback arrives before the runtime's last batch.
    await signedPost(stack, s, `/carrier/twilio/status?call_id=${id}`, { ...base, CallStatus: 'completed', CallDuration: '40' });
    expect(await read(s, id)).toMatchObject({ state: 'completed', disposition: 'completed_no_goal', disposition_set_by: 'system' });
    const late = await runtime('POST', `/runtime/v1/calls/${id}/events`, {
      body: {
        events: [
          { id: 'late-4', type: 'outcome', at: t0, outcome: { outcome_type: 'none', goal_reached: true } },
          { id: 'late-5', type: 'hangup', at: t0, by: 'agent' },
        ],
      },
    });
    expect(late.status).toBe(200);
    const call = await settled(s, id);
    expect(call).toMatchObject({ state: 'completed', disposition: 'completed_goal', disposition_set_by: 'agent_llm' });
    const events = await waitFor(async () => {
      const e = await eventsOf(s.tenantId, id);
      return count(e, 'call.analysis_ready') === 1 ? e : null;
    });
    expect(count(events, 'call.completed')).toBe(1);
    expect(events.find((e) => e.type === 'call.analysis_ready')!.data).toMatchObject({ disposition: 'completed_goal', disposition_set_by: 'agent_llm' });
  });
});

describe('status callbacks are monotonic and idempotent', () => {
  it('replayed, reordered and concurrent callbacks never move a call backwards or double an event', async () => {
    const s = await outboundTenant(stack);
    const to = '+13125550177';
    const id = await putOutboundCall(s, { to });
    const sid = newCallSid();
    const base = { AccountSid: s.creds.account_sid, CallSid: sid, From: s.number.phone_e164, To: to, Direction: 'outbound-api' };
    const status = (CallStatus: string, extra: Record<string, string> = {}) =>
      signedPost(stack, s, `/carrier/twilio/status?call_id=${id}`, { ...base, CallStatus, ...extra });

    expect((await status('ringing')).status).toBe(200);
    await Promise.all([status('in-progress'), status('in-progress'), status('in-progress')]);
    expect(await read(s, id)).toMatchObject({ state: 'answered' });
    await Promise.all([status('completed', { CallDuration: '31' }), status('completed', { CallDuration: '31' }), status('completed', { CallDuration: '99' })]);
    // Late and reordered: a ringing and an answer after the end change nothing.
    await status('ringing');
    await status('in-progress');
    await status('busy');
    const call = await read(s, id);
    expect(call).toMatchObject({ state: 'completed', disposition: 'answered_incomplete', disposition_set_by: 'carrier', end_reason: 'carrier_completed' });
    expect([31, 99]).toContain(call.duration_seconds);
    const events = await eventsOf(s.tenantId, id);
    expect(count(events, 'call.answered')).toBe(1);
    expect(count(events, 'call.completed')).toBe(1);
    await settled(s, id);
    await waitFor(async () => count(await eventsOf(s.tenantId, id), 'call.analysis_ready') === 1);
    const analysis = (await s.api('GET', `/v1/calls/${id}`)).body.analysis;
    expect(analysis.success_evaluation.verdict).toBe('not_applicable');
  });

  it('a no-answer arriving after a late ringing stays no_answer; a CallSid other than the linked one is refused', async () => {
    const s = await outboundTenant(stack);
    const to = '+13125550178';
    const id = await putOutboundCall(s, { to });
    const sid = newCallSid();
    const base = { AccountSid: s.creds.account_sid, CallSid: sid, From: s.number.phone_e164, To: to, Direction: 'outbound-api' };
    await signedPost(stack, s, `/carrier/twilio/status?call_id=${id}`, { ...base, CallStatus: 'no-answer', SipResponseCode: '487' });
    await signedPost(stack, s, `/carrier/twilio/status?call_id=${id}`, { ...base, CallStatus: 'ringing' });
    expect(await read(s, id)).toMatchObject({ state: 'no_answer', disposition: 'no_answer', end_reason: 'carrier_no_answer_sip_487' });
    const hijack = await signedPost(stack, s, `/carrier/twilio/status?call_id=${id}`, { ...base, CallSid: newCallSid(), CallStatus: 'completed' });
    expect(hijack.status).toBe(403);
    expect(count(await eventsOf(s.tenantId, id), 'call.completed')).toBe(1);
  });
});

describe('GET /v1/calls/{call_id}, GET /v1/calls, cancel', () => {
  it('cancel before the dial disposes the call once; after the dial → 409; unknown or another tenant → 404', async () => {
    const s = await outboundTenant(stack);
    const id = await putOutboundCall(s, { to: '+13125550179', state: 'scheduled' });
    const first = await s.api('POST', `/v1/calls/${id}/cancel`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id, state: 'disposed', end_reason: 'cancelled', disposition: null, disposition_set_by: null });
    expect(first.body.ended_at).not.toBeNull();
    const again = await s.api('POST', `/v1/calls/${id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body.state).toBe('disposed');
    const events = await eventsOf(s.tenantId, id);
    expect(typesOf(events).filter((t) => t === 'call.completed')).toHaveLength(1);
    expect(events.find((e) => e.type === 'call.completed')!.data).toMatchObject({ state: 'disposed', end_reason: 'cancelled' });
    await settled(s, id);

    const dialing = await putOutboundCall(s, { to: '+13125550180' });
    const late = await s.api('POST', `/v1/calls/${dialing}/cancel`);
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('call_not_cancellable');
    expect((await read(s, dialing)).state).toBe('dialing');

    expect((await s.api('POST', `/v1/calls/${newId('cal')}/cancel`)).status).toBe(404);
    const other = await newTenant();
    expect((await client(stack, other.token)('POST', `/v1/calls/${id}/cancel`)).status).toBe(404);
  });

  it('the detail renders every field; an unreadable stored analysis is null with 200; inbound calls read through it; another tenant → 404', async () => {
    const s = await outboundTenant(stack);
    const id = await putOutboundCall(s, { to: '+13125550181', state: 'scheduled', idempotencyKey: 'k-1' });
    const detail = await s.api('GET', `/v1/calls/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id,
      direction: 'outbound',
      state: 'scheduled',
      end_reason: null,
      disposition: null,
      disposition_set_by: null,
      agent_version_id: s.versionId,
      origin: 'api',
      telephony: {
        provider: 'mock',
        telephony_account_id: s.accountId,
        phone_number_id: s.number.id,
        from_e164: s.number.phone_e164,
        to_e164: '+13125550181',
        provider_call_sid: null,
        mock: true,
      },
      recorded_response_count: 0,
      recorded_responses: [],
      conversation_actions: [],
      qualification_reviews: {},
      analysis: null,
      started_at: null,
      answered_at: null,
      ended_at: null,
      duration_seconds: null,
    });
    expect(detail.body.attempt_id).toMatch(/^att_/);
    expect(detail.body.compliance).toMatchObject({ outcome: 'allow' });

    // A verdict written by a results schema this deployment cannot read.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: callKeys.call(s.tenantId, id),
        UpdateExpression: 'SET analysis = :a',
        ExpressionAttributeValues: { ':a': { results_schema_version: 99, success_evaluation: { verdict: 'stellar', dimensions: {} } } },
      }),
    );
    const unreadable = await s.api('GET', `/v1/calls/${id}`);
    expect(unreadable.status).toBe(200);
    expect(unreadable.body.analysis).toBeNull();

    const inbound = await createInboundCall(
      {
        tenant_id: s.tenantId,
        state: 'answered',
        disposition: null,
        disposition_set_by: null,
        end_reason: null,
        from_e164: '+13125550999',
        to_e164: s.number.phone_e164,
        phone_number_id: s.number.id,
        telephony_account_id: s.accountId,
        provider: 'mock',
        provider_call_sid: newCallSid(),
        inbound: { route_mode: 'agent', policy_version: null, schedule: null, agent_id: s.agentId, agent_version_id: s.versionId, greeting: null, path: [] },
        answered_at: new Date().toISOString(),
      },
      new Date(),
    );
    const inDetail = await s.api('GET', `/v1/calls/${inbound.call.id}`);
    expect(inDetail.status).toBe(200);
    expect(inDetail.body).toMatchObject({
      direction: 'inbound',
      state: 'answered',
      attempt_id: null,
      contact_id: null,
      agent_version_id: s.versionId,
      compliance: null,
      analysis: null,
    });

    const other = await newTenant();
    expect((await client(stack, other.token)('GET', `/v1/calls/${id}`)).status).toBe(404);
    expect((await s.api('GET', `/v1/calls/${newId('cal')}`)).status).toBe(404);
  });

  it('lists newest first with filters and a cursor', async () => {
    const s = await outboundTenant(stack);
    const contactId = newId('con');
    const a = await putOutboundCall(s, { to: '+13125550182', state: 'scheduled', contactId });
    const b = await putOutboundCall(s, { to: '+13125550183', state: 'scheduled', idempotencyKey: 'retry-me' });
    const c = await putOutboundCall(s, { to: '+13125550184', state: 'scheduled' });
    await s.api('POST', `/v1/calls/${c}/cancel`);

    const ids = async (query: string) => {
      const res = await waitFor(async () => {
        const r = await s.api('GET', `/v1/calls${query}`);
        return r.status === 200 ? r : null;
      });
      return res.body.data.map((d: { id: string }) => d.id);
    };
    await waitFor(async () => (await ids('')).length === 3 && (await ids('?state=disposed')).length === 1, { message: 'index caught up' });
    expect(await ids('')).toEqual([c, b, a]);
    expect(await ids('?state=disposed')).toEqual([c]);
    expect(await ids('?state=scheduled,dialing')).toEqual([b, a]);
    expect(await ids(`?contact_id=${contactId}`)).toEqual([a]);
    expect(await ids('?idempotency_key=retry-me')).toEqual([b]);
    expect(await ids('?direction=inbound')).toEqual([]);
    expect(await ids('?direction=outbound&state=scheduled')).toEqual([b, a]);
    expect(await ids('?created_at.gte=2000-01-01T00:00:00Z')).toHaveLength(3);

    const page1 = await s.api('GET', '/v1/calls?limit=2');
    expect(page1.body.data.map((d: { id: string }) => d.id)).toEqual([c, b]);
    expect(page1.body.has_more).toBe(true);
    const page2 = await s.api('GET', `/v1/calls?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`);
    expect(page2.body.data.map((d: { id: string }) => d.id)).toEqual([a]);
    expect(page2.body.has_more).toBe(false);

    expect((await s.api('GET', '/v1/calls?state=nope')).status).toBe(422);
    expect((await s.api('GET', '/v1/calls?limit=0')).status).toBe(422);
    expect((await s.api('GET', '/v1/calls?color=red')).status).toBe(422);
    // Another tenant sees none of them.
    const other = await newTenant();
    expect((await client(stack, other.token)('GET', '/v1/calls')).body.data).toEqual([]);
  });
});

describe('inbound calls are scored too', () => {
  it('a caller books through the receptionist agent: when the carrier ends the call, the analysis worker scores it against the pinned version', async () => {
    const s = await outboundTenant(stack);
    const profile = (await s.api('POST', '/v1/compliance-profiles', { body: profileBody({ call_purpose: 'informational' }) })).body;
    const agent = (
      await s.api('POST', '/v1/templates/tpl_receptionist_front_desk/instantiate', {
        body: { disclosure_config: { business_name: 'Acme Dental' }, compliance_profile_id: profile.id },
      })
    ).body;
    const version = (await s.api('POST', `/v1/agents/${agent.id}/publish`)).body;
    expect((await s.api('PATCH', `/v1/phone-numbers/${s.number.id}`, { body: { inbound_agent_id: agent.id } })).status).toBe(200);
    const played = await playInboundCall({ to: s.number.phone_e164, from: '+12125550177', script: 'booking' });
    expect(played.outcome).toBe('completed');
    const callId = (await getCallPointer(played.call_sid))!.call_id;
    const detail = await waitFor(
      async () => {
        const d = (await s.api('GET', `/v1/calls/${callId}`)).body;
        return d.analysis ? d : undefined;
      },
      { timeoutMs: 30_000, message: 'the inbound call scored' },
    );
    expect(detail).toMatchObject({ direction: 'inbound', state: 'completed', agent_version_id: version.id });
    expect(detail.analysis.success_evaluation.rubric_version).toBe(version.id);
    expect(detail.analysis.success_evaluation.dimensions.disclosure_given.result).toBe('pass');
    expect(detail.analysis.success_evaluation.dimensions.optout_honored.result).toBe('pass');
  });
});
