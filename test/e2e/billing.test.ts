/**
 * Usage and billing (see docs/decisions/billing.md) over the local stack: the ledger written by real call,
 * runtime and message paths (sandbox, managed and byo accounts), replays that meter
 * nothing, GET /v1/usage/summary, invoices at period close with the sandbox payment
 * provider's Stripe-signed webhooks, receptionist purchases, the mobile billing summary,
 * roles and tenant isolation.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import Stripe from 'stripe';
import twilio from 'twilio';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApiKey, createUser } from '../../shared/admin/bootstrap.js';
import { jobs } from '../../shared/admin/jobs.js';
import { INVOICE_CLOSE_GRACE_MS, invoiceTenant } from '../../shared/billing/invoice-job.js';
import { type PaymentProvider, sandboxPaymentProvider } from '../../shared/billing/payment-provider.js';
import { now } from '../../shared/clock.js';
import { db } from '../../shared/db/client.js';
import { METERS } from '../../shared/policy/billing/meters.js';
import { periodBounds, periodOf } from '../../shared/policy/billing/period.js';
import { planById } from '../../shared/policy/billing/plans.js';
import { ratePeriod } from '../../shared/policy/billing/rating.js';
import { cancelSubscription, getBillingAccount, setDailyBudget } from '../../shared/repositories/billing.js';
import { getCallBySid } from '../../shared/repositories/calls.js';
import { invoiceOfPeriod } from '../../shared/repositories/invoices.js';
import { getMessageRecord } from '../../shared/repositories/messages.js';
import { listTenantEvents } from '../../shared/repositories/outbox-events.js';
import { getTelephonyAccount } from '../../shared/repositories/telephony-accounts.js';
import { readPeriodTotals, recomputePeriodTotals, usageRowsOf } from '../../shared/repositories/usage-ledger.js';
import { newSandboxCredentials, putSandboxAccount } from '../../shared/sandbox/accounts.js';
import { readTwiml } from '../../shared/sandbox/twiml-reader.js';
import { carrierAccess } from '../../shared/telephony/carrier-for.js';
import { ledgerDisagreements, type SummaryBody, writeLedgerMonth } from '../bench/usage-ledger.js';
import { useTestStack } from '../support/stack.js';
import { resetClock, setClock } from './call-fixtures.js';
import { client, newTenant } from './client.js';
import { textingTenant } from './message-fixtures.js';
import { outboundTenant, putOutboundCall, signedPost } from './outbound-fixtures.js';
import { mockAccount, publishedAgent, randomNumber } from './telephony-fixtures.js';

const stack = useTestStack({ workers: false });
afterEach(() => {
  resetClock();
  vi.restoreAllMocks();
});

const newCallSid = () => `CA${randomBytes(16).toString('hex')}`;
const newMessageSid = () => `SM${randomBytes(16).toString('hex')}`;
let n = 0;
const eid = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++n}`;
const period = () => periodOf(now());

type Kind = 'mock' | 'managed' | 'byo';

/** A tenant with one telephony account of `kind`, a voice+sms number answered by an agent, and carrier posts signed as that account's carrier signs. */
async function voiceTenant(kind: Kind) {
  const t = await newTenant(`Billing ${kind}`);
  const api = client(stack, t.token);
  let accountId: string;
  if (kind === 'mock') accountId = await mockAccount(api, { mode: 'managed' });
  else {
    const body: Record<string, unknown> = { mode: kind, provider: 'twilio' };
    if (kind === 'byo') {
      const creds = newSandboxCredentials();
      await putSandboxAccount(creds, {});
      body.credentials = creds;
    }
    const created = await api('POST', '/v1/telephony-accounts', { body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    accountId = created.body.id;
    expect((await api('POST', `/v1/telephony-accounts/${accountId}/verify`)).body.verification_status).toBe('verified');
  }
  const numberRes = await api('POST', '/v1/phone-numbers', {
    body: { phone_e164: randomNumber('415'), telephony_account_id: accountId, capabilities: ['voice', 'sms'] },
  });
  expect(numberRes.status, JSON.stringify(numberRes.body)).toBe(200);
  const number = numberRes.body as { id: string; phone_e164: string };
  const agent = await publishedAgent(api);
  await api('PATCH', `/v1/phone-numbers/${number.id}`, { body: { inbound_agent_id: agent.agentId } });
  const access = await carrierAccess((await getTelephonyAccount(t.tenantId, accountId))!);
  const { accountSid, authToken } = access.credentials;
  const carrier = async (path: string, params: Record<string, string>) => {
    const res = await stack.fetch(path, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilio.getExpectedTwilioSignature(authToken, `${stack.baseUrl}${path}`, params),
      },
      body: new URLSearchParams(params).toString(),
    });
    return { status: res.status, text: await res.text() };
  };
  /** An inbound call answered by the agent: the runtime's poster and the carrier's final callback. */
  const call = async () => {
    const sid = newCallSid();
    const params = { AccountSid: accountSid, CallSid: sid, From: randomNumber('212'), To: number.phone_e164, CallStatus: 'ringing', Direction: 'inbound' };
    const [connect] = readTwiml((await carrier('/carrier/twilio/voice', params)).text);
    const token = (connect as { parameters: Record<string, string> }).parameters.token!;
    const record = (await getCallBySid(sid))!;
    const post = (body: unknown) => client(stack, token)('POST', `/runtime/v1/calls/${record.id}/events`, { body });
    const end = (seconds: number) => carrier('/carrier/twilio/status', { ...params, CallStatus: 'completed', CallDuration: String(seconds) });
    return { id: record.id, post, end };
  };
  const textIn = (body: string, sid = newMessageSid()) =>
    carrier('/carrier/twilio/message', {
      AccountSid: accountSid,
      MessageSid: sid,
      SmsSid: sid,
      From: randomNumber('212'),
      To: number.phone_e164,
      Body: body,
      NumMedia: '0',
      SmsStatus: 'received',
    });
  return { ...t, api, accountId, number, call, textIn };
}

