import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { activatePhoneNumber, claimPhoneNumber, getNumberClaim, getPhoneNumber } from '../../shared/repositories/phone-numbers.js';
import { newSandboxCredentials, putSandboxAccount } from '../../shared/sandbox/accounts.js';
import { getSandboxNumber } from '../../shared/sandbox/numbers.js';
import { useTestStack } from '../support/stack.js';
import { locs } from './agent-fixtures.js';
import { client, newTenant } from './client.js';
import { activeNumber, draftAgent, mockAccount, publishedAgent, randomNumber } from './telephony-fixtures.js';

const stack = useTestStack({ workers: false });

async function setup() {
  const t = await newTenant();
  const api = client(stack, t.token);
  return { ...t, api, accountId: await mockAccount(api) };
}

const basic = (c: { account_sid: string; auth_token: string }) => `Basic ${Buffer.from(`${c.account_sid}:${c.auth_token}`).toString('base64')}`;

describe('POST /v1/phone-numbers', () => {
  it('buys a number on a mock account: active, clean, routed to our carrier webhooks at the sandbox carrier', async () => {
    const { api, accountId } = await setup();
    const phone = randomNumber();
    const res = await api('POST', '/v1/phone-numbers', {
      body: { phone_e164: phone, telephony_account_id: accountId, daily_dial_cap: 150, a2p_campaign_ref: 'CM123' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^pnb_/),
      phone_e164: phone,
      telephony_account_id: accountId,
      provider_sid: expect.stringMatching(/^PN[0-9a-f]{32}$/),
      capabilities: ['voice'],
      a2p_campaign_ref: 'CM123',
      status: 'active',
      assigned_at: expect.any(String),
      daily_dial_cap: 150,
      dials_today: 0,
      reputation_state: 'clean',
      inbound_agent_id: null,
      inbound_route_mode: 'agent',
      inbound_voicemail_greeting: null,
      created_at: expect.any(String),
    });
    const held = await getSandboxNumber(phone);
    expect(held).toMatchObject({
      sid: res.body.provider_sid,
      voice_url: `${stack.baseUrl}/carrier/twilio/voice`,
      status_callback: `${stack.baseUrl}/carrier/twilio/status`,
    });
    expect((await api('GET', `/v1/phone-numbers/${res.body.id}`)).body).toEqual(res.body);
  });

  it('connects a number the account already owns (provider_sid), and refuses a sid it does not own', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const creds = newSandboxCredentials();
    await putSandboxAccount(creds);
    const accountId = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: creds } })).body.id;
    expect((await api('POST', `/v1/telephony-accounts/${accountId}/verify`)).body.verification_status).toBe('verified');
    const phone = randomNumber('212');
    const bought = await client(stack)('POST', `/sandbox/twilio/2010-04-01/Accounts/${creds.account_sid}/IncomingPhoneNumbers.json`, {
      form: { PhoneNumber: phone },
      headers: { authorization: basic(creds) },
    });
    expect(bought.status).toBe(201);
    const sid = (bought.body as { sid: string }).sid;

    const wrongSid = await api('POST', '/v1/phone-numbers', {
      body: { phone_e164: phone, telephony_account_id: accountId, provider_sid: `PN${'0'.repeat(32)}` },
    });
    expect(wrongSid.status).toBe(422);
    expect(locs(wrongSid.body)).toEqual(['body.provider_sid:not_found']);
    const mismatch = await api('POST', '/v1/phone-numbers', { body: { phone_e164: randomNumber('212'), telephony_account_id: accountId, provider_sid: sid } });
    expect(locs(mismatch.body)).toEqual(['body.provider_sid:provider_sid_mismatch']);

    const res = await api('POST', '/v1/phone-numbers', {
      body: { phone_e164: phone, telephony_account_id: accountId, provider_sid: sid, capabilities: ['voice', 'sms'] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ provider_sid: sid, status: 'active', capabilities: ['voice', 'sms'] });
    expect((await getSandboxNumber(phone))?.voice_url).toBe(`${stack.baseUrl}/carrier/twilio/voice`);
  });

  it('one number belongs to at most one tenant: a second claim anywhere is 409 number_unavailable', async () => {
    const a = await setup();
    const b = await setup();
    const phone = randomNumber();
    expect((await a.api('POST', '/v1/phone-numbers', { body: { phone_e164: phone, telephony_account_id: a.accountId } })).status).toBe(200);
    for (const [api, accountId] of [
      [b.api, b.accountId],
      [a.api, a.accountId],
    ] as const) {
      const again = await api('POST', '/v1/phone-numbers', { body: { phone_e164: phone, telephony_account_id: accountId } });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('number_unavailable');
    }
    expect((await b.api('GET', '/v1/phone-numbers')).body.data).toEqual([]);
  });

  it('a number the carrier will not sell leaves no claim behind', async () => {
    const { api, accountId } = await setup();
    const other = await setup();
    const phone = randomNumber();
    // Held at the sandbox carrier by another account, but claimed by no tenant here.
    const creds = newSandboxCredentials();
    await putSandboxAccount(creds);
    expect(
      (
        await client(stack)('POST', `/sandbox/twilio/2010-04-01/Accounts/${creds.account_sid}/IncomingPhoneNumbers.json`, {
          form: { PhoneNumber: phone },
          headers: { authorization: basic(creds) },
        })
      ).status,
    ).toBe(201);
    const refused = await api('POST', '/v1/phone-numbers', { body: { phone_e164: phone, telephony_account_id: accountId } });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('number_unavailable');
    expect((await api('GET', '/v1/phone-numbers')).body.data).toEqual([]);
    // The claim was released: nothing on the platform holds the number.
    expect(await getNumberClaim(phone)).toBeUndefined();
    expect((await other.api('GET', '/v1/phone-numbers')).body.data).toEqual([]);
  });

  it.each([
    ['too few digits', { phone_e164: '+1415555' }, 'body.phone_e164:string_pattern_mismatch'],
    ['a leading zero', { phone_e164: '+01415555010' }, 'body.phone_e164:string_pattern_mismatch'],
    ['an unknown capability', { capabilities: ['fax'] }, 'body.capabilities.0:enum'],
    ['empty capabilities', { capabilities: [] }, 'body.capabilities:too_short'],
    ['repeated capabilities', { capabilities: ['voice', 'voice'] }, 'body.capabilities:list_unique'],
    ['a zero dial cap', { daily_dial_cap: 0 }, 'body.daily_dial_cap:greater_than_equal'],
    ['an unknown field', { color: 'red' }, 'body.color:extra_forbidden'],
  ])('%s → 422 at its loc', async (_name, over, expected) => {
    const { api, accountId } = await setup();
    const res = await api('POST', '/v1/phone-numbers', { body: { phone_e164: randomNumber(), telephony_account_id: accountId, ...over } });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([expected]);
  });

  it("the account must be the tenant's and verified", async () => {
    const { api } = await setup();
    const other = await setup();
    const pending = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'mock' } })).body.id;
    for (const accountId of [pending, other.accountId, 'tac_nope']) {
      const res = await api('POST', '/v1/phone-numbers', { body: { phone_e164: randomNumber(), telephony_account_id: accountId } });
      expect(res.status, accountId).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'telephony_account_id']);
    }
    expect((await api('GET', '/v1/phone-numbers')).body.data).toEqual([]);
  });

  it('an account that failed verification or that the carrier suspended → 422 at body.telephony_account_id, nothing bought or claimed', async () => {
    const { api } = await setup();
    const real = newSandboxCredentials();
    await putSandboxAccount(real);
    const failed = (
      await api('POST', '/v1/telephony-accounts', {
        body: { mode: 'byo', provider: 'twilio', credentials: { account_sid: real.account_sid, auth_token: 'f'.repeat(32) } },
      })
    ).body.id;
    expect((await api('POST', `/v1/telephony-accounts/${failed}/verify`)).body.verification_status).toBe('failed');
    const held = newSandboxCredentials();
    await putSandboxAccount(held, { status: 'suspended' });
    const suspended = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: held } })).body.id;
    expect((await api('POST', `/v1/telephony-accounts/${suspended}/verify`)).body.verification_status).toBe('suspended');
    for (const [accountId, status] of [
      [failed, 'failed'],
      [suspended, 'suspended'],
    ] as const) {
      const phone = randomNumber();
      const res = await api('POST', '/v1/phone-numbers', { body: { phone_e164: phone, telephony_account_id: accountId } });
      expect(res.status, status).toBe(422);
      expect(res.body.detail).toEqual([
        {
          loc: ['body', 'telephony_account_id'],
          msg: expect.stringContaining(`The telephony account is ${status}`),
          type: 'account_not_verified',
          input: accountId,
        },
      ]);
      expect(await getNumberClaim(phone)).toBeUndefined();
    }
    expect((await api('GET', '/v1/phone-numbers')).body.data).toEqual([]);
  });

  it('E.164 bounds: 8 and 15 digits after the + are accepted, 7 and 16 refused', async () => {
    const { api, accountId } = await setup();
    const digits = (n: number) => `+4${Array.from({ length: n - 1 }, () => randomInt(0, 10)).join('')}`;
    for (const n of [8, 15]) {
      const phone = digits(n);
      const res = await api('POST', '/v1/phone-numbers', { body: { phone_e164: phone, telephony_account_id: accountId } });
      expect(res.status, `${n} digits`).toBe(200);
      expect(res.body).toMatchObject({ phone_e164: phone, status: 'active' });
    }
    for (const n of [7, 16]) {
      const res = await api('POST', '/v1/phone-numbers', { body: { phone_e164: digits(n), telephony_account_id: accountId } });
      expect(res.status, `${n} digits`).toBe(422);
      expect(locs(res.body)).toEqual(['body.phone_e164:string_pattern_mismatch']);
    }
    expect((await api('GET', '/v1/phone-numbers')).body.data).toHaveLength(2);
  });

  it('a member key may not buy numbers', async () => {
    const t = await newTenant();
    const admin = client(stack, t.token);
    const key = (await admin('POST', '/v1/api-keys', { body: { name: 'm', role: 'member' } })).body;
    const member = client(stack, key.secret);
    const res = await member('POST', '/v1/phone-numbers', { body: { phone_e164: randomNumber(), telephony_account_id: await mockAccount(admin) } });
    expect(res.status).toBe(403);
  });

  it('replays an Idempotency-Key without buying twice', async () => {
    const { api, accountId } = await setup();
    const body = { phone_e164: randomNumber(), telephony_account_id: accountId };
    const first = await api('POST', '/v1/phone-numbers', { body, headers: { 'idempotency-key': 'buy-1' } });
    const again = await api('POST', '/v1/phone-numbers', { body, headers: { 'idempotency-key': 'buy-1' } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await api('GET', '/v1/phone-numbers')).body.data).toHaveLength(1);
  });
});

