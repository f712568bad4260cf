/**
 * Text messages (see docs/decisions/messaging.md) over the local stack with its workers (the sandbox carrier plays
 * delivery and posts signed status callbacks): POST /v1/messages through the one compliance
 * path, blocked sends that never reach the carrier, delivery status, the inbound messaging
 * webhook (STOP/HELP/START), the list and its filters, tenant isolation.
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { advanceClockForTests, now } from '../../shared/clock.js';
import { db, tableName } from '../../shared/db/client.js';
import { newId } from '../../shared/ids.js';
import { runMessageSendReconciler } from '../../shared/messages/send-reconciler.js';
import { parseDncFile } from '../../shared/policy/dnc/snapshot-file.js';
import { replaceDncSnapshot } from '../../shared/repositories/dnc-snapshots.js';
import { messagePut, sendWatchPut } from '../../shared/repositories/messages.js';
import { listTenantEvents } from '../../shared/repositories/outbox-events.js';
import { getActiveSuppression } from '../../shared/repositories/suppressions.js';
import { repliesOf } from '../../shared/sandbox/inbound-message.js';
import { runDispatchTick } from '../../shared/tick/dispatch-tick.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { locs } from './agent-fixtures.js';
import { INFO_SUBJECT, QUIET_AT, queue, resetClock, setClock } from './call-fixtures.js';
import { client, newTenant } from './client.js';
import { eventsOfMessage, newMessageSid, readTwiml, sandboxMessagesFrom, type TextingTenant, textingTenant } from './message-fixtures.js';
import { mockAccount, randomNumber } from './telephony-fixtures.js';

const stack = useTestStack();

let w: TextingTenant;
beforeAll(async () => {
  w = await textingTenant(stack);
});
afterEach(() => resetClock());

const getMessage = async (id: string) => (await w.api('GET', `/v1/messages/${id}`)).body;
const waitStatus = (id: string, status: string) =>
  waitFor(async () => ((await getMessage(id)).status === status ? getMessage(id) : undefined), { timeoutMs: 15_000, message: `message ${id} ${status}` });

describe('POST /v1/messages', () => {
  it('sends: 201 queued with every MessageSummary field, handed to the carrier once, then sent → delivered by its signed callbacks, each with its event', async () => {
    const c = await w.contact();
    const before = (await sandboxMessagesFrom(w.number.phone_e164)).length;
    const res = await w.send({ contact_id: c.id, compliance_profile_id: w.info.id, body: 'Your appointment is tomorrow at 10:00. Reply STOP to opt out.' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^msg_/),
      direction: 'outbound',
      phone_number_id: w.number.id,
      contact_id: c.id,
      to_e164: c.phone_e164,
      from_e164: w.number.phone_e164,
      template_id: null,
      body_rendered: 'Your appointment is tomorrow at 10:00. Reply STOP to opt out.',
      status: 'queued',
      provider_sid: null,
      origin_call_id: null,
      inbound_intent: null,
      segments: 1,
      compliance_profile_id: w.info.id,
      compliance: expect.objectContaining({ outcome: 'allow', call_purpose: 'informational' }),
      failure: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const done = await waitStatus(res.body.id, 'delivered');
    expect(done.provider_sid).toMatch(/^SM[0-9a-f]{32}$/);
    const sandbox = (await sandboxMessagesFrom(w.number.phone_e164)).filter((m) => m.sid === done.provider_sid);
    expect(sandbox).toHaveLength(1);
    expect((await sandboxMessagesFrom(w.number.phone_e164)).length).toBe(before + 1);
    expect((await eventsOfMessage(w.tenantId, res.body.id)).map((e) => e.type)).toEqual(['message.sent', 'message.delivered']);
  });

  it('replays the same Idempotency-Key without sending again; requires the key', async () => {
    const c = await w.contact();
    const key = randomUUID();
    const body = { contact_id: c.id, compliance_profile_id: w.info.id, body: 'Once only' };
    const first = await w.send(body, key);
    const again = await w.send(body, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replay')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect((await w.api('GET', `/v1/messages?contact_id=${c.id}`)).body.data).toHaveLength(1);
    const missing = await w.api('POST', '/v1/messages', { body });
    expect(missing.status).toBe(422);
    expect(locs(missing.body)).toEqual(['header.idempotency-key:missing']);
  });

  it('a template renders with its variables; bad requests are 422 at their loc and write nothing', async () => {
    const c = await w.contact();
    const ok = await w.send({
      contact_id: c.id,
      compliance_profile_id: w.info.id,
      template_id: 'smt_callback_confirmation',
      variables: { business_name: 'Acme', when: 'tomorrow at 10' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({
      template_id: 'smt_callback_confirmation',
      body_rendered: 'Acme: we will call you back tomorrow at 10. Reply STOP to opt out.',
    });
    const cases: [Record<string, unknown>, string[]][] = [
      [{ contact_id: c.id, compliance_profile_id: w.info.id }, ['body.body:body_or_template']],
      [{ contact_id: c.id, compliance_profile_id: w.info.id, body: 'x', template_id: 'smt_booking_link' }, ['body.body:body_or_template']],
      [
        { contact_id: c.id, compliance_profile_id: w.info.id, template_id: 'smt_booking_link', variables: { business_name: 'Acme' } },
        ['body.variables.link:missing'],
      ],
      [{ contact_id: 'con_01JZZZZZZZZZZZZZZZZZZZZZZZ', compliance_profile_id: w.info.id, body: 'x' }, ['body.contact_id:value_error']],
      [{ contact_id: c.id, compliance_profile_id: 'cpr_01JZZZZZZZZZZZZZZZZZZZZZZZ', body: 'x' }, ['body.compliance_profile_id:value_error']],
      [{ contact_id: c.id, compliance_profile_id: w.info.id, body: 'x', to: '+12125550100' }, ['body.to:unrecognized_keys']],
    ];
    for (const [body, expected] of cases) {
      const res = await w.send(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(locs(res.body).map((l) => l.replace(/:extra_forbidden$/, ':unrecognized_keys'))).toEqual(expected);
    }
    expect((await w.api('GET', `/v1/messages?contact_id=${c.id}`)).body.data).toHaveLength(1);
  });

  it('counts segments as carriers do: 161 GSM-7 characters are 2, an emoji makes 70 UCS-2 units the limit', async () => {
    const c = await w.contact();
    expect((await w.send({ contact_id: c.id, compliance_profile_id: w.info.id, body: 'a'.repeat(161) })).body.segments).toBe(2);
    expect((await w.send({ contact_id: c.id, compliance_profile_id: w.info.id, body: `${'a'.repeat(68)}😀` })).body.segments).toBe(1);
    expect((await w.send({ contact_id: c.id, compliance_profile_id: w.info.id, body: `${'a'.repeat(69)}😀` })).body.segments).toBe(2);
  });
});

describe('a blocked send never reaches the carrier: stored failed with its reason and message.failed', () => {
  const expectBlocked = async (res: { status: number; body: any }, code: string) => {
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'failed', provider_sid: null, failure: expect.objectContaining({ code }) });
    expect((await eventsOfMessage(w.tenantId, res.body.id)).map((e) => e.type)).toEqual(['message.failed']);
  };

  it('suppressed → dnc_hit; consent scope channels without sms → blocked_by_policy; a number without sms or without a2p_campaign_ref', async () => {
    const before = (await sandboxMessagesFrom(w.number.phone_e164)).length;
    const suppressed = await w.contact();
    await w.api('POST', '/v1/suppressions', { body: { phone_e164: suppressed.phone_e164, reason: 'opt_out' } });
    await expectBlocked(await w.send({ contact_id: suppressed.id, compliance_profile_id: w.info.id, body: 'Hi' }), 'dnc_hit');

    const voiceOnly = await w.contact(undefined, { purposes: [INFO_SUBJECT], channels: ['voice'] });
    const res = await w.send({ contact_id: voiceOnly.id, compliance_profile_id: w.info.id, body: 'Hi' });
    await expectBlocked(res, 'blocked_by_policy');
    expect(res.body.compliance.reasons.map((r: { code: string }) => r.code)).toEqual(['consent_scope_mismatch']);
    const smsScope = await w.contact(undefined, { purposes: [INFO_SUBJECT], channels: ['voice', 'sms'] });
    expect((await w.send({ contact_id: smsScope.id, compliance_profile_id: w.info.id, body: 'Hi' })).body.status).toBe('queued');
    expect((await sandboxMessagesFrom(w.number.phone_e164)).length).toBe(before + 1); // only the allowed one

    // Another tenant whose number can text but has no 10DLC campaign.
    const noSms = await newTenant('Voice only');
    const api = client(stack, noSms.token);
    const acct = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'mock' } })).body.id;
    await api('POST', `/v1/telephony-accounts/${acct}/verify`);
    const voiceNumber = (await api('POST', '/v1/phone-numbers', { body: { phone_e164: randomNumber('212'), telephony_account_id: acct } })).body;
    const smsNoA2p = (await api('POST', '/v1/phone-numbers', { body: { phone_e164: randomNumber('212'), telephony_account_id: acct, capabilities: ['sms'] } }))
      .body;
    const profile = (
      await api('POST', '/v1/compliance-profiles', { body: { name: 'R', call_purpose: 'informational', subject: INFO_SUBJECT, seller_name: 'Acme' } })
    ).body;
    const cc = (
      await api('POST', '/v1/contacts', {
        body: {
          phone_e164: randomNumber('212'),
          consent: {
            consent_basis: 'pewc',
            captured_at: '2026-10-01T12:00:00Z',
            scope: { purposes: [INFO_SUBJECT] },
            evidence: { artifact_type: 'web_form', artifact_ref: 'x', content_hash: 'a'.repeat(64) },
          },
        },
      })
    ).body;
    const sent = await api('POST', '/v1/messages', {
      body: { contact_id: cc.id, compliance_profile_id: profile.id, body: 'Hi' },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(sent.body).toMatchObject({ status: 'failed', phone_number_id: smsNoA2p.id, failure: { code: 'a2p_registration_missing' } });
    expect(await sandboxMessagesFrom(smsNoA2p.phone_e164)).toHaveLength(0);
    expect(await sandboxMessagesFrom(voiceNumber.phone_e164)).toHaveLength(0);
  });

  it('no_sms_number: a tenant with only voice numbers stores the text failed with message.failed, and nothing reaches the carrier', async () => {
    const t = await newTenant('Voice numbers only');
    const api = client(stack, t.token);
    const acct = await mockAccount(api, { ftc_san_refs: [{ san: 'SAN-V', area_codes: ['212'] }] });
    const voiceNumber = (
      await api('POST', '/v1/phone-numbers', { body: { phone_e164: randomNumber('212'), telephony_account_id: acct, capabilities: ['voice'] } })
    ).body;
    const profile = (
      await api('POST', '/v1/compliance-profiles', { body: { name: 'R', call_purpose: 'informational', subject: INFO_SUBJECT, seller_name: 'Acme' } })
    ).body;
    const cc = (
      await api('POST', '/v1/contacts', {
        body: {
          phone_e164: randomNumber('212'),
          consent: {
            consent_basis: 'pewc',
            captured_at: '2026-10-01T12:00:00Z',
            scope: { purposes: [INFO_SUBJECT] },
            evidence: { artifact_type: 'web_form', artifact_ref: 'x', content_hash: 'a'.repeat(64) },
          },
        },
      })
    ).body;
    const sent = await api('POST', '/v1/messages', {
      body: { contact_id: cc.id, compliance_profile_id: profile.id, body: 'Hi' },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({
      status: 'failed',
      phone_number_id: null,
      from_e164: '',
      provider_sid: null,
      failure: { code: 'no_sms_number', next_permitted_at: null, carrier_error_code: null },
    });
    expect((await api('GET', `/v1/messages/${sent.body.id}`)).body).toMatchObject({ status: 'failed', failure: { code: 'no_sms_number' } });
    expect((await eventsOfMessage(t.tenantId, sent.body.id)).map((e) => e.type)).toEqual(['message.failed']);
    expect(await sandboxMessagesFrom(voiceNumber.phone_e164)).toHaveLength(0);
    expect(await sendWatchesOf(sent.body.id)).toEqual([]);
  });

  it('a marketing text in quiet hours is not held: failed, deferred, with next_permitted_at; an informational one goes', async () => {
    await replaceDncSnapshot('212', '2026-11-01', parseDncFile('2125550199', '212'), new Date());
    const c = await w.contact();
    setClock(QUIET_AT); // 22:00 in New York
    const before = (await sandboxMessagesFrom(w.number.phone_e164)).length;
    const res = await w.send({ contact_id: c.id, compliance_profile_id: w.marketing.id, body: 'Our offer' });
    await expectBlocked(res, 'deferred');
    expect(res.body.failure.next_permitted_at).toBe('2026-11-18T13:00:00.000Z');
    expect(res.body.compliance).toMatchObject({ outcome: 'defer', reasons: [expect.objectContaining({ code: 'quiet_hours' })] });
    expect((await w.send({ contact_id: c.id, compliance_profile_id: w.info.id, body: 'Reminder' })).body.status).toBe('queued');
    expect((await sandboxMessagesFrom(w.number.phone_e164)).length).toBe(before + 1);
  });

  it('555-0160: the carrier fails it (30007): failed carrier_error, message.failed', async () => {
    const c = await w.contact('+12125550160');
    const res = await w.send({ contact_id: c.id, compliance_profile_id: w.info.id, body: 'Hi' });
    expect(res.body.status).toBe('queued');
    const failed = await waitStatus(res.body.id, 'failed');
    expect(failed.failure).toEqual({ code: 'carrier_error', message: expect.stringContaining('30007'), next_permitted_at: null, carrier_error_code: '30007' });
    expect((await eventsOfMessage(w.tenantId, res.body.id)).map((e) => e.type)).toEqual(['message.failed']);
  });
});

/** The carrier's Messages create for `from`, as the platform's fetch makes it: `then` decides what the platform hears. */
function interceptSends(from: string, then: (real: () => Promise<Response>) => Promise<Response>) {
  const original = globalThis.fetch;
  const seen: string[] = [];
  globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const form = typeof init?.body === 'string' ? new URLSearchParams(init.body) : undefined;
    if (/\/sandbox\/twilio\/2010-04-01\/Accounts\/[^/]+\/Messages\.json$/.test(url) && form?.get('From') === from) {
      seen.push(form.get('To')!);
      return then(() => original(input, init));
    }
    return original(input, init);
  }) as typeof fetch;
  return {
    seen,
    restore: () => {
      globalThis.fetch = original;
    },
  };
}

