import '../support/debug-log-level.js';
import { randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import twilio from 'twilio';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../shared/db/client.js';
import { keys } from '../../shared/db/keys.js';
import { getCallBySid, getCallPointer } from '../../shared/repositories/calls.js';
import { getTelephonyAccount, openSandboxCredentials } from '../../shared/repositories/telephony-accounts.js';
import { newSandboxCredentials, putSandboxAccount } from '../../shared/sandbox/accounts.js';
import { playInboundCall } from '../../shared/sandbox/inbound-call.js';
import { readTwiml } from '../../shared/sandbox/twiml-reader.js';
import { callTokenKey } from '../../shared/telephony/call-token-key.js';
import { verifyStreamToken } from '../../shared/telephony/call-tokens.js';
import { UNAVAILABLE_MESSAGE } from '../../shared/telephony/inbound-answer.js';
import { captureLogs } from '../support/log-capture.js';
import { useTestStack } from '../support/stack.js';
import { newRep } from './agent-fixtures.js';
import { client, newTenant } from './client.js';
import { activeNumber, mockAccount, publishedAgent, randomNumber } from './telephony-fixtures.js';

const logs = captureLogs();
const stack = useTestStack({ workers: false });
/** Every carrier auth token and stream token this file sees: none may reach a log line. */
const secrets: string[] = [];

const newCallSid = () => `CA${randomBytes(16).toString('hex')}`;

async function setup() {
  const t = await newTenant();
  const api = client(stack, t.token);
  const accountId = await mockAccount(api);
  const number = await activeNumber(api, { accountId });
  const creds = (await openSandboxCredentials((await getTelephonyAccount(t.tenantId, accountId))!))!;
  secrets.push(creds.auth_token);
  /** Post a form to a carrier route, signed by Twilio's own library with this account's token (or as told). */
  const post = async (path: string, params: Record<string, string>, opts: { token?: string; signedUrl?: string; signature?: string | null } = {}) => {
    const url = `${stack.baseUrl}${path}`;
    const signature =
      opts.signature === undefined ? twilio.getExpectedTwilioSignature(opts.token ?? creds.auth_token, opts.signedUrl ?? url, params) : opts.signature;
    const res = await stack.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(signature ? { 'x-twilio-signature': signature } : {}) },
      body: new URLSearchParams(params).toString(),
    });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };
  const voice = (callSid: string, over: Record<string, string> = {}) => ({
    AccountSid: creds.account_sid,
    CallSid: callSid,
    From: '+12125550123',
    To: number.phone_e164,
    CallStatus: 'ringing',
    Direction: 'inbound',
    ...over,
  });
  return { ...t, api, accountId, number, creds, post, voice };
}

describe('carrier callbacks are authenticated by X-Twilio-Signature', () => {
  it("a signature made by Twilio's library is accepted; missing, wrong token, tampered parameter or other URL → 403 and nothing written", async () => {
    const { post, voice } = await setup();
    const tries = [
      { name: 'missing', sid: newCallSid(), opts: { signature: null } },
      { name: 'wrong token', sid: newCallSid(), opts: { token: 'f'.repeat(32) } },
      { name: 'other url', sid: newCallSid(), opts: { signedUrl: `${stack.baseUrl}/carrier/twilio/status` } },
    ];
    for (const t of tries) {
      const res = await post('/carrier/twilio/voice', voice(t.sid), t.opts);
      expect(res.status, t.name).toBe(403);
      expect(await getCallPointer(t.sid), t.name).toBeUndefined();
    }
    // Signed over one set of parameters, posted with another.
    const sid = newCallSid();
    const signed = voice(sid);
    const tampered = await stack.fetch('/carrier/twilio/voice', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilio.getExpectedTwilioSignature((await setup()).creds.auth_token, `${stack.baseUrl}/carrier/twilio/voice`, signed),
      },
      body: new URLSearchParams({ ...signed, From: '+13125550199' }).toString(),
    });
    expect(tampered.status).toBe(403);
    expect(await getCallPointer(sid)).toBeUndefined();
    const good = await post('/carrier/twilio/voice', voice(sid));
    expect(good.status).toBe(200);
    expect(good.type).toMatch(/^text\/xml/);
    expect(await getCallPointer(sid)).toBeDefined();
  });
});