const turn = (text: string) => ({ id: eid('turn'), type: 'turn', at: new Date().toISOString(), speaker: 'contact', text });
/** Two usage events in one batch: 42.5 + 1.25 s of audio, 310 characters, 1200 input tokens (300 of them cached: 900 prompt + 300 cached), 90 + 10 completion tokens, 0.75 GPU seconds. */
const usageBatch = () => ({
  events: [
    turn('Hello?'),
    {
      id: eid('use'),
      type: 'usage',
      at: new Date().toISOString(),
      audio_seconds: 42.5,
      characters_spoken: 310,
      llm_input_tokens: 1200,
      llm_cached_input_tokens: 300,
      llm_output_tokens: 90,
      gpu_seconds: 0.75,
    },
    { id: eid('use'), type: 'usage', at: new Date().toISOString(), audio_seconds: 1.25, llm_output_tokens: 10 },
  ],
});
const SPEECH = {
  stt_audio_seconds: '43.75',
  tts_characters: '310',
  llm_prompt_tokens: '900',
  llm_cached_prompt_tokens: '300',
  llm_completion_tokens: '100',
  gpu_seconds: '0.75',
};

const summaryOf = async (api: ReturnType<typeof client>, query = '') => {
  const res = await api('GET', `/v1/usage/summary${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    meters: { meter: string; quantity: string | null; billing: string; event_count: number | null; rated_amount_minor: number | null }[];
    billing_period_estimate: Record<string, unknown>;
    telephony_mode: string;
    rated_total_minor: number;
  };
};
const meter = (s: Awaited<ReturnType<typeof summaryOf>>, name: string) => s.meters.find((m) => m.meter === name)!;

describe('the usage ledger', () => {
  it('a sandbox call and text meter exact quantities, apart (excluded from the estimate); a replayed batch or final callback meters nothing more', async () => {
    const s = await voiceTenant('mock');
    const c = await s.call();
    const batch = usageBatch();
    expect((await c.post(batch)).status).toBe(200);
    expect((await c.post(batch)).status).toBe(200); // replayed: its events are stored already
    expect((await c.end(61)).status).toBe(200);
    expect((await c.end(61)).status).toBe(200); // the carrier retries its final callback
    const speech = await usageRowsOf(s.tenantId, period(), { kind: 'call_event', id: `${c.id}.${batch.events[1]!.id}` });
    expect(Object.fromEntries(speech.map((r) => [r.meter, r.quantity]))).toEqual(SPEECH);
    expect(speech.every((r) => r.settlement === 'sandbox')).toBe(true);
    const minutes = await usageRowsOf(s.tenantId, period(), { kind: 'call', id: c.id });
    expect(minutes.map((r) => [r.meter, r.quantity, r.settlement])).toEqual([['telephony_minutes', '2', 'sandbox']]); // 61 s → 2 minutes
    // A 161-character text is two segments.
    const text = await s.textIn('a'.repeat(161));
    expect(text.status).toBe(200);

    const totals = await readPeriodTotals(s.tenantId, period());
    expect(totals.sandbox).toEqual({
      telephony_minutes: { quantity: '2', event_count: 1 },
      stt_audio_seconds: { quantity: '43.75', event_count: 1 },
      tts_characters: { quantity: '310', event_count: 1 },
      llm_prompt_tokens: { quantity: '900', event_count: 1 },
      llm_cached_prompt_tokens: { quantity: '300', event_count: 1 },
      llm_completion_tokens: { quantity: '100', event_count: 1 },
      gpu_seconds: { quantity: '0.75', event_count: 1 },
      sms_segments: { quantity: '2', event_count: 1 },
    });
    expect(totals.billed).toEqual({});
    // The summary shows billed usage only: a managed tenant's minutes are 0, never null; the sandbox is named as excluded.
    const summary = await summaryOf(s.api);
    expect(summary.telephony_mode).toBe('managed');
    expect(meter(summary, 'telephony_minutes')).toMatchObject({ quantity: '0', event_count: 0 });
    expect(meter(summary, 'stt_audio_seconds')).toMatchObject({ quantity: null, event_count: null });
    expect(summary.billing_period_estimate).toMatchObject({
      excluded_usage_types: ['separately_settled_prepaid_test_calls'],
      total_amount_minor: 4900,
      usage_amount_minor: 0,
    });
  });

  it('cached input tokens are part of the input: metered once (prompt = input − cached); more cached than input is a 422 at the field', async () => {
    const s = await voiceTenant('managed');
    const c = await s.call();
    const at = new Date().toISOString();
    const over = await c.post({ events: [{ id: eid('use'), type: 'usage', at, llm_input_tokens: 100, llm_cached_input_tokens: 101 }] });
    expect(over.status).toBe(422);
    expect(over.body.detail[0].loc).toEqual(['body', 'events', 0, 'llm_cached_input_tokens']);
    const alone = await c.post({ events: [{ id: eid('use'), type: 'usage', at, llm_cached_input_tokens: 5 }] });
    expect(alone.status).toBe(422);
    expect(alone.body.detail[0].loc).toEqual(['body', 'events', 0, 'llm_cached_input_tokens']);
    const ok = { id: eid('use'), type: 'usage', at, llm_input_tokens: 1000, llm_cached_input_tokens: 1000 };
    expect((await c.post({ events: [ok] })).status).toBe(200);
    const rows = await usageRowsOf(s.tenantId, period(), { kind: 'call_event', id: `${c.id}.${ok.id}` });
    expect(Object.fromEntries(rows.map((r) => [r.meter, r.quantity]))).toEqual({ llm_cached_prompt_tokens: '1000' });
    const summary = await summaryOf(s.api);
    expect(meter(summary, 'llm_prompt_tokens').quantity).toBeNull();
    expect(meter(summary, 'llm_cached_prompt_tokens').quantity).toBe('1000');
  });

  it('seconds carry at most 3 decimal places: 1e-131 or 0.0001 is a 422 at the field (never a DynamoDB 500 on every resend); milliseconds meter exactly', async () => {
    const s = await voiceTenant('managed');
    const c = await s.call();
    const at = new Date().toISOString();
    for (const [field, value] of [
      ['audio_seconds', 1e-131],
      ['gpu_seconds', 1e-131],
      ['audio_seconds', 0.0001],
      ['gpu_seconds', 12.3456],
    ] as const) {
      const res = await c.post({ events: [{ id: eid('use'), type: 'usage', at, [field]: value }] });
      expect(res.status, `${field} ${value}`).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'events', 0, field]);
    }
    const ok = { id: eid('use'), type: 'usage', at, audio_seconds: 0.001, gpu_seconds: 3_599.999 };
    expect((await c.post({ events: [ok] })).status).toBe(200);
    const rows = await usageRowsOf(s.tenantId, period(), { kind: 'call_event', id: `${c.id}.${ok.id}` });
    expect(Object.fromEntries(rows.map((r) => [r.meter, r.quantity]))).toEqual({ stt_audio_seconds: '0.001', gpu_seconds: '3599.999' });
  });

  it('an inbound call’s final callback whose transaction meets a write conflict is re-read and retried: its minutes are metered, not lost to a 500', async () => {
    const s = await voiceTenant('managed');
    const c = await s.call();
    const client = db();
    const send = client.send.bind(client) as (command: unknown) => Promise<unknown>;
    let conflicts = 0;
    // The shared client's own conflict retries are spent: the transaction reaches the caller cancelled by TransactionConflict, three times.
    vi.spyOn(client, 'send').mockImplementation(((command: unknown) => {
      if (command instanceof TransactWriteCommand && conflicts < 3) {
        conflicts++;
        return Promise.reject(
          new TransactionCanceledException({
            message: 'Transaction cancelled',
            $metadata: {},
            CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
          }),
        );
      }
      return send(command);
    }) as typeof client.send);
    expect((await c.end(61)).status).toBe(200);
    expect(conflicts).toBe(3);
    vi.restoreAllMocks();
    expect((await usageRowsOf(s.tenantId, period(), { kind: 'call', id: c.id })).map((r) => [r.meter, r.quantity])).toEqual([['telephony_minutes', '2']]);
    expect(meter(await summaryOf(s.api), 'telephony_minutes')).toMatchObject({ quantity: '2', event_count: 1 });
  });

  it('an outbound call’s minutes are metered when its final callback stores the duration (a replay adds nothing); an outbound text’s segments when the carrier takes it', async () => {
    const o = await outboundTenant(stack);
    const to = randomNumber('212');
    const id = await putOutboundCall(o, { to });
    const sid = newCallSid();
    const base = { AccountSid: o.creds.account_sid, CallSid: sid, From: o.number.phone_e164, To: to, Direction: 'outbound-api' };
    expect((await signedPost(stack, o, `/carrier/twilio/status?call_id=${id}`, { ...base, CallStatus: 'in-progress' })).status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect((await signedPost(stack, o, `/carrier/twilio/status?call_id=${id}`, { ...base, CallStatus: 'completed', CallDuration: '95' })).status).toBe(200);
    expect((await usageRowsOf(o.tenantId, period(), { kind: 'call', id })).map((r) => [r.meter, r.quantity, r.settlement])).toEqual([
      ['telephony_minutes', '2', 'sandbox'],
    ]);

    const w = await textingTenant(stack, 'Outbound texts');
    const contact = await w.contact();
    const sent = await w.send({ contact_id: contact.id, compliance_profile_id: w.info.id, body: 'a'.repeat(161) });
    expect(sent.status).toBe(201);
    const message = sent.body as { id: string; from_e164: string; to_e164: string };
    const stored = (await getMessageRecord(w.tenantId, message.id))!;
    expect(await usageRowsOf(w.tenantId, period(), { kind: 'message', id: message.id })).toEqual([]); // queued: not taken yet
    const status = (s: string) =>
      w.carrier(`/carrier/twilio/message-status?message_id=${message.id}`, {
        AccountSid: w.creds.account_sid,
        MessageSid: stored.provider_sid!,
        From: message.from_e164,
        To: message.to_e164,
        MessageStatus: s,
      });
    for (const s of ['sent', 'sent', 'delivered']) expect((await status(s)).status).toBe(200);
    expect((await usageRowsOf(w.tenantId, period(), { kind: 'message', id: message.id })).map((r) => [r.meter, r.quantity])).toEqual([['sms_segments', '2']]);
  });

  it('a managed account’s call and texts are billed: every meter in registry order, rated on the plan', async () => {
    const s = await voiceTenant('managed');
    const c = await s.call();
    expect((await c.post(usageBatch())).status).toBe(200);
    expect((await c.end(125)).status).toBe(200); // 3 minutes
    expect((await s.textIn('Hi there')).status).toBe(200);
    const summary = await summaryOf(s.api);
    expect(summary.meters.map((m) => m.meter)).toEqual([...METERS]);
    expect(summary.telephony_mode).toBe('managed');
    expect(Object.fromEntries(summary.meters.map((m) => [m.meter, m.quantity]))).toEqual({
      telephony_minutes: '3',
      ...SPEECH,
      sms_segments: '1',
      lookup_requests: null,
    });
    expect(meter(summary, 'gpu_seconds')).toMatchObject({ billing: 'internal', rated_amount_minor: null });
    // All within the starter plan's included quantities: 0 overage, 0 rated; the estimate is the base price.
    expect(meter(summary, 'telephony_minutes')).toMatchObject({ billing: 'billed', event_count: 1, rated_amount_minor: 0 });
    expect(summary.billing_period_estimate).toMatchObject({
      base_price_minor: 4900,
      usage_amount_minor: 0,
      minutes_amount_minor: 0,
      total_amount_minor: 4900,
      excluded_usage_types: [],
      unpriced_meters: [],
    });
    expect(summary.billing_period_estimate.volume_tier).toMatchObject({
      current_minute_rate_minor: '12',
      next_tier_threshold_minor: 50000,
      next_tier_minute_rate_minor: '11',
    });
  });

  it('a byo account’s minutes and texts are its carrier’s to bill (no rows, carrier_billed) while the speech meters remain', async () => {
    const s = await voiceTenant('byo');
    const c = await s.call();
    expect((await c.post(usageBatch())).status).toBe(200);
    expect((await c.end(300)).status).toBe(200);
    expect((await s.textIn('Hello')).status).toBe(200);
    expect(await usageRowsOf(s.tenantId, period(), { kind: 'call', id: c.id })).toEqual([]);
    const summary = await summaryOf(s.api);
    expect(summary.telephony_mode).toBe('byo');
    expect(meter(summary, 'telephony_minutes')).toMatchObject({ billing: 'carrier_billed', quantity: null });
    expect(meter(summary, 'sms_segments')).toMatchObject({ billing: 'carrier_billed', quantity: null });
    expect(meter(summary, 'stt_audio_seconds')).toMatchObject({ billing: 'billed', quantity: '43.75' });
    expect(summary.billing_period_estimate).toMatchObject({ excluded_usage_types: ['byo_carrier_usage'], volume_tier: null });
  });

  it('the period query: another month has no rows; a malformed period is a 422 at ["query","period"]', async () => {
    const s = await voiceTenant('managed');
    const past = await summaryOf(s.api, '?period=2020-02');
    expect(past).toMatchObject({
      period: '2020-02',
      period_start: '2020-02-01T00:00:00.000Z',
      period_end: '2020-03-01T00:00:00.000Z',
      currency: 'usd',
      rated_total_minor: 0,
    });
    // A year below 100 keeps its own bounds (never 1950's).
    expect(await summaryOf(s.api, '?period=0050-01')).toMatchObject({
      period: '0050-01',
      period_start: '0050-01-01T00:00:00.000Z',
      period_end: '0050-02-01T00:00:00.000Z',
    });
    for (const bad of ['2026-13', '2026-1', 'November', '2026-11-01']) {
      const res = await s.api('GET', `/v1/usage/summary?period=${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', 'period']);
    }
  });
});

