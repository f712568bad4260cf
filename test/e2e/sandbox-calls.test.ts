/**
 * The sandbox carrier's outbound calls and messages, end to end: the Twilio adapter places
 * calls and sends SMS against the local sandbox, the sandbox-timeline worker plays them,
 * and a tiny HTTP receiver here records the signed callbacks and serves TwiML. Every
 * callback's X-Twilio-Signature is checked with Twilio's own validator.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as createCall } from '../../functions/sandbox/create-call.js';
import { buildApiGatewayEvent } from '../../infra/local/apigw-event.js';
import { createLambdaContext } from '../../infra/local/lambda-context.js';
import { newId } from '../../shared/ids.js';
import { newSandboxCredentials, putSandboxAccount } from '../../shared/sandbox/accounts.js';
import { playCallStep } from '../../shared/sandbox/call-player.js';
import { getSandboxCall } from '../../shared/sandbox/calls.js';
import { callTokenKey } from '../../shared/telephony/call-token-key.js';
import { mintStreamToken } from '../../shared/telephony/call-tokens.js';
import { CarrierRefused, CarrierUnavailable, type TelephonyProvider } from '../../shared/telephony/provider.js';
import { twilioProvider } from '../../shared/telephony/twilio.js';
import { formParams, verifyTwilioSignature } from '../../shared/telephony/twilio-signature.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { client } from './client.js';
import { randomNumber } from './telephony-fixtures.js';

// Fast timelines for this file (read when a call is placed; the stack runs in this process).
const FAST_STEP_MS = '25';
process.env.SANDBOX_STEP_MS = FAST_STEP_MS;

const stack = useTestStack();

interface Received {
  path: string;
  params: Record<string, string>;
  signatureValid: boolean;
}

/** Records every request; answers TwiML on /twiml/*, 204 elsewhere. */
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
const creds = newSandboxCredentials();
let carrier: TelephonyProvider;
let from: string;

const TWIML: Record<string, string> = {
  '/twiml/stream':
    '<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="wss://runtime.invalid/stream"><Parameter name="token" value="tok_abc"/></Stream></Connect></Response>',
  '/twiml/voicemail':
    '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Hi, this is Acme Solar calling about your quote, please call us back</Say><Hangup/></Response>',
};

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const url = `${receiverUrl}${req.url}`;
      const params = formParams(body) as Record<string, string>;
      const path = new URL(url).pathname;
      received.push({
        path,
        params,
        signatureValid: verifyTwilioSignature({ authToken: creds.auth_token, signature: req.headers['x-twilio-signature'] as string | undefined, url, params }),
      });
      const twiml = TWIML[path];
      res.writeHead(twiml ? 200 : 204, twiml ? { 'content-type': 'text/xml' } : {});
      res.end(twiml ?? '');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  await putSandboxAccount(creds);
  carrier = twilioProvider({ accountSid: creds.account_sid, authToken: creds.auth_token }, `${stack.baseUrl}/sandbox/twilio`);
  from = randomNumber('415');
  await carrier.buyNumber(from, { voiceUrl: `${receiverUrl}/inbound`, statusCallbackUrl: `${receiverUrl}/inbound-status` });
});

afterAll(async () => {
  delete process.env.SANDBOX_STEP_MS;
  await new Promise((r) => receiver?.close(r));
});

const statusesOf = (sid: string) => received.filter((r) => r.path === '/status' && r.params.CallSid === sid);
const callbacksFor = (sid: string) => statusesOf(sid).map((r) => r.params.CallStatus);
const FINAL = ['completed', 'busy', 'no-answer', 'failed', 'canceled'];

/** Waits for the call's final status callback; returns every status callback it produced. */
async function finished(sid: string) {
  await waitFor(() => statusesOf(sid).some((r) => FINAL.includes(r.params.CallStatus!)), { timeoutMs: 15_000, message: `final callback of ${sid}` });
  return statusesOf(sid);
}

const place = (to: string, over: Partial<Parameters<TelephonyProvider['placeCall']>[0]> = {}) =>
  carrier.placeCall({ to, from, twimlUrl: `${receiverUrl}/twiml/stream`, statusCallbackUrl: `${receiverUrl}/status`, ...over });