describe('hostile carrier forms', () => {
  it('an unsigned request naming a To or CallSid no key can hold is 403, never a 500', async () => {
    const { post, voice } = await setup();
    for (const over of <Record<string, string>[]>[
      { To: `+1${'9'.repeat(1998)}` },
      { To: `+1${'9'.repeat(1500)}` },
      { To: 'x#y' },
      { To: '€'.repeat(1000) },
      { From: '€'.repeat(1000), To: '' },
      { From: '#'.repeat(1900), To: '' },
      { CallSid: `CA${'f'.repeat(1900)}` },
    ]) {
      const res = await post('/carrier/twilio/voice', voice(newCallSid(), over), { signature: 'bm90IGEgc2lnbmF0dXJl' });
      expect(res.status, JSON.stringify(over).slice(0, 40)).toBe(403);
    }
  });

  it('a repeated AccountSid, CallSid, To or From is refused even when correctly signed: the authenticated value is the one handlers read', async () => {
    const { creds, voice, number } = await setup();
    const other = await setup();
    for (const field of ['AccountSid', 'CallSid', 'To', 'From'] as const) {
      const sid = newCallSid();
      const base = voice(sid);
      const second =
        field === 'To' ? other.number.phone_e164 : field === 'AccountSid' ? other.creds.account_sid : field === 'CallSid' ? newCallSid() : '+13125550100';
      const pairs = [...Object.entries(base), [field, second]] as [string, string][];
      const params: Record<string, string | string[]> = { ...base, [field]: [base[field], second] };
      const url = `${stack.baseUrl}/carrier/twilio/voice`;
      const signature = twilio.getExpectedTwilioSignature(creds.auth_token, url, params as Record<string, string>);
      const body = new URLSearchParams(pairs).toString();
      const res = await stack.fetch('/carrier/twilio/voice', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
        body,
      });
      expect(res.status, field).toBe(403);
      expect(await getCallPointer(sid), field).toBeUndefined();
    }
    expect(number.phone_e164).not.toBe(other.number.phone_e164);
  });

  it('a CallDuration that is not whole seconds is not stored as a duration', async () => {
    const { api, number, post, voice } = await setup();
    await api('PATCH', `/v1/phone-numbers/${number.id}`, { body: { inbound_route_mode: 'voicemail', inbound_voicemail_greeting: 'Leave word.' } });
    for (const bad of ['1e9', '-3', '0x10', '12.5', '99999999']) {
      const sid = newCallSid();
      await post('/carrier/twilio/voice', voice(sid));
      expect((await post('/carrier/twilio/status', { ...voice(sid), CallStatus: 'completed', CallDuration: bad })).status, bad).toBe(200);
      expect(await getCallBySid(sid), bad).toMatchObject({ state: 'completed', duration_seconds: null });
    }
  });
});