const sendWatchesOf = async (messageId: string) =>
  (
    await db().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#t = :t AND message_id = :m',
        ExpressionAttributeNames: { '#t': 'type' },
        ExpressionAttributeValues: { ':t': 'message_send_watch', ':m': messageId },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

describe('never lost, at most once: only a carrier refusal fails a text; an unknown outcome is reconciled, never re-sent', () => {
  it('the carrier took the text but the SID write failed: left queued (not failed), its callbacks link the SID and deliver it; sent once', async () => {
    const c = await w.contact();
    const before = (await sandboxMessagesFrom(w.number.phone_e164)).length;
    let forced = 0;
    db().middlewareStack.add(
      (next) => async (args) => {
        const items = (args.input as { TransactItems?: { Update?: { ExpressionAttributeValues?: Record<string, unknown> } }[] }).TransactItems;
        const v = items?.[0]?.Update?.ExpressionAttributeValues;
        if (forced === 0 && v && v[':to'] === 'queued' && v[':from'] === 'queued' && typeof v[':sid'] === 'string' && (v[':sid'] as string).startsWith('SM')) {
          forced++;
          throw Object.assign(new Error('Internal server error (forced)'), { name: 'InternalServerError' });
        }
        return next(args);
      },
      { step: 'initialize', priority: 'high', name: 'forceSidWriteFailure' },
    );
    let res: Awaited<ReturnType<typeof w.send>>;
    try {
      res = await w.send({ contact_id: c.id, compliance_profile_id: w.info.id, body: 'Your code is 1234' });
    } finally {
      db().middlewareStack.remove('forceSidWriteFailure');
    }
    expect(forced).toBe(1);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'queued', failure: null });
    const done = await waitStatus(res.body.id, 'delivered');
    expect(done).toMatchObject({ failure: null, provider_sid: expect.stringMatching(/^SM/) });
    expect((await sandboxMessagesFrom(w.number.phone_e164)).length).toBe(before + 1);
    expect((await eventsOfMessage(w.tenantId, res.body.id)).map((e) => e.type)).toEqual(['message.sent', 'message.delivered']);
    expect(await sendWatchesOf(res.body.id)).toEqual([]);
  });

  it('a carrier timeout after the carrier really took it: left queued, never re-sent, then delivered by its callbacks', async () => {
    const c = await w.contact();
    const before = (await sandboxMessagesFrom(w.number.phone_e164)).length;
    const tap = interceptSends(w.number.phone_e164, async (real) => {
      await real();
      throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    });
    let res: Awaited<ReturnType<typeof w.send>>;
    try {
      res = await w.send({ contact_id: c.id, compliance_profile_id: w.info.id, body: 'Timed out but sent' });
    } finally {
      tap.restore();
    }
    expect(tap.seen).toEqual([c.phone_e164]);
    expect(res.status).toBe(201);
    const done = await waitStatus(res.body.id, 'delivered');
    expect(done).toMatchObject({ failure: null, provider_sid: expect.stringMatching(/^SM/) });
    expect((await sandboxMessagesFrom(w.number.phone_e164)).length).toBe(before + 1);
    expect((await eventsOfMessage(w.tenantId, res.body.id)).map((e) => e.type)).toEqual(['message.sent', 'message.delivered']);
    expect(await sendWatchesOf(res.body.id)).toEqual([]);
  });

  it('a 5xx from the carrier: queued under its watch until the bound, then failed send_unknown with message.failed, never re-sent; a late delivered callback naming a SID corrects it', async () => {
    const c = await w.contact();
    const tap = interceptSends(
      w.number.phone_e164,
      async () =>
        new Response(JSON.stringify({ code: 20500, message: 'Internal Server Error' }), { status: 500, headers: { 'content-type': 'application/json' } }),
    );
    let res: Awaited<ReturnType<typeof w.send>>;
    try {
      res = await w.send({ contact_id: c.id, compliance_profile_id: w.info.id, body: 'Unknown fate' });
    } finally {
      tap.restore();
    }
    expect(tap.seen).toHaveLength(1);
    const id = res.body.id as string;
    expect(await getMessage(id)).toMatchObject({ status: 'queued', provider_sid: null, failure: null });
    expect(await sendWatchesOf(id)).toHaveLength(1);
    expect(await eventsOfMessage(w.tenantId, id)).toEqual([]);

    advanceClockForTests(60_000);
    await runMessageSendReconciler(now());
    expect((await getMessage(id)).status).toBe('queued');

    advanceClockForTests(61_000);
    await runMessageSendReconciler(now());
    const failed = await getMessage(id);
    expect(failed).toMatchObject({
      status: 'failed',
      provider_sid: null,
      failure: { code: 'send_unknown', next_permitted_at: null, carrier_error_code: null },
    });
    expect(await sendWatchesOf(id)).toEqual([]);
    await runMessageSendReconciler(now());
    expect((await eventsOfMessage(w.tenantId, id)).map((e) => e.type)).toEqual(['message.failed']);
    expect(tap.seen).toHaveLength(1); // never re-sent
    expect(await sandboxMessagesFrom(w.number.phone_e164).then((all) => all.filter((m) => m.to === c.phone_e164))).toEqual([]);

    // The carrier had it after all: its signed callback (found by ?message_id=) wins over our unknown, once.
    const sid = newMessageSid();
    const params = (status: string) => ({
      AccountSid: w.creds.account_sid,
      MessageSid: sid,
      SmsSid: sid,
      MessageStatus: status,
      SmsStatus: status,
      From: w.number.phone_e164,
      To: c.phone_e164,
    });
    const path = `/carrier/twilio/message-status?message_id=${id}`;
    for (const status of ['delivered', 'sent', 'failed', 'delivered']) expect((await w.carrier(path, params(status))).status).toBe(200);
    expect(await getMessage(id)).toMatchObject({ status: 'delivered', provider_sid: sid, failure: null });
    expect((await eventsOfMessage(w.tenantId, id)).map((e) => e.type)).toEqual(['message.failed', 'message.delivered']);
  });

  it('a crash before the carrier was asked (committed, never handed over) is failed send_unknown by the scheduler tick; a definite refusal fails at once', async () => {
    const c = await w.contact();
    // A message committed as the send path commits it, whose process died before the carrier call.
    const at = now().toISOString();
    const base = (await w.send({ contact_id: c.id, compliance_profile_id: w.info.id, body: 'template' })).body;
    const orphan = {
      ...base,
      id: newId('msg'),
      status: 'queued',
      provider_sid: null,
      tenant_id: w.tenantId,
      telephony_account_id: w.accountId,
      reply: null,
      send_watch_at: at,
      created_at: at,
      updated_at: at,
    };
    await db().send(new TransactWriteCommand({ TransactItems: [messagePut(orphan), sendWatchPut(orphan, at)] }));
    advanceClockForTests(121_000);
    expect((await runDispatchTick(now())).messagesUnknown).toBeGreaterThanOrEqual(0);
    const settled = await waitFor(async () => ((await getMessage(orphan.id)).status === 'failed' ? getMessage(orphan.id) : undefined), {
      timeoutMs: 5_000,
      message: 'orphan failed',
    });
    expect(settled.failure.code).toBe('send_unknown');
    expect((await eventsOfMessage(w.tenantId, orphan.id)).map((e) => e.type)).toEqual(['message.failed']);
    resetClock();
    // The carrier's own failure replaces our unknown (its SID linked, no second message.failed); then it is final.
    const sid = newMessageSid();
    const params = (status: string, extra: Record<string, string> = {}) => ({
      AccountSid: w.creds.account_sid,
      MessageSid: sid,
      SmsSid: sid,
      MessageStatus: status,
      SmsStatus: status,
      From: w.number.phone_e164,
      To: c.phone_e164,
      ...extra,
    });
    const path = `/carrier/twilio/message-status?message_id=${orphan.id}`;
    expect((await w.carrier(path, params('undelivered', { ErrorCode: '30005' }))).status).toBe(200);
    expect(await getMessage(orphan.id)).toMatchObject({ status: 'failed', provider_sid: sid, failure: { code: 'carrier_error', carrier_error_code: '30005' } });
    expect((await w.carrier(path, params('delivered'))).status).toBe(200);
    expect((await getMessage(orphan.id)).status).toBe('failed');
    expect((await eventsOfMessage(w.tenantId, orphan.id)).map((e) => e.type)).toEqual(['message.failed']);

    const tap = interceptSends(
      w.number.phone_e164,
      async () =>
        new Response(JSON.stringify({ code: 21211, message: "The 'To' number is not a valid phone number." }), {
          status: 400,
          headers: { 'content-type': 'application/json' },
        }),
    );
    let res: Awaited<ReturnType<typeof w.send>>;
    try {
      res = await w.send({ contact_id: c.id, compliance_profile_id: w.info.id, body: 'Refused' });
    } finally {
      tap.restore();
    }
    expect(await getMessage(res.body.id)).toMatchObject({
      status: 'failed',
      provider_sid: null,
      failure: { code: 'carrier_refused', carrier_error_code: '21211' },
    });
    expect(await sendWatchesOf(res.body.id)).toEqual([]);
    expect((await eventsOfMessage(w.tenantId, res.body.id)).map((e) => e.type)).toEqual(['message.failed']);
  });
});

