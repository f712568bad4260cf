/**
 * POST /v1/calls and the dispatcher, driven by hand on the local stack (no pollers, no
 * scheduler ticks, so each step is the test's own): the ContactAttempt shapes for allow,
 * defer and block; idempotency; the 422/409 answers; at-most-once dialling through the real
 * sandbox carrier (duplicates, racing workers, a crash between transition and dial); the
 * reconciler; re-judging at dial time; the cps limiter. Time moves with the clock hook.
 */
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COMMIT_GRACE_MS, dispatchCall } from '../../shared/calls/dispatch.js';
import { DISPATCH_SAFETY_NET_MS } from '../../shared/calls/dispatch-queue.js';
import { DUE_RECHECK_MS, runReconciler, runScheduler } from '../../shared/calls/scheduler.js';
import { advanceClockForTests, now } from '../../shared/clock.js';
import { db, tableName } from '../../shared/db/client.js';
import { callKeys, contactKeys, DISPATCH_SHARDS, dispatchKeys, keys, platformKeys } from '../../shared/db/keys.js';
import { sqs } from '../../shared/queues/client.js';
import { readContactHistory } from '../../shared/repositories/contact-attempts.js';
import { listTenantEvents } from '../../shared/repositories/outbox-events.js';
import { getPhoneNumber } from '../../shared/repositories/phone-numbers.js';
import type { TelephonyAccountRecord } from '../../shared/repositories/telephony-accounts.js';
import { providerFor } from '../../shared/telephony/carrier-for.js';
import { CarrierRefused, CarrierUnavailable, type TelephonyProvider } from '../../shared/telephony/provider.js';
import { useTestStack } from '../support/stack.js';
import { locs } from './agent-fixtures.js';
import {
  ALLOWED_AT,
  attemptItem,
  attemptsOf,
  type CallWorld,
  callWorld,
  eventsOfCall,
  newContact,
  QUIET_AT,
  queue,
  resetClock,
  sandboxCallsFrom,
  setClock,
  setCpsLimit,
  storedCall,
  typesOf,
} from './call-fixtures.js';
import { client, newTenant } from './client.js';
import { draftAgent } from './telephony-fixtures.js';

const stack = useTestStack({ workers: false });

let w: CallWorld;
beforeAll(async () => {
  const t = await newTenant('Queue');
  w = await callWorld(client(stack, t.token), t.tenantId);
});
afterEach(() => resetClock());

const body = (contactId: string, over: Record<string, unknown> = {}) => ({ agent_id: w.agentId, contact_id: contactId, ...over });

/** A provider whose placeCall throws `err` (and counts its calls). */
const failingProvider = (err: Error) => {
  const calls: unknown[] = [];
  const provider = async () => ({ placeCall: async (input: unknown) => (calls.push(input), Promise.reject(err)) }) as unknown as TelephonyProvider;
  return { provider, calls };
};