describe('inbound voice', () => {
  it('agent route: a signed Stream token binding tenant, call, agent version and number; stored as an inbound call; a replay gets the same call', async () => {
    const { api, number, post, voice, tenantId } = await setup();
    const agent = await publishedAgent(api);
    await api('PATCH', `/v1/phone-numbers/${number.id}`, { body: { inbound_agent_id: agent.agentId } });
    const sid = newCallSid();
    const res = await post('/carrier/twilio/voice', voice(sid));
    const [connect] = readTwiml(res.text);
    expect(connect).toMatchObject({
      verb: 'Connect',
      relayUrl: expect.stringMatching(/^ws:\/\/.*\/runtime\/v1\/relay\?token=/),
      action: expect.stringContaining('/carrier/twilio/relay-action?'),
    });
    const token = (connect as { parameters: Record<string, string> }).parameters.token!;
    expect(new URL((connect as { relayUrl: string }).relayUrl).searchParams.get('token')).toBe(token);
    secrets.push(token);
    const checked = verifyStreamToken(await callTokenKey(), token, new Date());
    const call = (await getCallBySid(sid))!;
    expect(checked).toMatchObject({ ok: true, claims: { tenant_id: tenantId, call_id: call.id, agent_version_id: agent.versionId, number_id: number.id } });
    expect(call).toMatchObject({
      direction: 'inbound',
      state: 'answered',
      disposition: null,
      from_e164: '+12125550123',
      to_e164: number.phone_e164,
      phone_number_id: number.id,
      provider: 'mock',
      inbound: { route_mode: 'agent', agent_version_id: agent.versionId, path: [{ action: 'ai' }] },
    });

    const replay = await post('/carrier/twilio/voice', voice(sid));
    expect(readTwiml(replay.text)[0]).toMatchObject({ verb: 'Connect' });
    const after = (await getCallBySid(sid))!;
    expect(after.id).toBe(call.id);
    expect(after.inbound!.path).toHaveLength(1);
  });

  it('an agent route without a published agent, and a number no tenant holds, are refused politely and recorded as inbound_unavailable', async () => {
    const { post, voice, tenantId, api, accountId } = await setup();
    const sid = newCallSid();
    const res = await post('/carrier/twilio/voice', voice(sid));
    expect(readTwiml(res.text).map((v) => v.verb)).toEqual(['Say', 'Hangup']);
    expect(await getCallBySid(sid)).toMatchObject({
      tenant_id: tenantId,
      state: 'disposed',
      disposition: 'inbound_unavailable',
      end_reason: 'no_published_agent',
    });

    // A number of the carrier account that no tenant registered here: attributed through the AccountSid.
    const stray = newCallSid();
    const unknown = await post('/carrier/twilio/voice', voice(stray, { To: randomNumber('646') }));
    expect(readTwiml(unknown.text).map((v) => v.verb)).toEqual(['Say', 'Hangup']);
    expect(await getCallBySid(stray)).toMatchObject({
      tenant_id: tenantId,
      telephony_account_id: accountId,
      phone_number_id: null,
      disposition: 'inbound_unavailable',
      end_reason: 'number_unknown',
    });
    expect((await api('GET', '/v1/phone-numbers')).status).toBe(200);
  });

  describe('an ineligible number (the contract, re-checked on every call) gets the polite refusal and an inbound_unavailable record', () => {
    /** The refusal TwiML, and the call stored as refused for `reason`; a replay gets the same answer and no second record. */
    async function expectRefused(
      res: { status: number; text: string },
      callSid: string,
      expected: { tenantId: string; numberId: string; accountId: string; reason: string },
      replay: () => Promise<{ text: string }>,
    ) {
      expect(res.status).toBe(200);
      expect(readTwiml(res.text)).toEqual([{ verb: 'Say', text: UNAVAILABLE_MESSAGE }, { verb: 'Hangup' }]);
      const call = (await getCallBySid(callSid))!;
      expect(call).toMatchObject({
        tenant_id: expected.tenantId,
        direction: 'inbound',
        state: 'disposed',
        disposition: 'inbound_unavailable',
        end_reason: expected.reason,
        phone_number_id: expected.numberId,
        telephony_account_id: expected.accountId,
        answered_at: null,
        inbound: { path: [{ action: 'refused', reason: expected.reason }] },
      });
      expect(readTwiml((await replay()).text)).toEqual([{ verb: 'Say', text: UNAVAILABLE_MESSAGE }, { verb: 'Hangup' }]);
      expect((await getCallBySid(callSid))!.id).toBe(call.id);
    }

    it('a burned number, even with a published agent on its route', async () => {
      const { api, number, post, voice, tenantId, accountId } = await setup();
      const agent = await publishedAgent(api);
      await api('PATCH', `/v1/phone-numbers/${number.id}`, { body: { inbound_agent_id: agent.agentId } });
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.phoneNumber(tenantId, number.id),
          UpdateExpression: 'SET reputation_state = :r',
          ExpressionAttributeValues: { ':r': 'burned' },
        }),
      );
      const sid = newCallSid();
      await expectRefused(await post('/carrier/twilio/voice', voice(sid)), sid, { tenantId, numberId: number.id, accountId, reason: 'number_burned' }, () =>
        post('/carrier/twilio/voice', voice(sid)),
      );
    });

    it('a number without voice (sms only)', async () => {
      const { api, post, voice, tenantId, accountId } = await setup();
      const sms = await activeNumber(api, { accountId, capabilities: ['sms'] });
      const sid = newCallSid();
      await expectRefused(
        await post('/carrier/twilio/voice', voice(sid, { To: sms.phone_e164 })),
        sid,
        { tenantId, numberId: sms.id, accountId, reason: 'number_without_voice' },
        () => post('/carrier/twilio/voice', voice(sid, { To: sms.phone_e164 })),
      );
    });

    it('a number whose byo account is no longer verified (new credentials, not yet verified): the carrier signs with the new token', async () => {
      const { api, post, tenantId } = await setup();
      const first = newSandboxCredentials();
      await putSandboxAccount(first);
      const accountId = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: first } })).body.id as string;
      expect((await api('POST', `/v1/telephony-accounts/${accountId}/verify`)).body.verification_status).toBe('verified');
      const number = await activeNumber(api, { accountId });
      const agent = await publishedAgent(api);
      await api('PATCH', `/v1/phone-numbers/${number.id}`, { body: { inbound_agent_id: agent.agentId } });
      const rotated = newSandboxCredentials();
      await putSandboxAccount(rotated);
      secrets.push(first.auth_token, rotated.auth_token);
      expect((await api('PATCH', `/v1/telephony-accounts/${accountId}`, { body: { credentials: rotated } })).body.verification_status).toBe('pending');
      const sid = newCallSid();
      const params = {
        AccountSid: rotated.account_sid,
        CallSid: sid,
        From: '+12125550123',
        To: number.phone_e164,
        CallStatus: 'ringing',
        Direction: 'inbound',
      };
      const call = () => post('/carrier/twilio/voice', params, { token: rotated.auth_token });
      await expectRefused(await call(), sid, { tenantId, numberId: number.id, accountId, reason: 'account_not_verified' }, call);
      // Verified again, the next call is answered by the agent.
      expect((await api('POST', `/v1/telephony-accounts/${accountId}/verify`)).body.verification_status).toBe('verified');
      const next = newCallSid();
      expect(readTwiml((await post('/carrier/twilio/voice', { ...params, CallSid: next }, { token: rotated.auth_token })).text)[0]).toMatchObject({
        verb: 'Connect',
      });
    });
  });

  it('voicemail route: greeting, Record, and the recording kept on the call; the final status ends it once', async () => {
    const { api, number, post, voice } = await setup();
    await api('PATCH', `/v1/phone-numbers/${number.id}`, { body: { inbound_route_mode: 'voicemail', inbound_voicemail_greeting: 'Leave word.' } });
    const sid = newCallSid();
    const verbs = readTwiml((await post('/carrier/twilio/voice', voice(sid))).text);
    expect(verbs.slice(0, 2)).toMatchObject([
      { verb: 'Say', text: 'Leave word.' },
      { verb: 'Record', action: `${stack.baseUrl}/carrier/twilio/recording` },
    ]);
    const recorded = { ...voice(sid), CallStatus: 'in-progress', RecordingUrl: 'https://rec.test/RE1', RecordingDuration: '9' };
    expect((await post('/carrier/twilio/recording', recorded)).status).toBe(200);
    await post('/carrier/twilio/recording', recorded);
    const call = (await getCallBySid(sid))!;
    expect(call.recording_url).toBe('https://rec.test/RE1');
    expect(call.inbound!.path.map((p) => p.action)).toEqual(['voicemail', 'voicemail_recorded']);

    const done = { ...voice(sid), CallStatus: 'completed', CallDuration: '31' };
    expect((await post('/carrier/twilio/status', done)).status).toBe(200);
    await post('/carrier/twilio/status', { ...done, CallStatus: 'busy', CallDuration: '2' });
    expect(await getCallBySid(sid)).toMatchObject({ state: 'completed', duration_seconds: 31, end_reason: 'carrier_completed' });
    expect((await post('/carrier/twilio/status', done, { token: 'a'.repeat(32) })).status).toBe(403);
  });
});