describe('status callbacks: signed, monotonic, idempotent', () => {
  it('replayed and reordered callbacks never move a message backwards or emit twice; a bad signature is 403 and changes nothing', async () => {
    const c = await w.contact();
    const res = await w.send({ contact_id: c.id, compliance_profile_id: w.info.id, body: 'Hi' });
    const done = await waitStatus(res.body.id, 'delivered');
    const params = (status: string) => ({
      AccountSid: w.creds.account_sid,
      MessageSid: done.provider_sid,
      SmsSid: done.provider_sid,
      MessageStatus: status,
      SmsStatus: status,
      From: w.number.phone_e164,
      To: c.phone_e164,
    });
    const path = `/carrier/twilio/message-status?message_id=${res.body.id}`;
    for (const status of ['sent', 'delivered', 'queued', 'failed', 'delivered']) expect((await w.carrier(path, params(status))).status).toBe(200);
    expect(await getMessage(res.body.id)).toMatchObject({ status: 'delivered', failure: null });
    expect((await eventsOfMessage(w.tenantId, res.body.id)).map((e) => e.type)).toEqual(['message.sent', 'message.delivered']);

    // Reordered: a queued message (as the send path leaves it) hears delivered before sent; sent then changes nothing.
    const at = new Date().toISOString();
    const sid = newMessageSid();
    const queued = {
      ...res.body,
      id: newId('msg'),
      status: 'queued',
      provider_sid: sid,
      tenant_id: w.tenantId,
      telephony_account_id: w.accountId,
      reply: null,
      created_at: at,
      updated_at: at,
    };
    await db().send(new TransactWriteCommand({ TransactItems: [messagePut(queued)] }));
    const p2 = `/carrier/twilio/message-status?message_id=${queued.id}`;
    for (const status of ['delivered', 'sent', 'delivered', 'sent'])
      expect((await w.carrier(p2, { ...params(status), MessageSid: sid, SmsSid: sid })).status).toBe(200);
    expect((await getMessage(queued.id)).status).toBe('delivered');
    expect((await eventsOfMessage(w.tenantId, queued.id)).map((e) => e.type)).toEqual(['message.delivered']);
    // Another MessageSid naming the same message is not its callback.
    await w.carrier(p2, { ...params('failed'), MessageSid: newMessageSid() });
    expect((await getMessage(queued.id)).status).toBe('delivered');

    const forged = await w.carrier(path, params('failed'), 'bm90IGEgc2lnbmF0dXJl');
    expect(forged.status).toBe(403);
    expect((await getMessage(res.body.id)).status).toBe('delivered');
  });
});