const basic = (c: { account_sid: string; auth_token: string }) => `Basic ${Buffer.from(`${c.account_sid}:${c.auth_token}`).toString('base64')}`;
/** The sandbox's Twilio routes through the contract-checking client (Basic auth is the test's header). */
const sandbox = client(stack);
const sandboxPost = (path: string, form: Record<string, string>, auth = basic(creds)) =>
  sandbox('POST', `/sandbox/twilio/2010-04-01/Accounts/${creds.account_sid}/${path}`, { form, headers: { authorization: auth } });

describe('sandbox calls placed through the Twilio adapter', () => {
  it('an answered number (555-0100): initiated, ringing, in-progress, completed — signed, sequenced, with the TwiML fetched and its Stream recorded', async () => {
    const to = randomNumber('212').slice(0, -7) + '5550100';
    const placed = await place(to);
    const { sid } = placed;
    expect(sid).toMatch(/^CA[0-9a-f]{32}$/);
    const callbacks = await finished(sid);
    expect(callbacks.map((c) => c.params.CallStatus)).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
    expect(callbacks.every((c) => c.signatureValid)).toBe(true);
    expect(callbacks.map((c) => c.params.SequenceNumber)).toEqual(['0', '1', '2', '3']);
    for (const c of callbacks) {
      expect(c.params).toMatchObject({
        CallSid: sid,
        AccountSid: creds.account_sid,
        From: from,
        To: to,
        Direction: 'outbound-api',
        CallbackSource: 'call-progress-events',
        ApiVersion: '2010-04-01',
      });
      expect(c.params.Timestamp).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0000$/);
      expect(c.params.AnsweredBy).toBeUndefined(); // no machine detection asked for
    }
    expect(callbacks[3]!.params).toMatchObject({ CallDuration: '95', SipResponseCode: '200' });

    const fetches = received.filter((r) => r.path === '/twiml/stream' && r.params.CallSid === sid);
    expect(fetches).toHaveLength(1);
    expect(fetches[0]).toMatchObject({ signatureValid: true, params: { CallStatus: 'in-progress', Direction: 'outbound-api', To: to, From: from } });
    const stored = await getSandboxCall(sid);
    // Twilio's date_created has seconds: the adapter reads no stamp unless told the carrier answers one.
    expect(placed.stampedAt).toBeUndefined();
    expect(stored).toMatchObject({
      status: 'completed',
      scenario: 'goal',
      stream: { url: 'wss://runtime.invalid/stream', parameters: { token: 'tok_abc' } },
      twiml_path: [{ verb: 'Connect', stream_url: 'wss://runtime.invalid/stream', parameters: ['token'] }],
    });

    const res = await sandbox('GET', `/sandbox/twilio/2010-04-01/Accounts/${creds.account_sid}/Calls/${sid}.json`, {
      headers: { authorization: basic(creds) },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sid, status: 'completed', direction: 'outbound-api', duration: '95', to, from, answered_by: null });
    // The adapter reads it back the way the reconciler asks about a call whose end it never heard.
    expect(await carrier.fetchCall(sid)).toEqual({ status: 'completed', answeredBy: null, durationSeconds: 95 });
  });

  it.each([
    ['5550120', 'busy', ['initiated', 'busy'], '486'],
    ['5550121', 'no answer', ['initiated', 'ringing', 'no-answer'], '487'],
    ['5550123', 'carrier failure', ['initiated', 'failed'], '503'],
  ])('%s (%s) plays exactly %j', async (subscriber, _what, expected, sip) => {
    const { sid } = await place(randomNumber('646').slice(0, -7) + subscriber);
    const callbacks = await finished(sid);
    expect(callbacks.map((c) => c.params.CallStatus)).toEqual(expected);
    expect(await carrier.fetchCall(sid)).toEqual({ status: expected.at(-1), answeredBy: null, durationSeconds: 0 });
    expect(callbacks.every((c) => c.signatureValid)).toBe(true);
    expect(callbacks.at(-1)!.params).toMatchObject({ CallDuration: '0', SipResponseCode: sip });
    expect(received.some((r) => r.path.startsWith('/twiml/') && r.params.CallSid === sid)).toBe(false); // nobody answered: no TwiML
  });

  it('an answering machine (555-0122) with machine detection: AnsweredBy on the answer, the TwiML fetch and the end; TwiML that hangs up ends the call', async () => {
    const { sid } = await place(randomNumber('303').slice(0, -7) + '5550122', { machineDetection: 'Enable', twimlUrl: `${receiverUrl}/twiml/voicemail` });
    // While it rings the carrier says so (no answer, no duration yet).
    expect(['queued', 'ringing', 'in-progress', 'completed']).toContain((await carrier.fetchCall(sid)).status);
    const callbacks = await finished(sid);
    expect(await carrier.fetchCall(sid)).toEqual({ status: 'completed', answeredBy: 'machine_start', durationSeconds: expect.any(Number) });
    expect(callbacks.map((c) => [c.params.CallStatus, c.params.AnsweredBy])).toEqual([
      ['initiated', undefined],
      ['ringing', undefined],
      ['in-progress', 'machine_start'],
      ['completed', 'machine_start'],
    ]);
    expect(received.find((r) => r.path === '/twiml/voicemail' && r.params.CallSid === sid)?.params.AnsweredBy).toBe('machine_start');
    const stored = await getSandboxCall(sid);
    expect(stored?.twiml_path?.map((p) => p.verb)).toEqual(['Say', 'Hangup']);
    expect(stored?.stream).toBeNull();
    expect(callbacks[3]!.params.CallDuration).toBe('6'); // the greeting's length, not the scenario's talk time
  });

  it('a person with machine detection on is AnsweredBy human', async () => {
    const { sid } = await place(randomNumber('303').slice(0, -7) + '5550105', { machineDetection: 'DetectMessageEnd' });
    const callbacks = await finished(sid);
    expect(callbacks.slice(2).map((c) => c.params.AnsweredBy)).toEqual(['human', 'human']);
  });

  it('answers the instant it stamped the dial, to the millisecond: the instant its records count (a mock account’s adapter reads it)', async () => {
    const stamping = twilioProvider({ accountSid: creds.account_sid, authToken: creds.auth_token }, `${stack.baseUrl}/sandbox/twilio`, { dialStamps: true });
    const sentAt = Date.now();
    const placed = await stamping.placeCall({
      to: randomNumber('303'),
      from,
      twimlUrl: `${receiverUrl}/twiml/stream`,
      statusCallbackUrl: `${receiverUrl}/status`,
    });
    const answeredAt = Date.now();
    const stored = await getSandboxCall(placed.sid);
    expect(placed.stampedAt).toBe(Date.parse(stored!.created_at));
    expect(placed.stampedAt).toBeGreaterThanOrEqual(sentAt);
    expect(placed.stampedAt).toBeLessThanOrEqual(answeredAt);
    await finished(placed.sid);
  });

  it('stamps a dial when the request reached it (API Gateway’s requestContext.timeEpoch), not when its handler ran; now when the event has none', async () => {
    const invoke = async (arrived: number | undefined) => {
      const body = new URLSearchParams({ To: randomNumber('303'), From: from, Url: `${receiverUrl}/twiml/stream`, StatusCallback: `${receiverUrl}/status` });
      const event = buildApiGatewayEvent(
        {
          method: 'POST',
          url: `/sandbox/twilio/2010-04-01/Accounts/${creds.account_sid}/Calls.json`,
          rawHeaders: ['host', '127.0.0.1', 'authorization', basic(creds), 'content-type', 'application/x-www-form-urlencoded'],
          body: Buffer.from(body.toString()),
        },
        { routeKey: 'POST /sandbox/twilio/2010-04-01/Accounts/{account_sid}/Calls.json', pathParameters: { account_sid: creds.account_sid } },
        { now: arrived },
      );
      if (arrived === undefined) delete (event.requestContext as { timeEpoch?: number }).timeEpoch;
      const res = await createCall(event, createLambdaContext({ functionName: 'sandboxCreateCall', timeoutSeconds: 10 }));
      expect(res.statusCode).toBe(201);
      return JSON.parse(res.body!) as { sid: string; date_created_ms: number };
    };
    // A request that reached the carrier 400 ms before its handler ran (routing, middleware, a queue).
    const arrived = Date.now() - 400;
    const early = await invoke(arrived);
    expect(early.date_created_ms).toBe(arrived);
    expect(Date.parse((await getSandboxCall(early.sid))!.created_at)).toBe(arrived);
    const before = Date.now();
    const direct = await invoke(undefined);
    expect(direct.date_created_ms).toBeGreaterThanOrEqual(before);
    expect(direct.date_created_ms).toBeLessThanOrEqual(Date.now());
    await Promise.all([finished(early.sid), finished(direct.sid)]);
  });

  it('posts only the events asked for, and the final status always', async () => {
    const { sid } = await place(randomNumber('303'), { statusCallbackEvents: ['answered'] });
    const callbacks = await finished(sid);
    expect(callbacks.map((c) => [c.params.CallStatus, c.params.SequenceNumber])).toEqual([
      ['in-progress', '0'],
      ['completed', '1'],
    ]);
  });

  it('hang-up: an answered call ends at once with one completed callback and nothing after it', async () => {
    process.env.SANDBOX_STEP_MS = '400'; // long enough to hang up mid-conversation
    let sid: string;
    try {
      sid = (await place(randomNumber('718').slice(0, -7) + '5550101')).sid;
    } finally {
      process.env.SANDBOX_STEP_MS = FAST_STEP_MS;
    }
    await waitFor(() => callbacksFor(sid).includes('in-progress'), { timeoutMs: 10_000 });
    await carrier.hangUp(sid);
    const callbacks = await finished(sid);
    expect(callbacks.map((c) => c.params.CallStatus)).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
    expect(Number(callbacks[3]!.params.CallDuration)).toBeLessThan(95);
    const stored = await getSandboxCall(sid);
    expect(stored?.step).toBe(stored?.plan.length); // every step played: nothing left to post
    await carrier.hangUp(sid); // an ended call stays as it was
    expect((await getSandboxCall(sid))?.status).toBe('completed');
  });

  it('cancel: a call not yet answered ends canceled', async () => {
    process.env.SANDBOX_STEP_MS = '400';
    let sid: string;
    try {
      sid = (await place(randomNumber('718'))).sid;
    } finally {
      process.env.SANDBOX_STEP_MS = FAST_STEP_MS;
    }
    await carrier.hangUp(sid);
    const callbacks = await finished(sid);
    expect(callbacks.at(-1)!.params).toMatchObject({ CallStatus: 'canceled', CallDuration: '0' });
    expect(callbacks.filter((c) => FINAL.includes(c.params.CallStatus!))).toHaveLength(1);
    expect(callbacks.map((c) => c.params.CallStatus)).not.toContain('in-progress');
    expect(received.some((r) => r.path.startsWith('/twiml/') && r.params.CallSid === sid)).toBe(false);
  });

  it('a step delivered twice (or to two workers at once) posts once', async () => {
    process.env.SANDBOX_STEP_MS = '400';
    let sid: string;
    try {
      sid = (await place(randomNumber('718'))).sid;
    } finally {
      process.env.SANDBOX_STEP_MS = FAST_STEP_MS;
    }
    const step0 = { type: 'sandbox.timeline' as const, kind: 'call' as const, sid, step: 0, due_at: Date.now() };
    await Promise.all([playCallStep(step0), playCallStep(step0), playCallStep(step0)]);
    await waitFor(() => callbacksFor(sid).includes('ringing'), { timeoutMs: 10_000 });
    expect(callbacksFor(sid).filter((s) => s === 'initiated')).toHaveLength(1);
    await carrier.hangUp(sid);
    await finished(sid);
  });
});