describe('POST /v1/calls', () => {
  it('allow: 200 with the scheduled ContactAttempt, due now, from our number on the mock account; one transaction of call, attempt and events', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    const res = await queue(
      w.api,
      body(c.id, { questions: [{ id: 'q1', prompt: 'Did the reminder help?', scoring: { scale: 'csat', points: 5 } }], context: { plan: 'gold' } }),
    );
    expect(res.status).toBe(200);
    const a = res.body;
    expect(a).toEqual({
      id: expect.stringMatching(/^att_/),
      call_id: expect.stringMatching(/^cal_/),
      contact_id: c.id,
      agent_id: w.agentId,
      agent_version_id: w.versionId,
      campaign_id: null,
      origin: 'api',
      state: 'scheduled',
      disposition: null,
      scheduled_for: a.compliance.evaluated_at,
      compliance: expect.objectContaining({ outcome: 'allow', disposition: null, reasons: [], next_permitted_at: null, call_purpose: 'informational' }),
      telephony: {
        provider: 'mock',
        telephony_account_id: w.accountId,
        phone_number_id: w.number.id,
        from_e164: w.number.phone_e164,
        provider_call_sid: null,
        mock: true,
      },
      questions: [{ id: 'q1', prompt: 'Did the reminder help?', scoring: { scale: 'csat', points: 5 } }],
      context: { plan: 'gold' },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(Math.abs(Date.parse(a.scheduled_for) - Date.parse(ALLOWED_AT))).toBeLessThan(60_000);
    const call = await storedCall(w.tenantId, a.call_id);
    expect(call).toMatchObject({
      direction: 'outbound',
      state: 'scheduled',
      to_e164: c.phone_e164,
      from_e164: w.number.phone_e164,
      provider_call_sid: null,
      attempt_id: a.id,
      inbound: null,
      recording_url: null,
      dialing_at: null,
      idempotency_key: expect.any(String),
    });
    expect(await attemptItem(w.tenantId, c.id, a.id)).toMatchObject({ placed_at: null, call_id: a.call_id, subject: 'appointment_reminders' });
    expect(typesOf(await eventsOfCall(w.tenantId, a.call_id))).toEqual(['call.queued', 'call.scheduled']);
  });

  it('defer (quiet hours): scheduled for next_permitted_at, with a due item the scheduler fires then', async () => {
    setClock(QUIET_AT);
    const c = await newContact(w.api);
    const res = await queue(w.api, body(c.id));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'scheduled', disposition: null, compliance: { outcome: 'defer' } });
    expect(res.body.scheduled_for).toBe(res.body.compliance.next_permitted_at);
    expect(Date.parse(res.body.scheduled_for)).toBeGreaterThan(Date.parse(QUIET_AT));
    const due = await db().send(
      new GetCommand({ TableName: tableName(), Key: dispatchKeys.due(res.body.scheduled_for, w.tenantId, res.body.call_id), ConsistentRead: true }),
    );
    expect(due.Item).toMatchObject({ call_id: res.body.call_id, scheduled_for: res.body.scheduled_for });
    // Not due yet: neither the dispatcher nor the scheduler does anything with it.
    expect(await dispatchCall(w.tenantId, res.body.call_id)).toBe('not_due');
    await runScheduler(now());
    expect(
      (
        await db().send(
          new GetCommand({ TableName: tableName(), Key: dispatchKeys.due(res.body.scheduled_for, w.tenantId, res.body.call_id), ConsistentRead: true }),
        )
      ).Item,
    ).toBeDefined();
    expect(typesOf(await eventsOfCall(w.tenantId, res.body.call_id))).toEqual(['call.queued', 'call.scheduled']);
  });

  it('block (suppressed number): disposed with dnc_hit set by compliance, never dialled; blocked and completed exactly once', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    expect((await w.api('POST', '/v1/suppressions', { body: { phone_e164: c.phone_e164, reason: 'opt_out' } })).status).toBe(201);
    const res = await queue(w.api, body(c.id));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      state: 'disposed',
      disposition: 'dnc_hit',
      scheduled_for: null,
      compliance: { outcome: 'block', disposition: 'dnc_hit' },
    });
    expect(await storedCall(w.tenantId, res.body.call_id)).toMatchObject({
      state: 'disposed',
      disposition_set_by: 'compliance',
      end_reason: 'compliance_blocked',
      ended_at: expect.any(String),
    });
    expect(typesOf(await eventsOfCall(w.tenantId, res.body.call_id))).toEqual(['call.queued', 'call.blocked', 'call.completed']);
    expect(await dispatchCall(w.tenantId, res.body.call_id)).toBe('not_scheduled');
    expect(await sandboxCallsFrom(w.number.phone_e164).then((calls) => calls.filter((x) => x.to === c.phone_e164))).toEqual([]);
  });

  it('Idempotency-Key: required; a replay answers the stored attempt; another body is 422; concurrent requests make one attempt', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    const missing = await w.api('POST', '/v1/calls', { body: body(c.id) });
    expect(missing.status).toBe(422);
    expect(locs(missing.body)).toEqual(['header.idempotency-key:missing']);

    const key = `k-${Date.now()}`;
    const first = await queue(w.api, body(c.id), key);
    const replay = await queue(w.api, body(c.id), key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replay')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const other = await queue(w.api, body(c.id, { context: { plan: 'silver' } }), key);
    expect(other.status).toBe(422);
    expect(locs(other.body)).toEqual(['header.idempotency-key:idempotency_key_reused']);

    const d = await newContact(w.api);
    const racing = await Promise.all(Array.from({ length: 6 }, () => queue(w.api, body(d.id), 'same-key-race')));
    expect(racing.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const ids = new Set(racing.filter((r) => r.status === 200).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(await attemptsOf(w.tenantId, d.id)).toHaveLength(1);
    expect(await attemptsOf(w.tenantId, c.id)).toHaveLength(1);
  });

  it('422 for an unknown or other tenant’s agent or contact, 409 for an unpublished agent, nothing written', async () => {
    const c = await newContact(w.api);
    const other = await newTenant('Other');
    const otherApi = client(stack, other.token);
    const foreign = await callWorld(otherApi, other.tenantId);
    const foreignContact = await newContact(otherApi);
    const unknown = await queue(w.api, { agent_id: 'agt_01JAAAAAAAAAAAAAAAAAAAAAAA', contact_id: 'con_01JAAAAAAAAAAAAAAAAAAAAAAA' });
    expect(unknown.status).toBe(422);
    expect(locs(unknown.body)).toEqual(['body.agent_id:value_error', 'body.contact_id:value_error']);
    expect(locs((await queue(w.api, body(foreignContact.id))).body)).toEqual(['body.contact_id:value_error']);
    expect(locs((await queue(w.api, { agent_id: foreign.agentId, contact_id: c.id })).body)).toEqual(['body.agent_id:value_error']);
    const draft = await queue(w.api, { agent_id: await draftAgent(w.api), contact_id: c.id });
    expect(draft.status).toBe(409);
    expect(draft.body.code).toBe('agent_not_published');
    expect(await attemptsOf(w.tenantId, c.id)).toEqual([]);
  });
});