describe('GET /v1/phone-numbers and PATCH', () => {
  it('lists newest first with filters on status, capabilities and account; another tenant sees nothing', async () => {
    const { api, accountId } = await setup();
    const secondAccount = await mockAccount(api);
    const voice = await activeNumber(api, { accountId });
    const both = await activeNumber(api, { accountId: secondAccount, capabilities: ['voice', 'sms'] });
    const ids = async (q: string) => (await api('GET', `/v1/phone-numbers${q}`)).body.data.map((n: { id: string }) => n.id);
    expect(await ids('')).toEqual([both.id, voice.id]);
    expect(await ids('?capabilities=sms')).toEqual([both.id]);
    expect(await ids('?capabilities=voice')).toEqual([both.id, voice.id]);
    expect(await ids(`?telephony_account_id=${accountId}`)).toEqual([voice.id]);
    expect(await ids('?status=provisioning')).toEqual([]);
    expect((await api('GET', '/v1/phone-numbers?capabilities.gte=sms')).status).toBe(422);
    const stranger = await setup();
    expect((await stranger.api('GET', `/v1/phone-numbers/${voice.id}`)).status).toBe(404);
    expect((await stranger.api('PATCH', `/v1/phone-numbers/${voice.id}`, { body: { daily_dial_cap: 5 } })).status).toBe(404);
  });

  it('sets a published inbound agent, voicemail with a greeting and the dial cap; refuses the policy route and unpublished agents', async () => {
    const { api } = await setup();
    const number = await activeNumber(api);
    const { agentId } = await publishedAgent(api);
    const draft = await draftAgent(api);

    const unpublished = await api('PATCH', `/v1/phone-numbers/${number.id}`, { body: { inbound_agent_id: draft } });
    expect(locs(unpublished.body)).toEqual(['body.inbound_agent_id:agent_not_published']);
    const policy = await api('PATCH', `/v1/phone-numbers/${number.id}`, { body: { inbound_route_mode: 'policy' } });
    expect(locs(policy.body)).toEqual(['body.inbound_route_mode:enum']);
    expect((await api('PATCH', `/v1/phone-numbers/${number.id}`, { body: {} })).status).toBe(422);

    const set = await api('PATCH', `/v1/phone-numbers/${number.id}`, { body: { inbound_agent_id: agentId, daily_dial_cap: 40 } });
    expect(set.body).toMatchObject({ inbound_agent_id: agentId, inbound_route_mode: 'agent', daily_dial_cap: 40 });
    const vm = await api('PATCH', `/v1/phone-numbers/${number.id}`, {
      body: { inbound_route_mode: 'voicemail', inbound_voicemail_greeting: 'Leave a message.', daily_dial_cap: null },
    });
    expect(vm.body).toMatchObject({
      inbound_agent_id: agentId,
      inbound_route_mode: 'voicemail',
      inbound_voicemail_greeting: 'Leave a message.',
      daily_dial_cap: null,
    });
    expect((await api('GET', `/v1/phone-numbers/${number.id}`)).body).toEqual(vm.body);
  });
});

