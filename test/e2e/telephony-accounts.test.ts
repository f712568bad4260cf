import '../support/debug-log-level.js';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { open } from '../../shared/crypto/secret-box.js';
import { db, tableName } from '../../shared/db/client.js';
import { keys, platformKeys } from '../../shared/db/keys.js';
import { getTelephonyAccount, openCredentials, openSandboxCredentials } from '../../shared/repositories/telephony-accounts.js';
import { newSandboxCredentials, putSandboxAccount } from '../../shared/sandbox/accounts.js';
import { VERIFY_CLAIM_MS } from '../../shared/telephony/verify-account.js';
import { captureLogs } from '../support/log-capture.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { type ApiResponse, client, newTenant } from './client.js';

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
    const res = await api('POST', '/v1/telephony-accounts', {
      body: { mode: 'byo', provider: 'twilio', credentials: creds, ftc_san_refs: SANS, a2p_brand_ref: 'BN123' },
    });
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
    [
      'a malformed account SID',
      { mode: 'byo', provider: 'twilio', credentials: { account_sid: 'AC123', auth_token: 'f'.repeat(32) } },
      ['body', 'credentials', 'account_sid'],
      'string_pattern_mismatch',
    ],
    [
      'an unknown credentials key',
      { mode: 'byo', provider: 'twilio', credentials: { account_sid: `AC${'a'.repeat(32)}`, auth_token: 'f'.repeat(32), api_key: 'x' } },
      ['body', 'credentials', 'api_key'],
      'extra_forbidden',
    ],
    [
      'a two-digit area code',
      { mode: 'managed', provider: 'mock', ftc_san_refs: [{ san: 'S', area_codes: ['41'] }] },
      ['body', 'ftc_san_refs', 0, 'area_codes', 0],
      'string_pattern_mismatch',
    ],
    [
      'a repeated area code',
      { mode: 'managed', provider: 'mock', ftc_san_refs: [{ san: 'S', area_codes: ['415', '415'] }] },
      ['body', 'ftc_san_refs', 0, 'area_codes'],
      'list_unique',
    ],
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

  it('only admins create and change accounts; managers read and verify them; members may not even read them', async () => {
    const t = await newTenant();
    const admin = client(stack, t.token);
    const account = (await admin('POST', '/v1/telephony-accounts', { body: { mode: 'managed', provider: 'mock' } })).body;
    for (const role of ['manager', 'member'] as const) {
      const key = (await admin('POST', '/v1/api-keys', { body: { name: role, role } })).body.secret;
      const api = client(stack, key);
      expect((await api('POST', '/v1/telephony-accounts', { body: { mode: 'managed', provider: 'mock' } })).status).toBe(403);
      expect((await api('PATCH', `/v1/telephony-accounts/${account.id}`, { body: { a2p_brand_ref: 'x' } })).status).toBe(403);
      const reads = ['', `/${account.id}`, `/${account.id}/inbound-voice-webhook`, `/${account.id}/inbound-messaging-webhook`];
      for (const read of reads) {
        const status = (await api('GET', `/v1/telephony-accounts${read}`)).status;
        if (role === 'member') expect(status, `member GET ${read}`).toBe(403);
        else expect(status, `manager GET ${read}`).not.toBe(403);
      }
      expect((await api('GET', `/v1/telephony-accounts/${account.id}`)).status).toBe(role === 'manager' ? 200 : 403);
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
    expect((await api('POST', `/v1/telephony-accounts/${wrong}/verify`)).body).toMatchObject({
      verification_status: 'failed',
      verified_at: null,
      cps_limit: null,
    });

    for (const status of ['suspended', 'closed'] as const) {
      const id = await create(await sandboxCredentials(status));
      expect((await api('POST', `/v1/telephony-accounts/${id}/verify`)).body).toMatchObject({ verification_status: 'suspended', verified_at: null });
    }
  });

  it("mock accounts are mock_verified; managed twilio accounts verify against the platform's carrier account", async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const mock = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'mock' } })).body;
    expect((await api('POST', `/v1/telephony-accounts/${mock.id}/verify`)).body).toMatchObject({
      verification_status: 'mock_verified',
      credentials_stored: false,
    });
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

  describe('a carrier that answers with a failure of its own (a stand-in for Twilio, at TWILIO_API_BASE_URL)', () => {
    /** An HTTP server answering every request with `reply` (once `gate` resolves, if given); records what it was asked. */
    async function standIn(reply: { status: number; type?: string; body: string }, gate?: Promise<void>) {
      const asked: { method?: string; url?: string; authorization?: string }[] = [];
      const server = createServer((req, res) => {
        asked.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
        void (gate ?? Promise.resolve()).then(() => res.writeHead(reply.status, { 'content-type': reply.type ?? 'application/json' }).end(reply.body));
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      const { port } = server.address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}`, asked, close: () => new Promise<void>((done) => server.close(() => done())) };
    }
    async function verifyAgainst(reply: { status: number; type?: string; body: string }) {
      const t = await newTenant();
      const api = client(stack, t.token);
      const creds = await sandboxCredentials();
      const id = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: creds } })).body.id as string;
      const before = (await api('GET', `/v1/telephony-accounts/${id}`)).body;
      const carrier = await standIn(reply);
      const saved = process.env.TWILIO_API_BASE_URL;
      process.env.TWILIO_API_BASE_URL = carrier.url;
      let res: ApiResponse;
      try {
        res = await api('POST', `/v1/telephony-accounts/${id}/verify`, { allowServerError: true });
      } finally {
        process.env.TWILIO_API_BASE_URL = saved;
        await carrier.close();
      }
      // The stand-in was asked exactly what Twilio would be: the account resource, with the account's Basic auth.
      expect(carrier.asked).toEqual([
        {
          method: 'GET',
          url: `/2010-04-01/Accounts/${creds.account_sid}.json`,
          authorization: `Basic ${Buffer.from(`${creds.account_sid}:${creds.auth_token}`).toString('base64')}`,
        },
      ]);
      return { api, id, before, res };
    }
    const twilioError = JSON.stringify({ code: 20500, message: 'Internal Server Error', more_info: 'https://www.twilio.com/docs/errors/20500', status: 500 });

    it.each([
      ['a 500', { status: 500, body: twilioError }],
      ['a 503', { status: 503, body: JSON.stringify({ code: 20503, message: 'Service Unavailable', status: 503 }) }],
      ['a 429', { status: 429, body: JSON.stringify({ code: 20429, message: 'Too Many Requests', status: 429 }) }],
      ['an account status Twilio does not document', { status: 200, body: JSON.stringify({ sid: `AC${'0'.repeat(32)}`, status: 'frozen', type: 'Full' }) }],
      ['an account resource without a status', { status: 200, body: JSON.stringify({ sid: `AC${'0'.repeat(32)}`, type: 'Full' }) }],
      ['a 200 that is not JSON (a proxy’s page)', { status: 200, type: 'text/html', body: '<html><body>Maintenance</body></html>' }],
    ])('%s → 502 carrier_error; the account is as it was and verifies once the carrier is back', async (_name, reply) => {
      const { api, id, before, res } = await verifyAgainst(reply);
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ code: 'carrier_error', detail: expect.stringContaining('the account is unchanged') });
      expect((await api('GET', `/v1/telephony-accounts/${id}`)).body).toEqual(before);
      // Not left claimed as `verifying`: the next verify, against the (sandbox) carrier, goes through.
      expect((await api('POST', `/v1/telephony-accounts/${id}/verify`)).body).toMatchObject({ verification_status: 'verified', cps_limit: 1 });
    });

    it('a verify while another is asking the carrier → 409 verification_in_progress without asking again; the first one settles the account', async () => {
      const t = await newTenant();
      const api = client(stack, t.token);
      const creds = await sandboxCredentials();
      const id = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: creds } })).body.id as string;
      let release: () => void = () => {};
      const carrier = await standIn(
        { status: 200, body: JSON.stringify({ sid: creds.account_sid, status: 'active', type: 'Full' }) },
        new Promise<void>((r) => (release = r)),
      );
      const saved = process.env.TWILIO_API_BASE_URL;
      process.env.TWILIO_API_BASE_URL = carrier.url;
      try {
        const first = api('POST', `/v1/telephony-accounts/${id}/verify`);
        await waitFor(() => carrier.asked.length === 1, { message: 'the first verify asks the carrier' });
        expect((await api('GET', `/v1/telephony-accounts/${id}`)).body.verification_status).toBe('verifying');
        const second = await api('POST', `/v1/telephony-accounts/${id}/verify`);
        expect(second.status).toBe(409);
        expect(second.body.code).toBe('verification_in_progress');
        expect(carrier.asked).toHaveLength(1);
        release();
        expect((await first).body).toMatchObject({ verification_status: 'verified', cps_limit: 1 });
      } finally {
        release();
        process.env.TWILIO_API_BASE_URL = saved;
        await carrier.close();
      }
      expect((await api('GET', `/v1/telephony-accounts/${id}`)).body.verification_status).toBe('verified');
    });

    it('a claim left by a crashed verify lapses after VERIFY_CLAIM_MS: younger → 409, older → taken over', async () => {
      const t = await newTenant();
      const api = client(stack, t.token);
      const id = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: await sandboxCredentials() } })).body
        .id as string;
      const claimAt = (ageMs: number) =>
        db().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.telephonyAccount(t.tenantId, id),
            UpdateExpression: 'SET verification_status = :v, updated_at = :u',
            ExpressionAttributeValues: { ':v': 'verifying', ':u': new Date(Date.now() - ageMs).toISOString() },
          }),
        );
      await claimAt(VERIFY_CLAIM_MS - 10_000);
      expect((await api('POST', `/v1/telephony-accounts/${id}/verify`)).body.code).toBe('verification_in_progress');
      await claimAt(VERIFY_CLAIM_MS + 1_000);
      expect((await api('POST', `/v1/telephony-accounts/${id}/verify`)).body).toMatchObject({ verification_status: 'verified' });
    });

    it("cps_limit is Twilio's documented default: the account resource has no calls-per-second field, and a field of that name is not believed", async () => {
      const { res } = await verifyAgainst({ status: 200, body: JSON.stringify({ sid: `AC${'0'.repeat(32)}`, status: 'active', type: 'Full', cps_limit: 50 }) });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ verification_status: 'verified', cps_limit: 1 });
    });
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
    client(stack)('GET', `/sandbox/twilio/2010-04-01/Accounts/${sid}.json`, {
      headers: auth ? { authorization: `Basic ${Buffer.from(auth).toString('base64')}` } : {},
    });

  it("answers the account resource in Twilio's shape to its own credentials, 401 code 20003 otherwise", async () => {
    const creds = await sandboxCredentials();
    const ok = await fetchAccount(creds.account_sid, `${creds.account_sid}:${creds.auth_token}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      sid: creds.account_sid,
      status: 'active',
      type: 'Full',
      date_created: expect.stringMatching(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} \+0000$/),
    });
    for (const auth of [undefined, `${creds.account_sid}:${'0'.repeat(32)}`, `${newSandboxCredentials().account_sid}:${creds.auth_token}`]) {
      const res = await fetchAccount(creds.account_sid, auth);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
    }
    const other = await sandboxCredentials();
    expect((await fetchAccount(other.account_sid, `${creds.account_sid}:${creds.auth_token}`)).status).toBe(404);
  });
});