describe('dispatch: at most once', () => {
  it('dials an allowed call once through the sandbox carrier, whatever the duplicates and racing workers', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    const a = (await queue(w.api, body(c.id))).body;
    const before = (await getPhoneNumber(w.tenantId, w.number.id))!;
    // Two workers at once, then a redelivered message.
    const outcomes = await Promise.all([dispatchCall(w.tenantId, a.call_id), dispatchCall(w.tenantId, a.call_id), dispatchCall(w.tenantId, a.call_id)]);
    expect(outcomes.filter((o) => o === 'dialled')).toHaveLength(1);
    expect(outcomes.filter((o) => o !== 'dialled').every((o) => o === 'taken' || o === 'not_scheduled')).toBe(true);
    expect(await dispatchCall(w.tenantId, a.call_id)).toBe('not_scheduled');

    const dialled = (await sandboxCallsFrom(w.number.phone_e164)).filter((x) => x.to === c.phone_e164);
    expect(dialled).toHaveLength(1);
    const call = await storedCall(w.tenantId, a.call_id);
    expect(call).toMatchObject({
      state: 'dialing',
      provider_call_sid: dialled[0]!.sid,
      telephony: { provider_call_sid: dialled[0]!.sid, mock: true },
      dialing_at: expect.any(String),
    });
    const pointer = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.carrierCall(dialled[0]!.sid as string), ConsistentRead: true }));
    expect(pointer.Item).toMatchObject({ type: 'carrier_call', tenant_id: w.tenantId, call_id: a.call_id, telephony_account_id: w.accountId });
    // The carrier was given our outbound TwiML and status URLs naming the call, machine detection and a 30 s ring.
    expect(dialled[0]).toMatchObject({
      url: expect.stringContaining(`/carrier/twilio/outbound?call_id=${a.call_id}`),
      status_callback: expect.stringContaining(`/carrier/twilio/status?call_id=${a.call_id}`),
      machine_detection: 'Enable',
      timeout: 30,
    });
    expect((await attemptItem(w.tenantId, c.id, a.id))!.placed_at).toBe(call.dialing_at);
    // The dial counts towards the contact's frequency cap from now on: in its day's placements, which the next judgement reads by key.
    const day = await db().send(
      new GetCommand({ TableName: tableName(), Key: contactKeys.placements(w.tenantId, c.id, call.dialing_at!.slice(0, 10)), ConsistentRead: true }),
    );
    expect(day.Item!.placements).toEqual([{ attempt_id: a.id, placed_at: call.dialing_at, subject: 'appointment_reminders' }]);
    expect((await readContactHistory(w.tenantId, c.id, now()))!.attempts).toEqual([{ placed_at: call.dialing_at, subject: 'appointment_reminders' }]);
    const after = (await getPhoneNumber(w.tenantId, w.number.id))!;
    expect(after.dials_count).toBe((before.dials_day === after.dials_day ? before.dials_count : 0) + 1);
    // The dialing watch is gone: nothing for the reconciler.
    const watch = await db().send(
      new GetCommand({ TableName: tableName(), Key: dispatchKeys.dialing(call.dialing_at!, w.tenantId, a.call_id), ConsistentRead: true }),
    );
    expect(watch.Item).toBeUndefined();
    expect(typesOf(await eventsOfCall(w.tenantId, a.call_id))).toEqual(['call.queued', 'call.scheduled', 'call.dialing']);
  });

  it('a lost dispatch message: the scheduler sends again every DUE_RECHECK_MS until the call leaves scheduled, then its due item is gone', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    const a = (await queue(w.api, body(c.id))).body;
    const dueItems = async () =>
      (
        await db().send(
          new QueryCommand({
            TableName: tableName(),
            KeyConditionExpression: 'pk = :pk',
            FilterExpression: 'call_id = :c',
            ExpressionAttributeValues: { ':pk': dispatchKeys.due('x', w.tenantId, a.call_id).pk, ':c': a.call_id },
            ConsistentRead: true,
          }),
        )
      ).Items ?? [];
    // While the route's message may still be on its way, the scheduler leaves the call alone: a
    // second dispatch would spend a grant of the account's pacing on a call already taken.
    const armed = await dueItems();
    expect(armed).toHaveLength(1);
    expect(Date.parse(armed[0]!.scheduled_for as string)).toBe(Date.parse(a.created_at) + DISPATCH_SAFETY_NET_MS);
    await runScheduler(now());
    expect((await dueItems())[0]!.sk).toBe(armed[0]!.sk);
    // The message the route sent is "lost" (no pollers here): past the safety net the scheduler sends one and re-arms the item.
    advanceClockForTests(DISPATCH_SAFETY_NET_MS + 1_000);
    expect(await runScheduler(now())).toBeGreaterThanOrEqual(1);
    const rearmed = await dueItems();
    expect(rearmed).toHaveLength(1);
    expect(Date.parse(rearmed[0]!.scheduled_for as string)).toBeGreaterThan(now().getTime() + 9 * 60_000);
    expect((await storedCall(w.tenantId, a.call_id)).due_at).toBe(rearmed[0]!.scheduled_for);
    await runScheduler(now()); // not due again yet
    expect((await dueItems())[0]!.sk).toBe(rearmed[0]!.sk);
    advanceClockForTests(DUE_RECHECK_MS + 1_000);
    expect(await runScheduler(now())).toBeGreaterThanOrEqual(1);
    expect(await dispatchCall(w.tenantId, a.call_id)).toBe('dialled');
    expect(await dueItems()).toEqual([]);
    expect((await sandboxCallsFrom(w.number.phone_e164)).filter((x) => x.to === c.phone_e164)).toHaveLength(1);
  });

  it('a crash after the transition (carrier unavailable) is failed by the reconciler as dispatch_unknown once the bound passes, never redialled', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    const a = (await queue(w.api, body(c.id))).body;
    const stub = failingProvider(new CarrierUnavailable('unreachable', 'connection reset after the request left'));
    expect(await dispatchCall(w.tenantId, a.call_id, { provider: stub.provider })).toBe('unknown');
    expect(stub.calls).toHaveLength(1);
    expect(await storedCall(w.tenantId, a.call_id)).toMatchObject({ state: 'dialing', provider_call_sid: null });
    // Redelivery dials nothing; the reconciler leaves it alone before the bound.
    expect(await dispatchCall(w.tenantId, a.call_id, { provider: stub.provider })).toBe('not_scheduled');
    await runReconciler(now());
    expect((await storedCall(w.tenantId, a.call_id)).state).toBe('dialing');

    advanceClockForTests(121_000);
    expect(await runReconciler(now())).toBeGreaterThanOrEqual(1);
    expect(await storedCall(w.tenantId, a.call_id)).toMatchObject({
      state: 'failed',
      end_reason: 'dispatch_unknown',
      disposition: 'failed',
      disposition_set_by: 'system',
      ended_at: expect.any(String),
    });
    await runReconciler(now());
    const events = await eventsOfCall(w.tenantId, a.call_id);
    expect(typesOf(events)).toEqual(['call.queued', 'call.scheduled', 'call.dialing', 'call.completed']);
    expect(events.at(-1)!.data).toMatchObject({ state: 'failed', end_reason: 'dispatch_unknown' });
    expect(await dispatchCall(w.tenantId, a.call_id)).toBe('not_scheduled');
    expect(stub.calls).toHaveLength(1);
    expect((await sandboxCallsFrom(w.number.phone_e164)).filter((x) => x.to === c.phone_e164)).toEqual([]);
  });

  it('a refused dial fails the call with the carrier’s reason and one final event', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    const a = (await queue(w.api, body(c.id))).body;
    const stub = failingProvider(new CarrierRefused('invalid_to', 21211, 'The To number is not valid'));
    expect(await dispatchCall(w.tenantId, a.call_id, { provider: stub.provider })).toBe('refused');
    expect(await storedCall(w.tenantId, a.call_id)).toMatchObject({
      state: 'failed',
      disposition: 'failed',
      disposition_set_by: 'carrier',
      end_reason: 'carrier_refused_invalid_to',
    });
    expect(typesOf(await eventsOfCall(w.tenantId, a.call_id))).toEqual(['call.queued', 'call.scheduled', 'call.dialing', 'call.completed']);
    advanceClockForTests(121_000);
    await runReconciler(now());
    expect((await storedCall(w.tenantId, a.call_id)).end_reason).toBe('carrier_refused_invalid_to');
  });

  it('a suppression added after queuing wins at dial time: disposed dnc_hit, never dialled', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    const a = (await queue(w.api, body(c.id))).body;
    expect((await w.api('POST', '/v1/suppressions', { body: { phone_e164: c.phone_e164, reason: 'opt_out' } })).status).toBe(201);
    expect(await dispatchCall(w.tenantId, a.call_id)).toBe('blocked');
    expect(await storedCall(w.tenantId, a.call_id)).toMatchObject({
      state: 'disposed',
      disposition: 'dnc_hit',
      disposition_set_by: 'compliance',
      compliance: { outcome: 'block' },
    });
    expect(typesOf(await eventsOfCall(w.tenantId, a.call_id))).toEqual(['call.queued', 'call.scheduled', 'call.blocked', 'call.completed']);
    expect(await dispatchCall(w.tenantId, a.call_id)).toBe('not_scheduled');
    expect((await sandboxCallsFrom(w.number.phone_e164)).filter((x) => x.to === c.phone_e164)).toEqual([]);
  });

  it('a call whose contact no longer exists ends at dial time (call_target_gone, set by system), never re-sent forever', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    const a = (await queue(w.api, body(c.id))).body;
    await db().send(new DeleteCommand({ TableName: tableName(), Key: contactKeys.contact(w.tenantId, c.id) }));
    expect(await dispatchCall(w.tenantId, a.call_id)).toBe('blocked');
    expect(await storedCall(w.tenantId, a.call_id)).toMatchObject({
      state: 'disposed',
      disposition: 'blocked_by_policy',
      disposition_set_by: 'system',
      end_reason: 'call_target_gone',
      due_at: null,
    });
    expect(typesOf(await eventsOfCall(w.tenantId, a.call_id))).toEqual(['call.queued', 'call.scheduled', 'call.blocked', 'call.completed']);
    expect(await dispatchCall(w.tenantId, a.call_id)).toBe('not_scheduled');
  });

  it('a call due in quiet hours is re-deferred at dial time (new scheduled_for and due item)', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    const a = (await queue(w.api, body(c.id))).body;
    setClock(QUIET_AT); // the message arrives late, in quiet hours (the clock moved back for the test)
    // scheduled_for is now in the future by the clock: the message is ignored…
    expect(await dispatchCall(w.tenantId, a.call_id)).toBe('not_due');
    // …while a call due and judged in quiet hours is deferred again:
    setClock(Date.parse('2026-11-19T03:00:00.000Z'));
    expect(await dispatchCall(w.tenantId, a.call_id)).toBe('deferred');
    const call = await storedCall(w.tenantId, a.call_id);
    expect(call.state).toBe('scheduled');
    expect(Date.parse(call.scheduled_for!)).toBeGreaterThan(Date.parse('2026-11-19T03:00:00.000Z'));
    const due = await db().send(
      new GetCommand({ TableName: tableName(), Key: dispatchKeys.due(call.scheduled_for!, w.tenantId, a.call_id), ConsistentRead: true }),
    );
    expect(due.Item).toBeDefined();
    expect(typesOf(await eventsOfCall(w.tenantId, a.call_id))).toEqual(['call.queued', 'call.scheduled', 'call.scheduled']);
  });

  it('respects the account’s cps_limit across concurrent dispatchers', async () => {
    setClock(ALLOWED_AT);
    const t = await newTenant('Cps');
    const cw = await callWorld(client(stack, t.token), t.tenantId);
    await setCpsLimit(t.tenantId, cw.accountId, 2);
    const contacts = await Promise.all(Array.from({ length: 6 }, () => newContact(cw.api)));
    const attempts = await Promise.all(contacts.map(async (c) => (await queue(cw.api, { agent_id: cw.agentId, contact_id: c.id })).body));
    const outcomes = await Promise.all(attempts.map((a) => dispatchCall(t.tenantId, a.call_id)));
    expect(outcomes).toEqual(Array(6).fill('dialled'));
    // The carrier's own clock: never more than 2 dials in any one second (sliding), so 6 take over two seconds.
    const created = (await sandboxCallsFrom(cw.number.phone_e164)).map((x) => Date.parse(x.created_at as string)).sort((a, b) => a - b);
    expect(created).toHaveLength(6);
    for (let i = 2; i < created.length; i++) expect(created[i]! - created[i - 2]!).toBeGreaterThanOrEqual(1000);

    // Requests that take their time reaching the carrier: every third one 300 ms on its way. A
    // pacing that counted its own instants would let a late one land within a second of the two
    // after it; the lanes wait for the carrier's answer, so its own clock still shows at most 2.
    let placed = 0;
    const slowTrips = async (account: TelephonyAccountRecord): Promise<TelephonyProvider> => {
      const real = await providerFor(account);
      return {
        ...real,
        placeCall: async (input) => {
          if (placed++ % 3 === 0) await new Promise((r) => setTimeout(r, 300));
          return real.placeCall(input);
        },
      };
    };
    const more = await Promise.all(Array.from({ length: 7 }, () => newContact(cw.api)));
    const moreAttempts = await Promise.all(more.map(async (c) => (await queue(cw.api, { agent_id: cw.agentId, contact_id: c.id })).body));
    expect(await Promise.all(moreAttempts.map((a) => dispatchCall(t.tenantId, a.call_id, { provider: slowTrips })))).toEqual(Array(7).fill('dialled'));
    expect(placed).toBe(7);
    const stamps = (await sandboxCallsFrom(cw.number.phone_e164)).map((x) => Date.parse(x.created_at as string)).sort((a, b) => a - b);
    expect(stamps).toHaveLength(13);
    for (let i = 2; i < stamps.length; i++) expect(stamps[i]! - stamps[i - 2]!).toBeGreaterThanOrEqual(1000);

    // A full account: the dispatcher gives the call back to the scheduler (a due item), dials nothing.
    await setCpsLimit(t.tenantId, cw.accountId, 1);
    const c = await newContact(cw.api);
    const a = (await queue(cw.api, { agent_id: cw.agentId, contact_id: c.id })).body;
    // The account's next free grant three seconds ahead: more than this dispatcher may wait.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: dispatchKeys.cps(t.tenantId, cw.accountId),
        UpdateExpression: 'SET next_at = :at',
        ExpressionAttributeValues: { ':at': now().getTime() + 3000 },
      }),
    );
    expect(await dispatchCall(t.tenantId, a.call_id, { slotWaitMs: 0 })).toBe('busy');
    expect((await storedCall(t.tenantId, a.call_id)).state).toBe('scheduled');
    const due = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'call_id = :c',
        ExpressionAttributeValues: { ':pk': dispatchKeys.due('x', t.tenantId, a.call_id).pk, ':c': a.call_id },
        ConsistentRead: true,
      }),
    );
    expect(due.Items!.length).toBeGreaterThanOrEqual(1);
    expect((await sandboxCallsFrom(cw.number.phone_e164)).filter((x) => x.to === c.phone_e164)).toEqual([]);
  });
});