describe('answering policies on a live call (through the sandbox carrier)', () => {
  async function withPolicy() {
    const s = await setup();
    const rep = await newRep(s.tenantId);
    const agent = await publishedAgent(s.api);
    const body = {
      timezone: 'UTC',
      open_steps: [
        {
          prompt: 'Press 1 for sales or 2 for a message.',
          branches: {
            '1': [
              { type: 'ring_humans', rep_ids: [rep.id] },
              { type: 'ai', agent_id: agent.agentId },
            ],
            '2': [{ type: 'voicemail', greeting: 'Speak now.' }],
          },
          timeout_branch: [{ type: 'hangup' }],
        },
      ],
    };
    expect((await s.api('PUT', `/v1/phone-numbers/${s.number.id}/answering-policy`, { body })).status).toBe(200);
    return { ...s, rep, agent };
  }
  const verbs = (r: Awaited<ReturnType<typeof playInboundCall>>) => r.path.map((p) => p.verb);

  it('key 1 rings the rep (answered: done; unanswered: the pinned AI), key 2 voicemail, silence the timeout branch, a wrong key twice too', async () => {
    const { number } = await withPolicy();
    const from = '+12125550123';
    const answered = await playInboundCall({ to: number.phone_e164, from, digits: ['1'] });
    expect(verbs(answered)).toEqual(['Gather', 'Dial', 'Hangup']);
    expect(answered.path[1]).toMatchObject({ verb: 'Dial', numbers: 1, answered: true });
    const unanswered = await playInboundCall({ to: number.phone_e164, from, digits: ['1'], repsAnswer: false });
    expect(verbs(unanswered)).toEqual(['Gather', 'Dial', 'Connect']);
    expect(verbs(await playInboundCall({ to: number.phone_e164, from, digits: ['2'] }))).toEqual(['Gather', 'Say', 'Record', 'Say', 'Hangup']);
    expect(verbs(await playInboundCall({ to: number.phone_e164, from }))).toEqual(['Gather', 'Hangup']);
    const wrong = await playInboundCall({ to: number.phone_e164, from, digits: ['7', '8'] });
    expect(verbs(wrong)).toEqual(['Gather', 'Gather', 'Hangup']);
    expect(wrong.path[1]).toMatchObject({ prompt: ['Sorry, that is not an option.', 'Press 1 for sales or 2 for a message.'] });

    const call = (await getCallBySid(unanswered.call_sid))!;
    expect(call.inbound!.path.map((p) => `${p.action}${p.step_path ? `@${p.step_path}` : ''}`)).toEqual([
      'menu@open.0',
      'pressed@open.0',
      'ring_humans@open.0.b1.0',
      'ring_result@open.0.b1.0',
      'ai@open.0.b1.1',
    ]);
    expect(call.state).toBe('completed');
  });

  it('a call continues on the policy version it started with when the policy changes mid-call; a tampered action URL is 403', async () => {
    const { number, post, voice, api } = await withPolicy();
    const sid = newCallSid();
    const gather = readTwiml((await post('/carrier/twilio/voice', voice(sid))).text)[0] as { verb: 'Gather'; action: string };
    expect(new URL(gather.action).searchParams.get('policy_version')).toBe('1');
    await api('PUT', `/v1/phone-numbers/${number.id}/answering-policy`, { body: { timezone: 'UTC', open_steps: [{ type: 'hangup' }] } });
    const path = gather.action.slice(stack.baseUrl.length);
    const pressed = await post(path, { ...voice(sid), CallStatus: 'in-progress', Digits: '2' });
    expect(readTwiml(pressed.text).slice(0, 2)).toMatchObject([{ verb: 'Say', text: 'Speak now.' }, { verb: 'Record' }]);
    const forged = path.replace('step_path=open.0', 'step_path=open.0.b2.0');
    expect((await post(forged, { ...voice(sid), CallStatus: 'in-progress', Digits: '2' })).status).toBe(403);
    // A new call takes the new version.
    expect(verbs(await playInboundCall({ to: number.phone_e164, from: '+12125550123' }))).toEqual(['Hangup']);
  });
});

describe('carrier secrets never reach the logs', () => {
  it('no auth token or stream token in any log line of this file', () => {
    expect(logs.requests('carrierInboundVoice')).toBeGreaterThan(10);
    expect(secrets.length).toBeGreaterThan(5);
    const text = logs.text();
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