describe('a number being provisioned', () => {
  it('refuses a PATCH with 409 and keeps its revision, so the activation after the carrier sale still succeeds', async () => {
    const { api, tenantId, accountId } = await setup();
    const pending = await claimPhoneNumber({
      tenantId,
      phoneE164: randomNumber(),
      telephonyAccountId: accountId,
      acquired: 'bought',
      capabilities: ['voice'],
      at: new Date(),
    });
    const patch = await api('PATCH', `/v1/phone-numbers/${pending.id}`, { body: { daily_dial_cap: 5 } });
    expect([patch.status, (patch.body as { error?: { code?: string } }).error?.code ?? (patch.body as { code?: string }).code]).toEqual([
      409,
      'phone_number_provisioning',
    ]);
    expect((await getPhoneNumber(tenantId, pending.id))!.revision).toBe(pending.revision);
    const active = await activatePhoneNumber(pending, `PN${'a'.repeat(32)}`, new Date());
    expect(active.status).toBe('active');
    expect((await api('PATCH', `/v1/phone-numbers/${pending.id}`, { body: { daily_dial_cap: 5 } })).body).toMatchObject({
      status: 'active',
      daily_dial_cap: 5,
    });
  });
});

describe('the sandbox carrier numbers resource speaks Twilio', () => {
  it('refuses unknown credentials (401 20003), another account (404 20404) and a held number (400 21422)', async () => {
    const creds = newSandboxCredentials();
    await putSandboxAccount(creds);
    const buy = (auth: string, sid: string, phone: string) =>
      client(stack)('POST', `/sandbox/twilio/2010-04-01/Accounts/${sid}/IncomingPhoneNumbers.json`, {
        form: { PhoneNumber: phone },
        headers: { authorization: auth },
      });
    const phone = randomNumber();
    const wrong = await buy(basic({ ...creds, auth_token: 'f'.repeat(32) }), creds.account_sid, phone);
    expect([wrong.status, wrong.body.code]).toEqual([401, 20003]);
    const other = await buy(basic(creds), `AC${'1'.repeat(32)}`, phone);
    expect([other.status, other.body.code]).toEqual([404, 20404]);
    expect((await buy(basic(creds), creds.account_sid, phone)).status).toBe(201);
    const held = await buy(basic(creds), creds.account_sid, phone);
    expect([held.status, held.body.code]).toEqual([400, 21422]);
    // A stranger's oversized fields are not validated before Basic auth: 401, as for any stranger.
    const stranger = await client(stack)('POST', `/sandbox/twilio/2010-04-01/Accounts/${'A'.repeat(300)}/IncomingPhoneNumbers.json`, {
      form: `PhoneNumber=${'9'.repeat(500)}&VoiceUrl=${'h'.repeat(5000)}`,
      headers: { authorization: basic({ ...creds, auth_token: 'f'.repeat(32) }) },
    });
    expect(stranger.status).toBe(401);
    const longUrl = await client(stack)('POST', `/sandbox/twilio/2010-04-01/Accounts/${creds.account_sid}/IncomingPhoneNumbers.json`, {
      form: { PhoneNumber: randomNumber(), VoiceUrl: `https://x.test/${'h'.repeat(5000)}` },
      headers: { authorization: basic(creds) },
    });
    expect([longUrl.status, longUrl.body.code]).toEqual([400, 21402]);
    const json = await client(stack)('POST', `/sandbox/twilio/2010-04-01/Accounts/${creds.account_sid}/IncomingPhoneNumbers.json`, {
      body: {},
      headers: { authorization: basic(creds) },
    });
    expect(json.status).toBe(415);
  });
});