describe('the sandbox voice runtime on outbound calls', () => {
  it('a Stream to our runtime for a call our API does not know: the runtime route answers 404 and the sandbox call records no_such_call', async () => {
    const ghost = newId('cal');
    const token = mintStreamToken(
      await callTokenKey(),
      { tenant_id: newId('ten'), call_id: ghost, agent_version_id: newId('agv'), number_id: newId('num') },
      new Date(),
    );
    const streamUrl = `${stack.baseUrl.replace(/^http/, 'ws')}/runtime/v1/stream`;
    TWIML['/twiml/ours'] =
      `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="${streamUrl}"><Parameter name="token" value="${token}"/></Stream></Connect></Response>`;
    const { sid } = await place(randomNumber('212').slice(0, -7) + '5550130', { twimlUrl: `${receiverUrl}/twiml/ours` });
    const stored = await waitFor(async () => (await getSandboxCall(sid))?.runtime, { timeoutMs: 15_000, message: 'the sandbox runtime to report' });
    expect(stored).toMatchObject({ status: 'no_such_call', call_id: ghost, script: 'do_not_call', http_status: 404, events_sent: 0 });
    expect(callbacksFor(sid).length).toBeGreaterThan(0);
    await finished(sid);
  });

  it("a Stream to someone else's runtime is left to it (external)", async () => {
    const { sid } = await place(randomNumber('212').slice(0, -7) + '5550101');
    expect(await waitFor(async () => (await getSandboxCall(sid))?.runtime, { timeoutMs: 15_000 })).toMatchObject({ status: 'external', events_sent: 0 });
    await finished(sid);
  });
});