describe('the summary reads running totals', () => {
  it('a month of rows (exact decimals, every day, sandbox among them): the totals and the summary equal a full recomputation over every row', async () => {
    const s = await voiceTenant('managed');
    const month = '2026-10';
    await writeLedgerMonth(s.tenantId, month, 900, { metersPerSource: 3, concurrency: 6, seed: 7 });
    const full = await recomputePeriodTotals(s.tenantId, month);
    expect(full.rows).toBe(900);
    const totals = await readPeriodTotals(s.tenantId, month);
    expect(totals.billed).toEqual(full.billed);
    expect(totals.sandbox).toEqual(full.sandbox);
    expect(Object.keys(full.sandbox).length).toBeGreaterThan(0);
    // Decimals really are exact: the seconds meters carry three decimal places through hundreds of additions.
    expect(full.billed.stt_audio_seconds!.quantity).toMatch(/^\d+(\.\d{1,3})?$/);
    const summary = await summaryOf(s.api, `?period=${month}`);
    const { start, end } = periodBounds(month);
    const expected = ratePeriod({
      plan: planById('plan_starter')!,
      telephonyMode: 'managed',
      totals: full.billed,
      hadSandboxUsage: Object.keys(full.sandbox).length > 0,
      periodStart: start,
      periodEnd: end,
    });
    // Every field of the summary, not a selection.
    expect(summary).toEqual({
      period: month,
      period_start: start.toISOString(),
      period_end: end.toISOString(),
      telephony_mode: 'managed',
      currency: 'usd',
      rated_total_minor: expected.rated_total_minor,
      billing_period_estimate: expected.estimate,
      meters: expected.meters,
    });
    expect(summary.meters.every((m) => m.quantity !== null && m.event_count !== null)).toBe(true);
    // The bench's agreement check is this comparison, and it catches an event_count or a sandbox total off by one.
    expect(ledgerDisagreements({ rows: 900, full, totals, summary: summary as unknown as SummaryBody })).toEqual([]);
    const offByOne = { ...full.billed.tts_characters!, event_count: full.billed.tts_characters!.event_count + 1 };
    expect(
      ledgerDisagreements({
        rows: 900,
        full,
        totals: { ...totals, billed: { ...totals.billed, tts_characters: offByOne } },
        summary: summary as unknown as SummaryBody,
      }),
    ).toEqual([expect.stringMatching(/^billed totals/)]);
    const [sandboxMeter, sandboxTotal] = Object.entries(totals.sandbox)[0]!;
    expect(
      ledgerDisagreements({
        rows: 900,
        full,
        totals: { ...totals, sandbox: { ...totals.sandbox, [sandboxMeter]: { ...sandboxTotal!, event_count: sandboxTotal!.event_count + 1 } } },
        summary: summary as unknown as SummaryBody,
      }),
    ).toEqual([expect.stringMatching(/^sandbox totals/)]);
  });
});

