import { captureLogs } from '../support/log-capture.js';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newSandboxCredentials, putSandboxAccount } from '../../shared/sandbox/accounts.js';
import { useTestStack } from '../support/stack.js';
import { client, newTenant } from './client.js';

const stack = useTestStack({ workers: false });

const logs = captureLogs();

const issued: string[] = [];
async function sandboxCredentials(status: 'active' | 'suspended' | 'closed' = 'active') {
  const creds = newSandboxCredentials();
  issued.push(creds.auth_token);
  await putSandboxAccount(creds, { status });
  return creds;
}
const SANS = [{ san: 'SAN-1234', area_codes: ['415', '212'] }];

describe('telephony accounts', () => {
  it('a byo twilio account stores its credentials sealed and renders none of them', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const creds = await sandboxCredentials();
    const res = await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: creds, ftc_san_refs: SANS, a2p_brand_ref: 'BN123' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^tac_/),
      mode: 'byo',
      provider: 'twilio',
      credentials_stored: true,
      cps_limit: null,
      a2p_brand_ref: 'BN123',
      ftc_san_refs: SANS,
      verification_status: 'pending',
      verified_at: null,
      telephony_minutes_metered: false,
      created_at: expect.any(String),
    });
    const reads = [res, await api('GET', `/v1/telephony-accounts/${res.body.id}`), await api('GET', '/v1/telephony-accounts')];
    for (const r of reads) {
      const text = JSON.stringify(r.body);
      expect(text).not.toContain(creds.auth_token);
      expect(text).not.toContain(creds.account_sid);
    }
    expect(reads[2]!.body.data.map((a: { id: string }) => a.id)).toEqual([res.body.id]);
  });

  it.each([
    ['byo twilio without credentials', { mode: 'byo', provider: 'twilio' }, ['body', 'credentials'], 'missing'],
    ['managed twilio with credentials', { mode: 'managed', provider: 'twilio', credentials: 'x' }, ['body', 'credentials'], 'credentials_not_allowed'],
    ['mock with credentials', { mode: 'byo', provider: 'mock', credentials: 'x' }, ['body', 'credentials'], 'credentials_not_allowed'],
    ['a malformed account SID', { mode: 'byo', provider: 'twilio', credentials: { account_sid: 'AC123', auth_token: 'f'.repeat(32) } }, ['body', 'credentials', 'account_sid'], 'string_pattern_mismatch'],
    ['an unknown credentials key', { mode: 'byo', provider: 'twilio', credentials: { account_sid: `AC${'a'.repeat(32)}`, auth_token: 'f'.repeat(32), api_key: 'x' } }, ['body', 'credentials', 'api_key'], 'extra_forbidden'],
    ['a two-digit area code', { mode: 'managed', provider: 'mock', ftc_san_refs: [{ san: 'S', area_codes: ['41'] }] }, ['body', 'ftc_san_refs', 0, 'area_codes', 0], 'string_pattern_mismatch'],
    ['a repeated area code', { mode: 'managed', provider: 'mock', ftc_san_refs: [{ san: 'S', area_codes: ['415', '415'] }] }, ['body', 'ftc_san_refs', 0, 'area_codes'], 'list_unique'],
    ['an unknown provider', { mode: 'byo', provider: 'vonage' }, ['body', 'provider'], 'enum'],
  ])('%s → 422 at its loc, nothing stored', async (_name, body, loc, type) => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const withCreds = (body as { credentials?: unknown }).credentials === 'x' ? { ...body, credentials: newSandboxCredentials() } : body;
    const res = await api('POST', '/v1/telephony-accounts', { body: withCreds });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    expect((await api('GET', '/v1/telephony-accounts')).body.data).toEqual([]);
  });

  it('only admins create, list and change accounts; managers may verify; members only read', async () => {
    const t = await newTenant();
    const admin = client(stack, t.token);
    const account = (await admin('POST', '/v1/telephony-accounts', { body: { mode: 'managed', provider: 'mock' } })).body;
    for (const role of ['manager', 'member'] as const) {
      const key = (await admin('POST', '/v1/api-keys', { body: { name: role, role } })).body.secret;
      const api = client(stack, key);
      expect((await api('POST', '/v1/telephony-accounts', { body: { mode: 'managed', provider: 'mock' } })).status).toBe(403);
      expect((await api('GET', '/v1/telephony-accounts')).status).toBe(403);
      expect((await api('PATCH', `/v1/telephony-accounts/${account.id}`, { body: { a2p_brand_ref: 'x' } })).status).toBe(403);
      expect((await api('GET', `/v1/telephony-accounts/${account.id}`)).status).toBe(200);
      expect((await api('POST', `/v1/telephony-accounts/${account.id}/verify`)).status).toBe(role === 'manager' ? 200 : 403);
    }
  });
});