describe('inbound texts', () => {
  it.each(['stop', ' Stop ', 'STOPALL', 'OPTOUT', 'please stop texting me'])(
    '%j suppresses the sender (source sms) with one confirmation; the next POST /v1/calls to the contact is dnc_hit',
    async (body) => {
      const c = await w.contact();
      const text = await w.textIn(c.phone_e164, body);
      expect(text.status).toBe(200);
      expect(text.replies).toEqual([expect.stringMatching(/^Texts: You are unsubscribed/)]);
      const [message] = (await w.api('GET', `/v1/messages?contact_id=${c.id}&direction=inbound`)).body.data;
      expect(message).toMatchObject({
        direction: 'inbound',
        status: 'received',
        inbound_intent: 'stop',
        contact_id: c.id,
        from_e164: c.phone_e164,
        to_e164: w.number.phone_e164,
        provider_sid: text.sid,
        body_rendered: body,
        phone_number_id: w.number.id,
      });
      expect(await getActiveSuppression(w.tenantId, c.phone_e164)).toMatchObject({ source: 'sms', source_id: message.id, reason: 'opt_out' });
      expect((await w.api('GET', `/v1/contacts/${c.id}`)).body.do_not_call).toBe(true);
      const opted = (await listTenantEvents(w.tenantId)).filter((e) => e.type === 'contact.opted_out' && e.data.message_id === message.id);
      expect(opted).toHaveLength(1);
      expect(opted[0]!.data).toMatchObject({ source: 'sms', contact_id: c.id, phone_e164: c.phone_e164 });
      expect((await eventsOfMessage(w.tenantId, message.id)).map((e) => e.type).sort()).toEqual(['contact.opted_out', 'message.received']);

      // The very next call to the contact is disposed dnc_hit.
      const call = await queue(w.api, { agent_id: w.agentId, contact_id: c.id });
      expect(call.body).toMatchObject({ state: 'disposed', disposition: 'dnc_hit' });

      // The carrier replays the webhook: nothing stored again, no second confirmation.
      const replay = await w.textIn(c.phone_e164, body, text.sid);
      expect(replay.replies).toEqual([]);
      expect((await w.api('GET', `/v1/messages?contact_id=${c.id}&direction=inbound`)).body.data).toHaveLength(1);
    },
  );

  it.each(['stopwatch for sale', 'thanks!'])('%j is other and suppresses nothing', async (body) => {
    const c = await w.contact();
    const text = await w.textIn(c.phone_e164, body);
    expect(text.replies).toEqual([]);
    expect((await w.api('GET', `/v1/messages?contact_id=${c.id}`)).body.data[0]).toMatchObject({ inbound_intent: 'other' });
    expect(await getActiveSuppression(w.tenantId, c.phone_e164)).toBeUndefined();
  });

  it("HELP answers with the tenant's help text; a sender no contact holds is stored with contact_id null", async () => {
    const stranger = randomNumber('646');
    const text = await w.textIn(stranger, 'HELP');
    expect(text.replies).toEqual([expect.stringMatching(/^Texts: .*Reply STOP to opt out/)]);
    const [m] = (await w.api('GET', '/v1/messages?inbound_intent=help&direction=inbound')).body.data;
    expect(m).toMatchObject({ from_e164: stranger, contact_id: null, inbound_intent: 'help' });
  });

  it('START lifts only a suppression an SMS STOP made (recorded on the entry); an API-made one stays', async () => {
    const c = await w.contact();
    await w.textIn(c.phone_e164, 'STOP');
    const start = await w.textIn(c.phone_e164, 'START');
    expect(start.replies).toEqual([expect.stringMatching(/resubscribed/)]);
    expect(await getActiveSuppression(w.tenantId, c.phone_e164)).toBeUndefined();
    const startMsg = (await w.api('GET', `/v1/messages?contact_id=${c.id}`)).body.data.find((m: { provider_sid: string }) => m.provider_sid === start.sid);
    const entries = (await w.api('GET', `/v1/suppressions?phone_e164=${encodeURIComponent(c.phone_e164)}`)).body.data;
    expect(entries).toEqual([expect.objectContaining({ status: 'lifted', source: 'sms', lifted_by: startMsg.id })]);
    expect((await w.api('GET', `/v1/contacts/${c.id}`)).body.do_not_call).toBe(false);

    const d = await w.contact();
    await w.api('POST', '/v1/suppressions', { body: { phone_e164: d.phone_e164, reason: 'opt_out' } });
    const refused = await w.textIn(d.phone_e164, 'UNSTOP');
    expect(refused.replies).toEqual([]);
    expect(await getActiveSuppression(w.tenantId, d.phone_e164)).toMatchObject({ source: 'api' });
  });

  it('a bad signature is 403 and writes nothing; a number no tenant holds gets an empty answer', async () => {
    const c = await w.contact();
    const forged = await w.textIn(c.phone_e164, 'STOP', undefined, 'bm90IGEgc2lnbmF0dXJl');
    expect(forged.status).toBe(403);
    expect((await w.api('GET', `/v1/messages?contact_id=${c.id}`)).body.data).toEqual([]);
    expect(await getActiveSuppression(w.tenantId, c.phone_e164)).toBeUndefined();

    // Signed by the account, written to a number no tenant holds: an empty answer, nothing stored or suppressed.
    const sid = newMessageSid();
    const unknownTo = await w.carrier('/carrier/twilio/message', {
      AccountSid: w.creds.account_sid,
      MessageSid: sid,
      SmsSid: sid,
      From: c.phone_e164,
      To: randomNumber('212'),
      Body: 'STOP',
      NumMedia: '0',
      SmsStatus: 'received',
    });
    expect(unknownTo.status).toBe(200);
    expect(repliesOf(unknownTo.text)).toEqual([]);
    expect(readTwiml(unknownTo.text)).toEqual([]);
    expect((await w.api('GET', `/v1/messages?contact_id=${c.id}`)).body.data).toEqual([]);
    expect((await w.api('GET', '/v1/messages?direction=inbound&limit=100')).body.data.filter((m: { provider_sid: string }) => m.provider_sid === sid)).toEqual(
      [],
    );
    expect(await getActiveSuppression(w.tenantId, c.phone_e164)).toBeUndefined();
  });

  it('a number of the tenant that may not text (no sms capability) stores the text and honours a STOP, but answers nothing', async () => {
    const voiceOnly = (
      await w.api('POST', '/v1/phone-numbers', { body: { phone_e164: randomNumber('212'), telephony_account_id: w.accountId, capabilities: ['voice'] } })
    ).body;
    const c = await w.contact();
    const sid = newMessageSid();
    const res = await w.carrier('/carrier/twilio/message', {
      AccountSid: w.creds.account_sid,
      MessageSid: sid,
      SmsSid: sid,
      From: c.phone_e164,
      To: voiceOnly.phone_e164,
      Body: 'STOP',
      NumMedia: '0',
      SmsStatus: 'received',
    });
    expect(res.status).toBe(200);
    expect(repliesOf(res.text)).toEqual([]);
    const [m] = (await w.api('GET', `/v1/messages?contact_id=${c.id}`)).body.data;
    expect(m).toMatchObject({
      direction: 'inbound',
      status: 'received',
      inbound_intent: 'stop',
      phone_number_id: voiceOnly.id,
      to_e164: voiceOnly.phone_e164,
      provider_sid: sid,
    });
    expect(await getActiveSuppression(w.tenantId, c.phone_e164)).toMatchObject({ source: 'sms', source_id: m.id, reason: 'opt_out' });
    expect((await w.api('GET', `/v1/contacts/${c.id}`)).body.do_not_call).toBe(true);
    expect(await sandboxMessagesFrom(voiceOnly.phone_e164)).toHaveLength(0);
  });
});