describe('dispatch: the first dial of a day', () => {
  it('a number another dial started the day on since this one read it: counted in the dial’s first transaction, not judged again', async () => {
    setClock(ALLOWED_AT);
    const t = await newTenant('Day roll');
    const cw = await callWorld(client(stack, t.token), t.tenantId);
    const numberKey = keys.phoneNumber(t.tenantId, cw.number.id);
    const today = now().toISOString().slice(0, 10);
    const yesterday = new Date(now().getTime() - 86_400_000).toISOString().slice(0, 10);
    const setCount = (day: string, count: number) =>
      db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: numberKey,
          UpdateExpression: 'SET dials_day = :d, dials_count = :c',
          ExpressionAttributeValues: { ':d': day, ':c': count },
        }),
      );
    await setCount(yesterday, 7);
    const c = await newContact(cw.api);
    const a = (await queue(cw.api, { agent_id: cw.agentId, contact_id: c.id })).body;

    // Between this dial's read of the number (yesterday's count) and its transaction, another
    // dial of the day commits first: the number counts today, 3 dials so far.
    const dialTransactions: string[] = [];
    const name = 'anotherDialFirst';
    db().middlewareStack.add(
      (next) => async (args) => {
        const items = (args.input as { TransactItems?: { Update?: { Key?: Record<string, unknown> } }[] }).TransactItems ?? [];
        if (items.some((i) => i.Update?.Key?.pk === numberKey.pk && i.Update?.Key?.sk === numberKey.sk)) {
          if (dialTransactions.length === 0) await setCount(today, 3);
          try {
            const out = await next(args);
            dialTransactions.push('committed');
            return out;
          } catch (err) {
            dialTransactions.push('refused');
            throw err;
          }
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      expect(await dispatchCall(t.tenantId, a.call_id)).toBe('dialled');
    } finally {
      db().middlewareStack.remove(name);
    }
    // Starting the day was a write of its own, so the dial's transaction only counted: one, committed.
    expect(dialTransactions).toEqual(['committed']);
    expect(await getPhoneNumber(t.tenantId, cw.number.id)).toMatchObject({ dials_day: today, dials_count: 4 });
    expect(await sandboxCallsFrom(cw.number.phone_e164)).toHaveLength(1);
  });
});