describe('invoices', () => {
  // Tenants and calls are made at a fixed instant (the platform clock), never the wall clock, so no test flips at a month end.
  const MADE = '2026-03-10T12:00:00.000Z';
  beforeEach(() => setClock(MADE));
  const thisPeriod = periodOf(new Date(MADE));
  const periodEnd = periodBounds(thisPeriod).end;
  // The period closes once its grace has passed.
  const CLOSE = new Date(periodEnd.getTime() + INVOICE_CLOSE_GRACE_MS + 5 * 60_000).toISOString();
  // A tenant made at MADE is past its 14-day trial at the period end (2026-04-01).
  const inTrial = Date.parse(MADE) + 14 * 86_400_000 >= periodEnd.getTime();
  it('the fixed instant is outside the trial at the period end (the base price is charged)', () => expect(inTrial).toBe(false));

  it('the period-close job builds the invoice from the ledger (clock past the period end), the sandbox provider opens it and pays it by a Stripe-signed webhook', async () => {
    const s = await voiceTenant('managed');
    const c = await s.call();
    // 150 minutes: 50 beyond the 100 included, at 12 → 600.
    expect((await c.end(150 * 60)).status).toBe(200);
    setClock(CLOSE);
    const result = (await jobs.invoices!(now())) as { period: string; created: number; failed: number };
    expect(result).toMatchObject({ period: thisPeriod, failed: 0 });
    expect(result.created).toBeGreaterThanOrEqual(1);
    const list = await s.api('GET', '/v1/invoices');
    expect(list.body.data).toHaveLength(1);
    const invoice = list.body.data[0];
    expect(invoice).toMatchObject({
      period_start: periodBounds(thisPeriod).start.toISOString(),
      period_end: periodEnd.toISOString(),
      currency: 'usd',
      status: 'paid',
      external_ref: expect.stringMatching(/^in_sbx_/),
      hosted_invoice_url: expect.stringMatching(/^https:\/\/pay\.sandbox\.invalid\//),
    });
    // The base price is waived when the trial (14 days from today) covers the period's end.
    const base = inTrial ? 0 : 4900;
    expect(invoice.line_items).toEqual([
      {
        kind: 'base_price',
        meter: null,
        description: inTrial ? 'Starter plan (trial)' : 'Starter plan',
        quantity: '1',
        unit_amount_minor: String(base),
        amount_minor: base,
      },
      {
        kind: 'minutes',
        meter: 'telephony_minutes',
        description: expect.stringContaining('beyond 100 included'),
        quantity: '50',
        unit_amount_minor: null,
        amount_minor: 600,
      },
    ]);
    expect(invoice.total_minor).toBe(base + 600);
    expect((await s.api('GET', `/v1/invoices/${invoice.id}`)).body).toEqual(invoice);
    expect((await listTenantEvents(s.tenantId)).filter((e) => e.type.startsWith('invoice.')).map((e) => e.type)).toEqual([
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
    ]);
    // Running again changes nothing: one invoice per tenant and period.
    await jobs.invoices!(now());
    expect((await s.api('GET', '/v1/invoices')).body.data).toHaveLength(1);
    // Filters.
    expect((await s.api('GET', '/v1/invoices?status=open')).body.data).toHaveLength(0);
    expect((await s.api('GET', `/v1/invoices?status=paid&period_start=${periodBounds(thisPeriod).start.toISOString()}`)).body.data).toHaveLength(1);
  });

  it('a period closes only after its grace: a row dated just before midnight that commits after it is on the invoice', async () => {
    const s = await voiceTenant('managed');
    const secret = JSON.parse(process.env.APP_SECRETS_JSON!).payment_webhook_secret as string;
    const provider = sandboxPaymentProvider(secret, now);
    const c = await s.call();
    // 150 minutes, in the period.
    expect((await c.end(150 * 60)).status).toBe(200);
    // Just after midnight, within the grace: the job still closes the period before, and this one is not invoiced yet.
    const early = new Date(periodEnd.getTime() + INVOICE_CLOSE_GRACE_MS - 1);
    setClock(early.getTime());
    expect(((await jobs.invoices!(now())) as { period: string }).period).not.toBe(thisPeriod);
    expect(await invoiceTenant(s.tenantId, thisPeriod, provider, early)).toEqual({ created: false, opened: false, invoice_id: null });
    expect((await s.api('GET', '/v1/invoices')).body.data).toEqual([]);
    // A second call dated a second before midnight commits now (after midnight): still this period's.
    setClock(periodEnd.getTime() - 1000);
    const late = await s.call();
    expect((await late.end(60 * 60)).status).toBe(200);
    setClock(periodEnd.getTime() + INVOICE_CLOSE_GRACE_MS);
    expect(((await jobs.invoices!(now())) as { period: string }).period).toBe(thisPeriod);
    const invoice = (await s.api('GET', '/v1/invoices')).body.data[0];
    // 150 + 60 = 210 minutes: 110 beyond the 100 included, at 12.
    expect(invoice.line_items.find((l: { kind: string }) => l.kind === 'minutes')).toMatchObject({ quantity: '110', amount_minor: 1320 });
  });

  it('provider webhooks: a bad signature is 400 and writes nothing; a replayed event is a duplicate; stale and out-of-order events never move an invoice backwards', async () => {
    const s = await voiceTenant('managed');
    const secret = JSON.parse(process.env.APP_SECRETS_JSON!).payment_webhook_secret as string;
    // A provider that never pays: the invoice stays open for the webhooks below.
    const quiet = { ...sandboxPaymentProvider(secret, now), afterOpen: async () => {} };
    setClock(CLOSE);
    const { invoice_id } = await invoiceTenant(s.tenantId, thisPeriod, quiet, now());
    const open = (await s.api('GET', `/v1/invoices/${invoice_id}`)).body;
    expect(open.status).toBe('open');
    const stripe = new Stripe('sk_test_x');
    const post = async (type: string, opts: { id?: string; secret?: string; signature?: string } = {}) => {
      const payload = JSON.stringify({
        id: opts.id ?? `evt_${randomBytes(8).toString('hex')}`,
        object: 'event',
        type,
        created: 1,
        livemode: false,
        data: { object: { id: open.external_ref, object: 'invoice' } },
      });
      const signature = opts.signature ?? stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? secret });
      return client(stack)('POST', '/provider/stripe/webhooks', {
        raw: payload,
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      });
    };
    expect((await post('invoice.paid', { secret: 'whsec_wrong0123456789' })).status).toBe(400);
    expect((await post('invoice.paid', { signature: 't=1,v1=00' })).status).toBe(400);
    expect((await s.api('GET', `/v1/invoices/${invoice_id}`)).body.status).toBe('open');

    const id = `evt_${randomBytes(8).toString('hex')}`;
    expect((await post('invoice.marked_uncollectible', { id })).body).toEqual({ received: true, outcome: 'applied' });
    expect((await post('invoice.marked_uncollectible', { id })).body).toEqual({ received: true, outcome: 'duplicate' });
    // Uncollectible: the mobile summary asks for action.
    const mobile = (await s.api('GET', '/v1/mobile/billing/summary')).body;
    expect(mobile).toMatchObject({
      status: 'past_due',
      payment_attention: 'action_required',
      invoices: [{ status: 'uncollectible', total_minor: open.total_minor, currency: 'usd' }],
    });
    // Status and totals only: the invoice's id and period are not in the mobile summary.
    expect(Object.keys(mobile.invoices[0]).sort()).toEqual(['currency', 'status', 'total_minor']);
    // Paid later (allowed from uncollectible), then a stale finalized and a void change nothing.
    expect((await post('invoice.paid')).body.outcome).toBe('applied');
    expect((await post('invoice.finalized')).body.outcome).toBe('ignored');
    expect((await post('invoice.voided')).body.outcome).toBe('ignored');
    expect((await post('customer.created')).body.outcome).toBe('ignored');
    expect((await s.api('GET', `/v1/invoices/${invoice_id}`)).body.status).toBe('paid');
    expect((await s.api('GET', '/v1/mobile/billing/summary')).body).toMatchObject({ status: inTrial ? 'trialing' : 'active', payment_attention: 'none' });
  });

  it('a canceled subscription: the period the cancel falls in is still invoiced, the next is not; the mobile status reads canceled', async () => {
    const s = await voiceTenant('managed');
    await cancelSubscription(s.tenantId, now());
    expect((await s.api('GET', '/v1/mobile/billing/summary')).body).toMatchObject({ status: 'canceled' });
    setClock(CLOSE);
    const secret = JSON.parse(process.env.APP_SECRETS_JSON!).payment_webhook_secret as string;
    const provider = sandboxPaymentProvider(secret, now);
    expect(await invoiceTenant(s.tenantId, thisPeriod, provider, now())).toMatchObject({ created: true, opened: true });
    const next = periodOf(new Date(periodEnd.getTime() + 40 * 86_400_000));
    expect(await invoiceTenant(s.tenantId, next, provider, new Date(periodBounds(next).end.getTime() + INVOICE_CLOSE_GRACE_MS))).toEqual({
      created: false,
      opened: false,
      invoice_id: null,
    });
    expect((await s.api('GET', '/v1/invoices')).body.data).toHaveLength(1);
  });

  it('connections bought after a period ended are not billed on that period’s invoice (the count held at its end)', async () => {
    const t = await newTenant('Connections');
    const api = client(stack, t.token);
    const buy = async (n: number) =>
      expect(
        (await api('POST', '/v1/subscription/receptionist-purchases', { body: { receptionist_connections: n }, headers: { 'idempotency-key': randomUUID() } }))
          .status,
      ).toBe(201);
    await buy(2);
    // Bought after midnight, before the close: the next period's.
    setClock(periodEnd.getTime() + 10 * 60_000);
    await buy(3);
    setClock(CLOSE);
    const secret = JSON.parse(process.env.APP_SECRETS_JSON!).payment_webhook_secret as string;
    const { invoice_id } = await invoiceTenant(t.tenantId, thisPeriod, sandboxPaymentProvider(secret, now), now());
    const invoice = (await api('GET', `/v1/invoices/${invoice_id}`)).body;
    expect(invoice.line_items.find((l: { kind: string }) => l.kind === 'receptionist_connections')).toMatchObject({ quantity: '2', amount_minor: 3000 });
  });

  it('what the provider created before a failure is recorded on our side at once and handed back on the retry (customer on the account, draft on the invoice)', async () => {
    const s = await voiceTenant('managed');
    setClock(CLOSE);
    const seen: { customer_ref: string | null; provider_draft_ref: string | null | undefined }[] = [];
    const failing: PaymentProvider = {
      name: 'stripe',
      async finalizeInvoice(req) {
        seen.push({ customer_ref: req.customer_ref, provider_draft_ref: req.provider_draft_ref });
        await req.record!.customer('cus_recorded1');
        await req.record!.draft('in_recorded1');
        throw new Error('provider unavailable');
      },
      async afterOpen() {},
    };
    await expect(invoiceTenant(s.tenantId, thisPeriod, failing, now())).rejects.toThrow(/provider unavailable/);
    expect((await getBillingAccount(s.tenantId))!.customer_ref).toBe('cus_recorded1');
    const draft = (await invoiceOfPeriod(s.tenantId, thisPeriod))!;
    expect(draft).toMatchObject({ status: 'draft', provider_draft_ref: 'in_recorded1' });
    const retrying: PaymentProvider = {
      name: 'stripe',
      async finalizeInvoice(req) {
        seen.push({ customer_ref: req.customer_ref, provider_draft_ref: req.provider_draft_ref });
        return { provider: 'stripe', customer_ref: req.customer_ref!, external_ref: req.provider_draft_ref!, hosted_invoice_url: null };
      },
      async afterOpen() {},
    };
    expect(await invoiceTenant(s.tenantId, thisPeriod, retrying, now())).toMatchObject({ created: false, opened: true, invoice_id: draft.id });
    expect(seen).toEqual([
      { customer_ref: null, provider_draft_ref: null },
      { customer_ref: 'cus_recorded1', provider_draft_ref: 'in_recorded1' },
    ]);
    expect((await s.api('GET', `/v1/invoices/${draft.id}`)).body).toMatchObject({ status: 'open', external_ref: 'in_recorded1' });
  });

  it('another tenant’s invoice is a 404, like a missing one', async () => {
    const a = await voiceTenant('managed');
    const b = await newTenant('Other');
    setClock(CLOSE);
    const secret = JSON.parse(process.env.APP_SECRETS_JSON!).payment_webhook_secret as string;
    const { invoice_id } = await invoiceTenant(a.tenantId, thisPeriod, sandboxPaymentProvider(secret, now), now());
    expect((await a.api('GET', `/v1/invoices/${invoice_id}`)).status).toBe(200);
    expect((await client(stack, b.token)('GET', `/v1/invoices/${invoice_id}`)).status).toBe(404);
    expect((await client(stack, b.token)('GET', '/v1/invoices')).body.data).toEqual([]);
  });
});