describe('the voice runtime sends through the same path', () => {
  it("send_sms during a call texts the caller's contact once, origin_call_id set, from the call's number; a resent batch sends nothing again; bad arguments are 422", async () => {
    const c = await w.contact();
    const { readTwiml } = await import('./message-fixtures.js');
    const sid = `CA${randomUUID().replace(/-/g, '')}`;
    const voice = await w.carrier('/carrier/twilio/voice', {
      AccountSid: w.creds.account_sid,
      CallSid: sid,
      From: c.phone_e164,
      To: w.number.phone_e164,
      CallStatus: 'ringing',
      Direction: 'inbound',
    });
    const [connect] = readTwiml(voice.text);
    const token = (connect as { parameters: Record<string, string> }).parameters.token!;
    const callId = (await w.api('GET', '/v1/calls?direction=inbound')).body.data.find(
      (x: { telephony: { provider_call_sid: string } }) => x.telephony.provider_call_sid === sid,
    ).id;
    const runtime = client(stack, token);
    const batch = {
      events: [
        {
          id: `act-${sid}`,
          type: 'conversation_action',
          at: new Date().toISOString(),
          action_id: 'a1',
          kind: 'send_sms',
          arguments: { body: 'Here is the booking link: https://acme.test/b' },
        },
      ],
    };
    expect((await runtime('POST', `/runtime/v1/calls/${callId}/events`, { body: batch })).status).toBe(200);
    expect((await runtime('POST', `/runtime/v1/calls/${callId}/events`, { body: batch })).status).toBe(200);
    const sent = (await w.api('GET', `/v1/messages?origin_call_id=${callId}`)).body.data;
    expect(sent).toEqual([
      expect.objectContaining({
        direction: 'outbound',
        contact_id: c.id,
        to_e164: c.phone_e164,
        from_e164: w.number.phone_e164,
        origin_call_id: callId,
        compliance_profile_id: w.info.id,
        body_rendered: 'Here is the booking link: https://acme.test/b',
      }),
    ]);
    await waitStatus(sent[0].id, 'delivered');
    const bad = await runtime('POST', `/runtime/v1/calls/${callId}/events`, {
      body: { events: [{ id: `act2-${sid}`, type: 'conversation_action', at: new Date().toISOString(), action_id: 'a2', kind: 'send_sms', arguments: {} }] },
    });
    expect(bad.status).toBe(422);
    expect(locs(bad.body)).toEqual(['body.events.0.arguments.body:missing']);
  });

  it("send_sms is refused (422 tool_not_granted at the event's kind, nothing stored or sent) when the pinned version's tools do not include it", async () => {
    const sdr = (
      await w.api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', {
        body: { disclosure_config: { business_name: 'Acme Solar', opener: 'This call is from Acme Solar.' }, compliance_profile_id: w.info.id },
      })
    ).body;
    expect(sdr.tools).not.toContain('send_sms');
    expect((await w.api('POST', `/v1/agents/${sdr.id}/publish`)).status).toBe(201);
    const number = (
      await w.api('POST', '/v1/phone-numbers', {
        body: { phone_e164: randomNumber('212'), telephony_account_id: w.accountId, capabilities: ['voice', 'sms'], a2p_campaign_ref: 'CMP-TEXTS-1' },
      })
    ).body;
    await w.api('PATCH', `/v1/phone-numbers/${number.id}`, { body: { inbound_agent_id: sdr.id } });
    const c = await w.contact();
    const sid = `CA${randomUUID().replace(/-/g, '')}`;
    const voice = await w.carrier('/carrier/twilio/voice', {
      AccountSid: w.creds.account_sid,
      CallSid: sid,
      From: c.phone_e164,
      To: number.phone_e164,
      CallStatus: 'ringing',
      Direction: 'inbound',
    });
    const [connect] = readTwiml(voice.text);
    const token = (connect as { parameters: Record<string, string> }).parameters.token!;
    const callId = (await w.api('GET', '/v1/calls?direction=inbound')).body.data.find(
      (x: { telephony: { provider_call_sid: string } }) => x.telephony.provider_call_sid === sid,
    ).id;
    const runtime = client(stack, token);
    const batch = {
      events: [
        { id: `turn-${sid}`, type: 'turn', at: new Date().toISOString(), speaker: 'agent', text: 'Hello' },
        {
          id: `act-${sid}`,
          type: 'conversation_action',
          at: new Date().toISOString(),
          action_id: 'a1',
          kind: 'send_sms',
          arguments: { body: 'Here is the booking link' },
        },
      ],
    };
    const res = await runtime('POST', `/runtime/v1/calls/${callId}/events`, { body: batch });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual(['body.events.1.kind:tool_not_granted']);
    expect((await w.api('GET', `/v1/messages?origin_call_id=${callId}`)).body.data).toEqual([]);
    expect((await w.api('GET', `/v1/messages?contact_id=${c.id}`)).body.data).toEqual([]);
    expect(await sandboxMessagesFrom(number.phone_e164)).toHaveLength(0);
  });
});