describe('sandbox calls: refusals as Twilio words them', () => {
  it('unknown credentials are 401 20003, which the adapter reports as refused credentials', async () => {
    const res = await sandboxPost(
      'Calls.json',
      { To: '+12125550100', From: from, Url: `${receiverUrl}/twiml/stream` },
      basic({ ...creds, auth_token: 'wrong' }),
    );
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
    const wrong = twilioProvider({ accountSid: creds.account_sid, authToken: 'wrong' }, `${stack.baseUrl}/sandbox/twilio`);
    // A create Twilio refuses to authenticate created nothing: a refusal (fail now), not an outage (wait and reconcile).
    const call = await wrong
      .placeCall({ to: '+12125550100', from, twimlUrl: `${receiverUrl}/twiml/stream`, statusCallbackUrl: `${receiverUrl}/status` })
      .catch((e: unknown) => e);
    expect(call).toBeInstanceOf(CarrierRefused);
    expect(call).toMatchObject({ reason: 'credentials_refused' });
    const text = await wrong.sendSms({ to: '+12125550100', from, body: 'hi', statusCallbackUrl: `${receiverUrl}/sms-status` }).catch((e: unknown) => e);
    expect(text).toMatchObject({ reason: 'credentials_refused' });
    // A read with refused credentials stays the carrier's failure (verify the account again).
    await expect(wrong.fetchCall(`CA${'0'.repeat(32)}`)).rejects.toBeInstanceOf(CarrierUnavailable);
  });

  it('a From the account does not hold is 21210; a To that is not E.164 is 21211; a bad Url is 21205', async () => {
    const notOurs = await place('+12125550100', { from: randomNumber('415') }).catch((e: unknown) => e);
    expect(notOurs).toBeInstanceOf(CarrierRefused);
    expect(notOurs).toMatchObject({ reason: 'caller_id_not_allowed', carrierCode: 21210 });
    const badTo = await place('555-0100').catch((e: unknown) => e);
    expect(badTo).toMatchObject({ reason: 'invalid_to', carrierCode: 21211 });

    const res = await sandboxPost('Calls.json', { To: '+12125550100', From: from, Url: 'ftp://nope' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 21205, status: 400 });
    const events = await sandboxPost('Calls.json', { To: '+12125550100', From: from, Url: `${receiverUrl}/twiml/stream`, StatusCallbackEvent: 'exploded' });
    expect(events.body).toMatchObject({ code: 21626, status: 400 });
    // A From no key can hold (3 KB of UTF-8) is Twilio's 21210, not a 500.
    const huge = await sandboxPost('Calls.json', { To: '+12125550100', From: '€'.repeat(1000), Url: `${receiverUrl}/twiml/stream` });
    expect([huge.status, huge.body.code]).toEqual([400, 21210]);
    const hangUpUnknown = await carrier.hangUp(`CA${'0'.repeat(32)}`).catch((e: unknown) => e);
    expect(hangUpUnknown).toMatchObject({ reason: 'not_found' });
  });

  it("another account's call is 404 20404", async () => {
    const { sid } = await place(randomNumber('917'));
    const other = newSandboxCredentials();
    await putSandboxAccount(other);
    const res = await sandbox('GET', `/sandbox/twilio/2010-04-01/Accounts/${other.account_sid}/Calls/${sid}.json`, {
      headers: { authorization: basic(other) },
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 20404 });
    // Through the adapter: a call the account does not have (or no call at all) is the carrier's not_found.
    const theirs = twilioProvider({ accountSid: other.account_sid, authToken: other.auth_token }, `${stack.baseUrl}/sandbox/twilio`);
    expect(await theirs.fetchCall(sid).catch((e: unknown) => e)).toMatchObject({ reason: 'not_found' });
    expect(await carrier.fetchCall(`CA${'0'.repeat(32)}`).catch((e: unknown) => e)).toBeInstanceOf(CarrierRefused);
    await finished(sid);
  });
});