describe('credentials at rest', () => {
  /** Every form a secret could be written in: as is, hex, base64 and base64url at each of the three byte alignments. */
  function encodings(secret: string): string[] {
    const bytes = Buffer.from(secret, 'utf8');
    const forms = new Set([secret, bytes.toString('hex'), bytes.toString('hex').toUpperCase()]);
    for (const pad of [0, 1, 2]) {
      const shifted = Buffer.concat([Buffer.alloc(pad), bytes]);
      for (const enc of ['base64', 'base64url'] as const) {
        // Drop the characters that also depend on neighbouring bytes; what is left appears wherever these bytes are encoded at this alignment.
        const text = shifted.toString(enc).replace(/=+$/, '');
        forms.add(text.slice(Math.ceil((pad * 4) / 3) + 1, -2));
      }
    }
    return [...forms].filter((f) => f.length >= 16);
  }
  /** The item exactly as DynamoDB Local holds it, binary attributes base64. */
  const rawItem = async (key: { pk: string; sk: string }) => {
    const out = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    expect(out.Item).toBeDefined();
    return { item: out.Item!, text: JSON.stringify(out.Item, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v)) };
  };
  async function wholeTable(): Promise<string> {
    const parts: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await db().send(new ScanCommand({ TableName: tableName(), ConsistentRead: true, ExclusiveStartKey: start }));
      parts.push(...(page.Items ?? []).map((i) => JSON.stringify(i, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v))));
      start = page.LastEvaluatedKey;
    } while (start);
    return parts.join('\n');
  }

  it('the encodings helper finds a secret however it is encoded (so the checks below can fail)', () => {
    const token = 'ab'.repeat(16);
    const doc = JSON.stringify({ credentials: { account_sid: `AC${'1'.repeat(32)}`, auth_token: token } });
    const stored = [
      doc,
      Buffer.from(doc).toString('base64'),
      Buffer.from(`x${doc}`).toString('base64url'),
      Buffer.from(`xy${doc}`).toString('base64'),
      Buffer.from(doc).toString('hex'),
    ];
    for (const text of stored)
      expect(
        encodings(token).some((f) => text.includes(f)),
        text.slice(0, 30),
      ).toBe(true);
  });

  it('a byo account item holds only the sealed credentials: no auth token in any encoding, and the seal opens only under its own tenant and account', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const creds = await sandboxCredentials();
    const id = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: creds } })).body.id as string;
    expect((await api('POST', `/v1/telephony-accounts/${id}/verify`)).body.verification_status).toBe('verified');

    const { item, text } = await rawItem(keys.telephonyAccount(t.tenantId, id));
    expect(item.credentials_sealed).toMatch(/^v1\.local\./);
    for (const form of [...encodings(creds.auth_token), ...encodings(JSON.stringify(creds)), ...encodings(`${creds.account_sid}:${creds.auth_token}`)])
      expect(text).not.toContain(form);
    expect(Object.keys(item).filter((k) => /token|secret|password|credential/i.test(k) && item[k] !== null)).toEqual(['credentials_sealed']);
    // The sandbox carrier's own item for that SID keeps the token sealed too.
    const sandboxItem = await rawItem(platformKeys.sandboxAccount(creds.account_sid));
    expect(sandboxItem.item.auth_token_sealed).toMatch(/^v1\.local\./);
    for (const form of encodings(creds.auth_token)) expect(sandboxItem.text).not.toContain(form);
    // Nowhere in the table at all.
    const everything = await wholeTable();
    for (const form of encodings(creds.auth_token)) expect(everything).not.toContain(form);

    // It opens under its own context (the control) and under no other.
    const account = (await getTelephonyAccount(t.tenantId, id))!;
    expect(await openCredentials(account)).toEqual(creds);
    const other = await newTenant();
    const otherId = (
      await client(stack, other.token)('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: await sandboxCredentials() } })
    ).body.id as string;
    const otherAccount = (await getTelephonyAccount(other.tenantId, otherId))!;
    const sealed = item.credentials_sealed as string;
    await expect(openCredentials({ ...otherAccount, credentials_sealed: sealed })).rejects.toThrow(); // copied to another tenant's account
    const sameTenant = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: await sandboxCredentials() } }))
      .body.id as string;
    await expect(openCredentials({ ...(await getTelephonyAccount(t.tenantId, sameTenant))!, credentials_sealed: sealed })).rejects.toThrow(); // another account of the same tenant
    await expect(open(sealed, { purpose: 'sandbox_credentials', tenant_id: t.tenantId, account_id: id })).rejects.toThrow(); // another purpose
    const [v, kind, iv, tag, ct] = sealed.split('.');
    const flipped = Buffer.from(ct!, 'base64url');
    flipped[0]! ^= 1;
    await expect(openCredentials({ ...account, credentials_sealed: [v, kind, iv, tag, flipped.toString('base64url')].join('.') })).rejects.toThrow(); // tampered

    // Copied into another tenant's item in the table, the copy is useless to that tenant: verify fails closed and says nothing.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.telephonyAccount(other.tenantId, otherId),
        UpdateExpression: 'SET credentials_sealed = :s',
        ExpressionAttributeValues: { ':s': sealed },
      }),
    );
    const stolen = await client(stack, other.token)('POST', `/v1/telephony-accounts/${otherId}/verify`, { allowServerError: true });
    expect(stolen.status).toBe(500);
    expect(JSON.stringify(stolen.body)).not.toContain(creds.account_sid);
    expect((await getTelephonyAccount(other.tenantId, otherId))!.verification_status).toBe('pending');
  });

  it("a mock account's sandbox credentials are sealed the same way, under their own purpose", async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const id = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'mock' } })).body.id as string;
    const account = (await getTelephonyAccount(t.tenantId, id))!;
    const creds = (await openSandboxCredentials(account))!;
    issued.push(creds.auth_token);
    const { item, text } = await rawItem(keys.telephonyAccount(t.tenantId, id));
    expect(item.sandbox_credentials_sealed).toMatch(/^v1\.local\./);
    for (const form of encodings(creds.auth_token)) expect(text).not.toContain(form);
    await expect(open(item.sandbox_credentials_sealed as string, { purpose: 'carrier_credentials', tenant_id: t.tenantId, account_id: id })).rejects.toThrow();
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