describe('receptionist purchases and the mobile billing summary', () => {
  it('a canceled subscription takes no new receptionist purchase: 409 subscription_canceled, nothing bought', async () => {
    const t = await newTenant('Canceled');
    const api = client(stack, t.token);
    const buy = () =>
      api('POST', '/v1/subscription/receptionist-purchases', { body: { receptionist_connections: 2 }, headers: { 'idempotency-key': randomUUID() } });
    expect((await buy()).status).toBe(201);
    await cancelSubscription(t.tenantId, now());
    const refused = await buy();
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'subscription_canceled' });
    expect((await getBillingAccount(t.tenantId))!.receptionist_connections).toBe(2);
  });

  it('an admin buys connections (Idempotency-Key required, replayed once), priced on the plan; another tenant’s purchase is a 404; a member is 403', async () => {
    const t = await newTenant('Receptionist');
    const api = client(stack, t.token);
    const missing = await api('POST', '/v1/subscription/receptionist-purchases', { body: { receptionist_connections: 2 } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['header', 'idempotency-key']);
    const key = randomUUID();
    const first = await api('POST', '/v1/subscription/receptionist-purchases', { body: { receptionist_connections: 2 }, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    // Starter: 1 included connection, 1500 a month each.
    expect(first.body).toEqual({
      id: expect.stringMatching(/^rcp_/),
      status: 'confirmed',
      receptionist_connections: 2,
      total_inbound_connections: 3,
      amount_due_minor: 3000,
      recurring_connections_minor: 3000,
      currency: 'usd',
    });
    const again = await api('POST', '/v1/subscription/receptionist-purchases', { body: { receptionist_connections: 2 }, headers: { 'idempotency-key': key } });
    expect(again.headers.get('idempotent-replay')).toBe('true');
    expect(again.body).toEqual(first.body);
    const second = await api('POST', '/v1/subscription/receptionist-purchases', {
      body: { receptionist_connections: 1 },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(second.body).toMatchObject({ receptionist_connections: 1, total_inbound_connections: 4, amount_due_minor: 1500, recurring_connections_minor: 4500 });
    expect((await api('GET', `/v1/subscription/receptionist-purchases/${first.body.id}`)).body).toEqual(first.body);
    const bad = await api('POST', '/v1/subscription/receptionist-purchases', {
      body: { receptionist_connections: 0 },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'receptionist_connections']);

    const other = await newTenant('Other');
    expect((await client(stack, other.token)('GET', `/v1/subscription/receptionist-purchases/${first.body.id}`)).status).toBe(404);
    const member = await createApiKey({ tenantId: t.tenantId, name: 'member', role: 'member' });
    const asMember = client(stack, member.api_key.secret);
    expect(
      (
        await asMember('POST', '/v1/subscription/receptionist-purchases', {
          body: { receptionist_connections: 1 },
          headers: { 'idempotency-key': randomUUID() },
        })
      ).status,
    ).toBe(403);
  });

  it('a purchase whose account changes under every attempt is a 409 purchase_contended (nothing bought), not a 500', async () => {
    const t = await newTenant('Contended');
    const api = client(stack, t.token);
    const dbClient = db();
    const send = dbClient.send.bind(dbClient) as (command: unknown) => Promise<unknown>;
    let attempts = 0;
    vi.spyOn(dbClient, 'send').mockImplementation(((command: unknown) => {
      // Every purchase transaction finds the count changed (another purchase won each time).
      if (command instanceof TransactWriteCommand && JSON.stringify(command.input).includes('receptionist_purchase')) {
        attempts++;
        return Promise.reject(
          new TransactionCanceledException({
            message: 'Transaction cancelled',
            $metadata: {},
            CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }],
          }),
        );
      }
      return send(command);
    }) as typeof dbClient.send);
    const res = await api('POST', '/v1/subscription/receptionist-purchases', {
      body: { receptionist_connections: 1 },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('purchase_contended');
    expect(attempts).toBe(8);
    vi.restoreAllMocks();
    expect((await api('GET', '/v1/mobile/billing/summary')).status).toBe(200);
  });

  it('the mobile summary: admin and manager read it, a member is 403; a daily budget reports today’s spend from the ledger; no provider data', async () => {
    const s = await voiceTenant('managed');
    await createUser({ tenantId: s.tenantId, email: `m${randomUUID()}@acme.test`, role: 'manager' });
    const manager = await createApiKey({ tenantId: s.tenantId, name: 'manager', role: 'manager' });
    const member = await createApiKey({ tenantId: s.tenantId, name: 'member', role: 'member' });
    expect((await client(stack, member.api_key.secret)('GET', '/v1/mobile/billing/summary')).status).toBe(403);
    const before = await client(stack, manager.api_key.secret)('GET', '/v1/mobile/billing/summary');
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      plan_label: 'Starter',
      status: 'trialing',
      payment_attention: 'none',
      budget: null,
      invoices: [],
      generated_at: expect.any(String),
    });

    await setDailyBudget(s.tenantId, 1000, now());
    const c = await s.call();
    // 160 minutes today: 60 beyond the included 100, at 12 → 720.
    expect((await c.end(160 * 60)).status).toBe(200);
    const after = (await s.api('GET', '/v1/mobile/billing/summary')).body;
    expect(after.budget).toMatchObject({ period: 'daily', limit_minor: 1000, spent_minor: 720, remaining_minor: 280, currency: 'usd' });
    expect(JSON.stringify(after)).not.toMatch(/cus_|in_sbx|pay\.sandbox|card|payment_method/);
  });
});