describe('sandbox messages', () => {
  const messageCallbacks = (sid: string) => received.filter((r) => r.path === '/sms-status' && r.params.MessageSid === sid);

  it('delivers: queued on create, then signed sent and delivered callbacks', async () => {
    const to = randomNumber('212');
    const { sid } = await carrier.sendSms({ to, from, body: 'Your shift is confirmed', statusCallbackUrl: `${receiverUrl}/sms-status` });
    expect(sid).toMatch(/^SM[0-9a-f]{32}$/);
    await waitFor(() => messageCallbacks(sid).length === 2, { timeoutMs: 10_000 });
    const callbacks = messageCallbacks(sid);
    expect(callbacks.map((c) => c.params.MessageStatus)).toEqual(['sent', 'delivered']);
    expect(callbacks.every((c) => c.signatureValid)).toBe(true);
    expect(callbacks[1]!.params).toMatchObject({
      AccountSid: creds.account_sid,
      SmsSid: sid,
      SmsStatus: 'delivered',
      From: from,
      To: to,
      ApiVersion: '2010-04-01',
    });
    const res = await sandbox('GET', `/sandbox/twilio/2010-04-01/Accounts/${creds.account_sid}/Messages/${sid}.json`, {
      headers: { authorization: basic(creds) },
    });
    expect(res.body).toMatchObject({ sid, status: 'delivered', body: 'Your shift is confirmed', error_code: null });
  });

  it('555-0123 fails (30008); 555-0121 is undelivered (30003)', async () => {
    const failed = await carrier.sendSms({ to: '+13125550123', from, body: 'hi', statusCallbackUrl: `${receiverUrl}/sms-status` });
    const undelivered = await carrier.sendSms({ to: '+13125550121', from, body: 'hi', statusCallbackUrl: `${receiverUrl}/sms-status` });
    await waitFor(() => messageCallbacks(failed.sid).length === 1 && messageCallbacks(undelivered.sid).length === 2, { timeoutMs: 10_000 });
    expect(messageCallbacks(failed.sid).map((c) => [c.params.MessageStatus, c.params.ErrorCode])).toEqual([['failed', '30008']]);
    expect(messageCallbacks(undelivered.sid).map((c) => [c.params.MessageStatus, c.params.ErrorCode])).toEqual([
      ['sent', undefined],
      ['undelivered', '30003'],
    ]);
  });

  it('refuses as Twilio does: From not the account’s (21606), no Body (21602), bad To (21211)', async () => {
    await expect(carrier.sendSms({ to: '+12125550100', from: randomNumber('415'), body: 'x' })).rejects.toMatchObject({
      reason: 'caller_id_not_allowed',
      carrierCode: 21606,
    });
    const noBody = await sandboxPost('Messages.json', { To: '+12125550100', From: from });
    expect(noBody.status).toBe(400);
    expect(noBody.body).toMatchObject({ code: 21602 });
    await expect(carrier.sendSms({ to: 'not-a-number', from, body: 'x' })).rejects.toMatchObject({ reason: 'invalid_to', carrierCode: 21211 });
    const huge = await sandboxPost('Messages.json', { To: '+12125550100', From: '€'.repeat(1000), Body: 'x' });
    expect([huge.status, huge.body.code]).toEqual([400, 21606]);
  });
});