describe('verify', () => {
  it('proves byo credentials with the carrier: verified with the documented default cps; a wrong token fails; a suspended or closed account is suspended', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const create = async (credentials: { account_sid: string; auth_token: string }) =>
      (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials } })).body.id as string;

    const good = await create(await sandboxCredentials());
    const verified = await api('POST', `/v1/telephony-accounts/${good}/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ verification_status: 'verified', cps_limit: 1 });
    expect(Date.parse(verified.body.verified_at)).toBeGreaterThan(Date.now() - 60_000);

    const real = await sandboxCredentials();
    const wrong = await create({ account_sid: real.account_sid, auth_token: 'f'.repeat(32) });
    expect((await api('POST', `/v1/telephony-accounts/${wrong}/verify`)).body).toMatchObject({ verification_status: 'failed', verified_at: null, cps_limit: null });

    for (const status of ['suspended', 'closed'] as const) {
      const id = await create(await sandboxCredentials(status));
      expect((await api('POST', `/v1/telephony-accounts/${id}/verify`)).body).toMatchObject({ verification_status: 'suspended', verified_at: null });
    }
  });

  it("mock accounts are mock_verified; managed twilio accounts verify against the platform's carrier account", async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const mock = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'mock' } })).body;
    expect((await api('POST', `/v1/telephony-accounts/${mock.id}/verify`)).body).toMatchObject({ verification_status: 'mock_verified', credentials_stored: false });
    const managed = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'managed', provider: 'twilio' } })).body;
    expect(managed).toMatchObject({ credentials_stored: false, telephony_minutes_metered: true });
    expect((await api('POST', `/v1/telephony-accounts/${managed.id}/verify`)).body).toMatchObject({ verification_status: 'verified', cps_limit: 1 });
  });

  it('a carrier that cannot be reached leaves the account as it was and answers 503 carrier_unreachable', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const id = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: await sandboxCredentials() } })).body.id;
    const before = (await api('GET', `/v1/telephony-accounts/${id}`)).body;
    const saved = process.env.TWILIO_API_BASE_URL;
    process.env.TWILIO_API_BASE_URL = 'http://127.0.0.1:9'; // discard port: nothing listens
    try {
      const res = await api('POST', `/v1/telephony-accounts/${id}/verify`, { allowServerError: true });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('carrier_unreachable');
    } finally {
      process.env.TWILIO_API_BASE_URL = saved;
    }
    expect((await api('GET', `/v1/telephony-accounts/${id}`)).body).toEqual(before);
  });

  it('replays an Idempotency-Key without asking the carrier again', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const id = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: await sandboxCredentials() } })).body.id;
    const key = randomUUID();
    const first = await api('POST', `/v1/telephony-accounts/${id}/verify`, { headers: { 'idempotency-key': key } });
    const again = await api('POST', `/v1/telephony-accounts/${id}/verify`, { headers: { 'idempotency-key': key } });
    expect(again.headers.get('idempotent-replay')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('changes and the inbound webhook', () => {
  it('new credentials return the account to pending; credentials on a mock account are refused', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const id = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: await sandboxCredentials() } })).body.id;
    await api('POST', `/v1/telephony-accounts/${id}/verify`);
    const patched = await api('PATCH', `/v1/telephony-accounts/${id}`, { body: { credentials: await sandboxCredentials(), ftc_san_refs: SANS } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ verification_status: 'pending', verified_at: null, cps_limit: null, ftc_san_refs: SANS });
    expect((await api('POST', `/v1/telephony-accounts/${id}/verify`)).body.verification_status).toBe('verified');

    const mock = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'mock' } })).body.id;
    const refused = await api('PATCH', `/v1/telephony-accounts/${mock}`, { body: { credentials: newSandboxCredentials() } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'credentials'], type: 'credentials_not_allowed' });
    expect((await api('PATCH', `/v1/telephony-accounts/${mock}`, { body: {} })).status).toBe(422);
  });

  it('publishes the carrier URLs only for a verified byo account', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const byo = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: await sandboxCredentials() } })).body.id;
    const managed = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'managed', provider: 'twilio' } })).body.id;
    const mock = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'mock' } })).body.id;
    expect((await api('GET', `/v1/telephony-accounts/${byo}/inbound-voice-webhook`)).status).toBe(404);
    for (const id of [byo, managed, mock]) await api('POST', `/v1/telephony-accounts/${id}/verify`);
    expect((await api('GET', `/v1/telephony-accounts/${byo}/inbound-voice-webhook`)).body).toEqual({
      url: `${stack.baseUrl}/carrier/twilio/voice`,
      status_callback_url: `${stack.baseUrl}/carrier/twilio/status`,
    });
    for (const id of [managed, mock]) expect((await api('GET', `/v1/telephony-accounts/${id}/inbound-voice-webhook`)).status).toBe(404);
  });

  it("another tenant's account is a 404 on every by-id route", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const id = (await client(stack, a.token)('POST', '/v1/telephony-accounts', { body: { mode: 'managed', provider: 'mock' } })).body.id;
    const other = client(stack, b.token);
    for (const [method, path, body] of [
      ['GET', `/v1/telephony-accounts/${id}`],
      ['PATCH', `/v1/telephony-accounts/${id}`, { a2p_brand_ref: 'x' }],
      ['POST', `/v1/telephony-accounts/${id}/verify`],
      ['GET', `/v1/telephony-accounts/${id}/inbound-voice-webhook`],
    ] as const) {
      const res = await other(method, path, body ? { body } : {});
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });
});

describe('the sandbox carrier speaks Twilio', () => {
  const fetchAccount = (sid: string, auth?: string) =>
    client(stack)('GET', `/sandbox/twilio/2010-04-01/Accounts/${sid}.json`, { headers: auth ? { authorization: `Basic ${Buffer.from(auth).toString('base64')}` } : {} });

  it("answers the account resource in Twilio's shape to its own credentials, 401 code 20003 otherwise", async () => {
    const creds = await sandboxCredentials();
    const ok = await fetchAccount(creds.account_sid, `${creds.account_sid}:${creds.auth_token}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ sid: creds.account_sid, status: 'active', type: 'Full', date_created: expect.stringMatching(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} \+0000$/) });
    for (const auth of [undefined, `${creds.account_sid}:${'0'.repeat(32)}`, `${newSandboxCredentials().account_sid}:${creds.auth_token}`]) {
      const res = await fetchAccount(creds.account_sid, auth);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
    }
    const other = await sandboxCredentials();
    expect((await fetchAccount(other.account_sid, `${creds.account_sid}:${creds.auth_token}`)).status).toBe(404);
  });
});

describe('secrets never reach the logs', () => {
  it('carrier credentials and sandbox tokens are absent from every log line', async () => {
    expect(logs.requests('verifyTelephonyAccount')).toBeGreaterThan(5); // every request's line, not only the first
    const text = logs.text();
    const secrets = JSON.parse(stack.env.APP_SECRETS_JSON!);
    expect(text).not.toContain(secrets.platform_twilio_auth_token);
    expect(issued.length).toBeGreaterThan(10);
    for (const token of issued) expect(text).not.toContain(token);
    expect(text).not.toContain(stack.env.CREDENTIALS_KEY ?? 'no-inline-key');
  });
});