describe('GET /v1/messages', () => {
  it('filters by contact_id, direction, inbound_intent, status (with .in), origin_call_id and created_at ranges; bad values are 422', async () => {
    const c = await w.contact();
    const out = await w.send({ contact_id: c.id, compliance_profile_id: w.info.id, body: 'Hi' });
    await w.textIn(c.phone_e164, 'thanks!');
    const list = (q: string) => w.api('GET', `/v1/messages?contact_id=${c.id}${q}`);
    expect((await list('')).body.data).toHaveLength(2);
    expect((await list('&direction=outbound')).body.data.map((m: { id: string }) => m.id)).toEqual([out.body.id]);
    expect((await list('&status=received')).body.data).toHaveLength(1);
    expect((await list('&status.in=received,queued,sent,delivered')).body.data).toHaveLength(2);
    expect((await list('&inbound_intent=other')).body.data).toHaveLength(1);
    expect((await list(`&created_at.gte=${encodeURIComponent(out.body.created_at)}`)).body.data).toHaveLength(2);
    expect((await list('&created_at.lt=2020-01-01T00:00:00Z')).body.data).toHaveLength(0);
    expect((await list('&origin_call_id=cal_none')).body.data).toHaveLength(0);
    const paged = await list('&limit=1');
    expect(paged.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    expect((await list(`&limit=1&cursor=${encodeURIComponent(paged.body.next_cursor)}`)).body).toMatchObject({ has_more: false });
    expect((await w.api('GET', '/v1/messages?status=bogus')).status).toBe(422);
    expect((await w.api('GET', '/v1/messages?body=hi')).status).toBe(422);
  });

  it("another tenant's message is a 404 and never listed", async () => {
    const c = await w.contact();
    const mine = await w.send({ contact_id: c.id, compliance_profile_id: w.info.id, body: 'Private' });
    const other = await newTenant('Other');
    const api = client(stack, other.token);
    expect((await api('GET', `/v1/messages/${mine.body.id}`)).status).toBe(404);
    expect((await api('GET', '/v1/messages')).body.data).toEqual([]);
    expect((await w.api('GET', '/v1/messages/msg_01JZZZZZZZZZZZZZZZZZZZZZZZ')).status).toBe(404);
  });
});

describe('GET /v1/telephony-accounts/{id}/inbound-messaging-webhook', () => {
  it('404 for a mock account, a managed account and another tenant; the URLs for a verified byo account', async () => {
    expect((await w.api('GET', `/v1/telephony-accounts/${w.accountId}/inbound-messaging-webhook`)).status).toBe(404);
    const managed = (await w.api('POST', '/v1/telephony-accounts', { body: { mode: 'managed', provider: 'mock' } })).body.id;
    await w.api('POST', `/v1/telephony-accounts/${managed}/verify`);
    expect((await w.api('GET', `/v1/telephony-accounts/${managed}`)).body).toMatchObject({ mode: 'managed', verification_status: 'mock_verified' });
    expect((await w.api('GET', `/v1/telephony-accounts/${managed}/inbound-messaging-webhook`)).status).toBe(404);
    const { newSandboxCredentials, putSandboxAccount } = await import('../../shared/sandbox/accounts.js');
    const creds = newSandboxCredentials();
    await putSandboxAccount(creds, { status: 'active' });
    const byo = (await w.api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: creds } })).body.id;
    expect((await w.api('GET', `/v1/telephony-accounts/${byo}/inbound-messaging-webhook`)).status).toBe(404);
    await w.api('POST', `/v1/telephony-accounts/${byo}/verify`);
    expect((await w.api('GET', `/v1/telephony-accounts/${byo}/inbound-messaging-webhook`)).body).toEqual({
      url: `${stack.baseUrl}/carrier/twilio/message`,
      status_callback_url: `${stack.baseUrl}/carrier/twilio/message-status`,
    });
    const other = client(stack, (await newTenant()).token);
    expect((await other('GET', `/v1/telephony-accounts/${byo}/inbound-messaging-webhook`)).status).toBe(404);
  });
});