/** Every due item of a tenant (all shards). */
const dueItemsOf = async (tenantId: string) => {
  const out: Record<string, unknown>[] = [];
  for (let shard = 0; shard < DISPATCH_SHARDS; shard++) {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'tenant_id = :t',
        ExpressionAttributeValues: { ':pk': dispatchKeys.duePartition(shard), ':t': tenantId },
        ConsistentRead: true,
      }),
    );
    out.push(...(page.Items ?? []));
  }
  return out;
};

describe('POST /v1/calls without a caller number', () => {
  it('every number at its daily cap: deferred (no_caller_number) until the caps reset at 00:00 UTC, then dialled from that number', async () => {
    setClock(ALLOWED_AT);
    const t = await newTenant('Caps');
    const cw = await callWorld(client(stack, t.token), t.tenantId);
    expect((await cw.api('PATCH', `/v1/phone-numbers/${cw.number.id}`, { body: { daily_dial_cap: 1 } })).status).toBe(200);
    // Today's one dial, for real.
    const first = (await queue(cw.api, { agent_id: cw.agentId, contact_id: (await newContact(cw.api)).id })).body;
    expect(await dispatchCall(t.tenantId, first.call_id)).toBe('dialled');

    const c = await newContact(cw.api);
    const res = await queue(cw.api, { agent_id: cw.agentId, contact_id: c.id });
    expect(res.status).toBe(200);
    const reset = '2026-11-19T00:00:00.000Z';
    expect(res.body).toMatchObject({ state: 'scheduled', disposition: null, scheduled_for: reset, compliance: { outcome: 'defer', next_permitted_at: reset } });
    expect(res.body.compliance.reasons).toEqual([expect.objectContaining({ code: 'no_caller_number', until: reset })]);
    // No number can place it yet: the attempt and the call detail say so with nulls.
    expect(res.body.telephony).toEqual({
      provider: null,
      telephony_account_id: null,
      phone_number_id: null,
      from_e164: null,
      provider_call_sid: null,
      mock: false,
    });
    const detail = await cw.api('GET', `/v1/calls/${res.body.call_id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.telephony).toMatchObject({ from_e164: null, telephony_account_id: null, to_e164: c.phone_e164 });
    expect(await dispatchCall(t.tenantId, res.body.call_id)).toBe('not_due');

    setClock(Date.parse(reset) + 1_000);
    expect(await runScheduler(now())).toBeGreaterThanOrEqual(1);
    expect(await dispatchCall(t.tenantId, res.body.call_id)).toBe('dialled');
    expect(await storedCall(t.tenantId, res.body.call_id)).toMatchObject({
      state: 'dialing',
      from_e164: cw.number.phone_e164,
      phone_number_id: cw.number.id,
      telephony_account_id: cw.accountId,
    });
    expect((await sandboxCallsFrom(cw.number.phone_e164)).filter((x) => x.to === c.phone_e164)).toHaveLength(1);
    expect(typesOf(await eventsOfCall(t.tenantId, res.body.call_id))).toEqual(['call.queued', 'call.scheduled', 'call.dialing']);
  });

  it('a tenant with no number that could ever place the call: blocked (blocked_by_policy, no_caller_number), never dialled', async () => {
    setClock(ALLOWED_AT);
    const t = await newTenant('Sms only');
    const sw = await callWorld(client(stack, t.token), t.tenantId, { capabilities: ['sms'] });
    const c = await newContact(sw.api);
    const res = await queue(sw.api, { agent_id: sw.agentId, contact_id: c.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      state: 'disposed',
      disposition: 'blocked_by_policy',
      scheduled_for: null,
      compliance: { outcome: 'block', disposition: 'blocked_by_policy' },
    });
    expect(res.body.compliance.reasons.map((r: { code: string }) => r.code)).toEqual(['no_caller_number']);
    expect(res.body.telephony.from_e164).toBeNull();
    expect(await storedCall(t.tenantId, res.body.call_id)).toMatchObject({
      state: 'disposed',
      disposition_set_by: 'compliance',
      end_reason: 'compliance_blocked',
    });
    expect(typesOf(await eventsOfCall(t.tenantId, res.body.call_id))).toEqual(['call.queued', 'call.blocked', 'call.completed']);
    expect((await sw.api('GET', `/v1/calls/${res.body.call_id}`)).status).toBe(200);
    expect(await dueItemsOf(t.tenantId)).toEqual([]);
  });
});

describe('the dispatch message goes alongside the commit', () => {
  /** GetItem reads of one call's item while `run` runs. */
  const callReads = async <T>(tenantId: string, callId: string, run: () => Promise<T>): Promise<{ out: T; reads: number }> => {
    const key = callKeys.call(tenantId, callId);
    let reads = 0;
    db().middlewareStack.add(
      (next, context) => async (args) => {
        const k = (args.input as { Key?: { pk?: string; sk?: string } }).Key;
        if (/^Get(Item)?Command$/.test(context.commandName ?? '') && k?.pk === key.pk && k.sk === key.sk) reads++;
        return next(args);
      },
      { step: 'initialize', name: 'countCallReads' },
    );
    try {
      return { out: await run(), reads };
    } finally {
      db().middlewareStack.remove('countCallReads');
    }
  };

  it('a message that outruns its commit finds the call once it lands, and dials it once', async () => {
    setClock(ALLOWED_AT);
    const c = await newContact(w.api);
    // The queue transaction is held back a moment; the dispatch message, sent beside it, is caught as it leaves.
    let sent: (callId: string) => void = () => {};
    const message = new Promise<string>((resolve) => (sent = resolve));
    sqs().middlewareStack.add(
      (next) => async (args) => {
        const parsed = JSON.parse((args.input as { MessageBody?: string }).MessageBody ?? '{}') as { call_id?: string; alongside_commit?: boolean };
        if (parsed.alongside_commit) sent(parsed.call_id!);
        return next(args);
      },
      { step: 'initialize', name: 'catchDispatch' },
    );
    db().middlewareStack.add(
      (next, context) => async (args) => {
        if (/^TransactWrite(Items)?Command$/.test(context.commandName ?? '')) await new Promise((r) => setTimeout(r, 300));
        return next(args);
      },
      { step: 'initialize', name: 'holdCommit' },
    );
    try {
      const post = queue(w.api, body(c.id));
      const callId = await message;
      expect(await storedCall(w.tenantId, callId)).toBeUndefined(); // not committed yet
      const { out, reads } = await callReads(w.tenantId, callId, () => dispatchCall(w.tenantId, callId, { alongsideCommit: true }));
      expect(out).toBe('dialled');
      expect(reads).toBeGreaterThanOrEqual(2); // missed it first, then found it
      const res = await post;
      expect(res.status).toBe(200);
      expect(res.body.call_id).toBe(callId);
    } finally {
      sqs().middlewareStack.remove('catchDispatch');
      db().middlewareStack.remove('holdCommit');
    }
    expect((await sandboxCallsFrom(w.number.phone_e164)).filter((x) => x.to === c.phone_e164)).toHaveLength(1);
  });

  it('a call that never commits: looked for until COMMIT_GRACE_MS after its id was made, then not_found; a message sent after a commit reads once', async () => {
    const young = `cal_${ulid(Date.now() - COMMIT_GRACE_MS + 300)}`;
    const waited = await callReads(w.tenantId, young, () => dispatchCall(w.tenantId, young, { alongsideCommit: true }));
    expect(waited.out).toBe('not_found');
    expect(waited.reads).toBeGreaterThanOrEqual(2);
    const old = `cal_${ulid(Date.now() - COMMIT_GRACE_MS - 1_000)}`;
    expect(await callReads(w.tenantId, old, () => dispatchCall(w.tenantId, old, { alongsideCommit: true }))).toEqual({ out: 'not_found', reads: 1 });
    const fresh = `cal_${ulid()}`;
    expect(await callReads(w.tenantId, fresh, () => dispatchCall(w.tenantId, fresh))).toEqual({ out: 'not_found', reads: 1 });
  });
});

describe('POST /v1/calls is one transaction', () => {
  it('when the transaction fails (its call lands on an existing item) nothing is written: no call, attempt, event, due item or idempotency result; the same key then succeeds afresh', async () => {
    setClock(ALLOWED_AT);
    const t = await newTenant('One transaction');
    const ow = await callWorld(client(stack, t.token), t.tenantId);
    const c = await newContact(ow.api);
    const existing = (await queue(ow.api, { agent_id: ow.agentId, contact_id: c.id })).body;
    const before = { call: await storedCall(t.tenantId, existing.call_id), events: await listTenantEvents(t.tenantId), due: await dueItemsOf(t.tenantId) };

    // The next queue transaction for this tenant puts its call onto the existing call's key: its condition fails.
    const onto = callKeys.call(t.tenantId, existing.call_id);
    let forced = 0;
    db().middlewareStack.add(
      (next) => async (args) => {
        const items = (args.input as { TransactItems?: { Put?: { Item?: Record<string, unknown> } }[] }).TransactItems;
        const put = items?.find((i) => i.Put?.Item?.type === 'call' && i.Put.Item.tenant_id === t.tenantId);
        if (put) {
          Object.assign(put.Put!.Item!, onto);
          forced++;
        }
        return next(args);
      },
      { step: 'initialize', priority: 'high', name: 'forceQueueConflict' },
    );
    let failed: Awaited<ReturnType<typeof ow.api>>;
    try {
      // The forced failure is a 500 by design: the request's transaction was refused whole.
      failed = await ow.api('POST', '/v1/calls', {
        body: { agent_id: ow.agentId, contact_id: c.id, context: { attempt: 'two' } },
        headers: { 'idempotency-key': 'one-transaction' },
        allowServerError: true,
      });
    } finally {
      db().middlewareStack.remove('forceQueueConflict');
    }
    expect(forced).toBe(1);
    expect(failed.status).toBe(500);
    expect(await storedCall(t.tenantId, existing.call_id)).toEqual(before.call);
    expect(await attemptsOf(t.tenantId, c.id)).toHaveLength(1);
    expect(await listTenantEvents(t.tenantId)).toEqual(before.events);
    expect(await dueItemsOf(t.tenantId)).toEqual(before.due);
    const listed = await ow.api('GET', '/v1/calls');
    expect(listed.body.data.map((x: { id: string }) => x.id)).toEqual([existing.call_id]);
    expect((await ow.api('GET', '/v1/calls?idempotency_key=one-transaction')).body.data).toEqual([]);

    // The key holds no result: the same request is a first request, not a replay.
    const retry = await queue(ow.api, { agent_id: ow.agentId, contact_id: c.id, context: { attempt: 'two' } }, 'one-transaction');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replay')).toBeNull();
    expect(await attemptsOf(t.tenantId, c.id)).toHaveLength(2);
    expect(typesOf(await eventsOfCall(t.tenantId, retry.body.call_id))).toEqual(['call.queued', 'call.scheduled']);
  });
});

describe('GET /v1/calls and cancel on calls queued through POST /v1/calls', () => {
  it('?disposition= lists only calls with that disposition; ?idempotency_key= finds the call a POST created', async () => {
    setClock(ALLOWED_AT);
    const t = await newTenant('List calls');
    const lw = await callWorld(client(stack, t.token), t.tenantId);
    const suppressed = await newContact(lw.api);
    expect((await lw.api('POST', '/v1/suppressions', { body: { phone_e164: suppressed.phone_e164, reason: 'opt_out' } })).status).toBe(201);
    const blocked = (await queue(lw.api, { agent_id: lw.agentId, contact_id: suppressed.id })).body;
    const allowed = (await queue(lw.api, { agent_id: lw.agentId, contact_id: (await newContact(lw.api)).id }, 'order-1234')).body;
    expect(blocked.disposition).toBe('dnc_hit');

    const dnc = await lw.api('GET', '/v1/calls?disposition=dnc_hit');
    expect(dnc.status).toBe(200);
    expect(dnc.body.data.map((x: { id: string; disposition: string }) => [x.id, x.disposition])).toEqual([[blocked.call_id, 'dnc_hit']]);
    expect((await lw.api('GET', '/v1/calls?disposition=busy')).body.data).toEqual([]);

    const found = await lw.api('GET', '/v1/calls?idempotency_key=order-1234');
    expect(found.status).toBe(200);
    expect(found.body.data).toHaveLength(1);
    expect(found.body.data[0]).toMatchObject({ id: allowed.call_id, attempt_id: allowed.id, contact_id: allowed.contact_id, state: 'scheduled' });
    expect((await lw.api('GET', '/v1/calls?idempotency_key=order-9999')).body.data).toEqual([]);
  });

  it('cancel: a really queued (deferred) call is disposed at the platform clock, once; a really dialled one is 409', async () => {
    setClock(QUIET_AT);
    const t = await newTenant('Cancel calls');
    const cw = await callWorld(client(stack, t.token), t.tenantId);
    const deferred = (await queue(cw.api, { agent_id: cw.agentId, contact_id: (await newContact(cw.api)).id })).body;
    expect(deferred.compliance.outcome).toBe('defer');
    const cancelled = await cw.api('POST', `/v1/calls/${deferred.call_id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ state: 'disposed', end_reason: 'cancelled', disposition: null });
    // Stamped with the platform's clock (now()), not the wall clock.
    expect(Math.abs(Date.parse(cancelled.body.ended_at) - Date.parse(QUIET_AT))).toBeLessThan(60_000);
    expect((await cw.api('POST', `/v1/calls/${deferred.call_id}/cancel`)).status).toBe(200);
    expect(typesOf(await eventsOfCall(t.tenantId, deferred.call_id))).toEqual(['call.queued', 'call.scheduled', 'call.completed']);
    expect(await dueItemsOf(t.tenantId)).toEqual([]); // its due item went with it
    expect(await dispatchCall(t.tenantId, deferred.call_id)).toBe('not_scheduled');

    setClock(ALLOWED_AT);
    const live = (await queue(cw.api, { agent_id: cw.agentId, contact_id: (await newContact(cw.api)).id })).body;
    expect(await dispatchCall(t.tenantId, live.call_id)).toBe('dialled');
    const refused = await cw.api('POST', `/v1/calls/${live.call_id}/cancel`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('call_not_cancellable');
    expect((await storedCall(t.tenantId, live.call_id)).state).toBe('dialing');
    expect(typesOf(await eventsOfCall(t.tenantId, live.call_id))).toEqual(['call.queued', 'call.scheduled', 'call.dialing']);
  });
});
