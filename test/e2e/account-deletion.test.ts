/**
 * Issue 16 end to end: dashboard sessions, the cookie/bearer split, CSRF, password parity and
 * throttling, one-use emailed tokens, and the deletion worker with a crash half-way.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { verify } from '@node-rs/argon2';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as accountDeletionsWorker } from '../../functions/workers/account-deletions.js';
import { runDueDeletions } from '../../shared/accounts/delete-tenant.js';
import { isRetained, numberHash, suppressionHashKey } from '../../shared/accounts/retention.js';
import { createApiKey, createTenant, createUser } from '../../shared/admin/bootstrap.js';
import { jobs } from '../../shared/admin/jobs.js';
import { setPasswordAction, verifyEmailAction } from '../../shared/admin/users.js';
import { hashPassword } from '../../shared/auth/passwords.js';
import { now } from '../../shared/clock.js';
import { db, tableName } from '../../shared/db/client.js';
import { belongsToTenant, campaignKeys, platformKeys } from '../../shared/db/keys.js';
import { lastMail, sendMail, tokenInMail } from '../../shared/mail/mailer.js';
import { cancelDeletion, confirmDeletion, getDeletionRequest } from '../../shared/repositories/account-deletion.js';
import { listTenantEvents } from '../../shared/repositories/outbox-events.js';
import { getTelephonyAccount, openSandboxCredentials } from '../../shared/repositories/telephony-accounts.js';
import { getTenant } from '../../shared/repositories/tenants.js';
import { type RouteDefinition, routes } from '../../shared/routes.js';
import { newSandboxCredentials, putSandboxAccount } from '../../shared/sandbox/accounts.js';
import { planSandboxMessage, putSandboxMessage } from '../../shared/sandbox/messages.js';
import { getSandboxNumber } from '../../shared/sandbox/numbers.js';
import { appSecrets } from '../../shared/secrets.js';
import { requestEmailLink } from '../../shared/sessions/email-link.js';
import { createSession } from '../../shared/sessions/session-cookie.js';
import { signInWithPassword } from '../../shared/sessions/sign-in.js';
import { useTestStack } from '../support/stack.js';
import { ALLOWED_AT, callWorld, newContact, QUIET_AT, queue, resetClock, setClock, storedCall } from './call-fixtures.js';
import { importList, newCampaign, poolOf } from './campaign-fixtures.js';
import { client } from './client.js';
import { randomNumber } from './telephony-fixtures.js';

const stack = useTestStack({ workers: false });
const PASSWORD = 'correct horse battery staple';
const COOKIE = '__Host-vac_session';

afterEach(() => resetClock());

const uniqueEmail = (who = 'owner') => `${who}+${Math.random().toString(36).slice(2)}@acme.test`;

async function passwordAccount(name = `Acme ${Math.random().toString(36).slice(2, 6)}`) {
  const email = uniqueEmail();
  const t = await createTenant({ name, adminEmail: email });
  await setPasswordAction({ tenantId: t.tenant_id, userId: t.user_id, password: PASSWORD });
  return { tenantId: t.tenant_id, userId: t.user_id, email, name, key: t.api_key.secret };
}

async function passwordlessAccount() {
  const email = uniqueEmail('nopass');
  const name = `Beta ${Math.random().toString(36).slice(2, 6)}`;
  const t = await createTenant({ name, adminEmail: email });
  await verifyEmailAction({ tenantId: t.tenant_id, userId: t.user_id });
  return { tenantId: t.tenant_id, userId: t.user_id, email, name, key: t.api_key.secret };
}

const origin = () => stack.baseUrl;
const anon = () => client(stack);
/** A cookie-authenticated caller from the dashboard (Origin set unless overridden). */
const dashboard =
  (cookie: string, headers: Record<string, string> = {}) =>
  (method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) =>
    client(stack)(method, path, {
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      headers: { cookie: `${COOKIE}=${cookie}`, origin: origin(), ...headers, ...opts.headers },
    });

async function signIn(email: string, password = PASSWORD) {
  const res = await anon()('POST', '/v1/sessions', { body: { email, password }, headers: { origin: origin() } });
  return res;
}
const cookieOf = (res: { headers: Headers }) => /^__Host-vac_session=([^;]+);/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';

async function signedIn(email: string) {
  const res = await signIn(email);
  expect(res.status).toBe(204);
  return cookieOf(res);
}

/**
 * Times `known(i)` and `unknown(i)` back to back `tries` times (alternating which goes first,
 * so both run under the same load) and `yardstick(i)` beside them. The gap is the median of
 * three blocks' medians of the paired differences known − unknown: pairs are robust to the
 * machine's load drifting, and a burst of load elsewhere sways one block at most.
 */
async function pairedTiming(
  tries: number,
  known: (i: number) => Promise<unknown>,
  unknown: (i: number) => Promise<unknown>,
  yardstick: (i: number) => Promise<unknown>,
) {
  const clock = async (work: () => Promise<unknown>) => {
    const t = performance.now();
    await work();
    return performance.now() - t;
  };
  const knownTimes: number[] = [];
  const unknownTimes: number[] = [];
  const yardstickTimes: number[] = [];
  for (let i = 0; i < tries; i++) {
    if (i % 2 === 0) {
      knownTimes.push(await clock(() => known(i)));
      unknownTimes.push(await clock(() => unknown(i)));
    } else {
      unknownTimes.push(await clock(() => unknown(i)));
      knownTimes.push(await clock(() => known(i)));
    }
    yardstickTimes.push(await clock(() => yardstick(i)));
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const pairs = knownTimes.map((k, i) => k - unknownTimes[i]!);
  const third = tries / 3;
  return {
    gap: median([0, 1, 2].map((b) => median(pairs.slice(b * third, (b + 1) * third)))),
    yardstick: median(yardstickTimes),
    known: median(knownTimes),
    unknown: median(unknownTimes),
  };
}

describe('dashboard sessions', () => {
  it('signs in with a __Host- cookie: Secure, HttpOnly, SameSite=Strict, Path=/, no Domain, an opaque 256-bit id', async () => {
    const a = await passwordAccount();
    const res = await signIn(a.email);
    expect(res.status).toBe(204);
    const header = res.headers.get('set-cookie')!;
    expect(header).toMatch(/^__Host-vac_session=vas_[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; Secure; HttpOnly; SameSite=Strict$/);
    // The cookie is only an opaque secret: no tenant or user id in it.
    expect(cookieOf(res)).not.toContain(a.tenantId);
    expect(cookieOf(res)).not.toContain(a.userId);
    expect(cookieOf(res)).not.toContain('ten_');
    expect(header).not.toMatch(/Domain=/i);
    const overview = await dashboard(cookieOf(res))('GET', '/v1/account-deletion');
    expect(overview.status).toBe(200);
    expect(overview.body).toMatchObject({
      object: 'account_deletion',
      tenant: { id: a.tenantId, name: a.name },
      request: { status: 'none' },
      grace_period_days: 14,
      confirmation_phrase: `delete ${a.name}`,
      impact: { contacts: 0, open_invoices: 0 },
    });
    // The table holds the hash, never the cookie's secret.
    const scan = await db().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#t = :s',
        ExpressionAttributeNames: { '#t': 'type' },
        ExpressionAttributeValues: { ':s': 'session' },
      }),
    );
    expect(JSON.stringify(scan.Items)).not.toContain(cookieOf(res).slice('vas_'.length));
  });

  it('signing out revokes the session: the same cookie is refused afterwards', async () => {
    const a = await passwordAccount();
    const cookie = await signedIn(a.email);
    const out = await dashboard(cookie)('DELETE', '/v1/sessions');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^__Host-vac_session=; Max-Age=0;/);
    expect((await dashboard(cookie)('GET', '/v1/account-deletion')).status).toBe(401);
  });

  it('expires after 30 idle minutes and after 12 hours whatever the use', async () => {
    const a = await passwordAccount();
    const cookie = await signedIn(a.email);
    const t0 = Date.now();
    setClock(t0 + 29 * 60_000);
    expect((await dashboard(cookie)('GET', '/v1/account-deletion')).status).toBe(200);
    setClock(t0 + 58 * 60_000); // 29 minutes after the last use: still alive (the use slid it)
    expect((await dashboard(cookie)('GET', '/v1/account-deletion')).status).toBe(200);
    setClock(t0 + 90 * 60_000); // 32 idle minutes
    expect((await dashboard(cookie)('GET', '/v1/account-deletion')).status).toBe(401);
    resetClock();
    const second = await signedIn(a.email);
    for (let m = 25; m <= 12 * 60; m += 25) {
      setClock(t0 + m * 60_000);
      const res = await dashboard(second)('GET', '/v1/account-deletion');
      expect(res.status, `at +${m} min`).toBe(m * 60_000 < 12 * 3_600_000 ? 200 : 401);
    }
    setClock(t0 + 12 * 3_600_000 + 60_000);
    expect((await dashboard(second)('GET', '/v1/account-deletion')).status).toBe(401);
  });

  it('cookie routes refuse a bearer key (even with a valid cookie); bearer routes refuse a cookie', async () => {
    const a = await passwordAccount();
    const cookie = await signedIn(a.email);
    const bearerOnly = await client(stack, a.key)('GET', '/v1/account-deletion');
    expect(bearerOnly.status).toBe(401);
    const both = await dashboard(cookie, { authorization: `Bearer ${a.key}` })('GET', '/v1/account-deletion');
    expect(both.status).toBe(401);
    const cookieOnBearer = await dashboard(cookie)('GET', '/v1/me');
    expect(cookieOnBearer.status).toBe(401);
    expect((await client(stack, a.key)('GET', '/v1/me')).status).toBe(200);
    const cookieRoutes = (routes as readonly RouteDefinition[]).filter((r) => r.auth === 'session');
    expect(cookieRoutes.map((r) => r.id).sort()).toEqual([
      'cancelAccountDeletionRequest',
      'createAccountDeletionEmailConfirmation',
      'createAccountDeletionRequest',
      'deleteSession',
      'getAccountDeletion',
    ]);
    for (const r of cookieRoutes) {
      const opts = r.method === 'GET' ? {} : { body: {} };
      expect((await client(stack, a.key)(r.method, r.path, { headers: { origin: origin() }, ...opts })).status, `${r.id} with a bearer key`).toBe(401);
      expect((await client(stack)(r.method, r.path, { headers: { origin: origin() }, ...opts })).status, `${r.id} without a cookie`).toBe(401);
      const forged = `vas_${'A'.repeat(43)}`;
      for (const bad of [forged, 'garbage', `${cookie}x`]) {
        const res = await client(stack)(r.method, r.path, { headers: { origin: origin(), cookie: `${COOKIE}=${bad}` }, ...opts });
        expect(res.status, `${r.id} with cookie ${bad.slice(0, 12)}…`).toBe(401);
        expect(res.body).toEqual({ detail: 'Missing or invalid session', code: 'unauthorized' });
      }
    }
  });

  it('state-changing cookie routes refuse a missing or foreign Origin (CSRF) with 403, and change nothing', async () => {
    const a = await passwordAccount();
    const cookie = await signedIn(a.email);
    const body = { password: PASSWORD, confirmation_phrase: `delete ${a.name}` };
    for (const headers of [{ origin: 'https://evil.example' }, { origin: `${origin()}.evil.example` }, { origin: 'null' }]) {
      const res = await dashboard(cookie, headers)('POST', '/v1/account-deletion/requests', { body });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('origin_refused');
    }
    const missing = await client(stack)('POST', '/v1/account-deletion/requests', { body, headers: { cookie: `${COOKIE}=${cookie}` } });
    expect(missing.status).toBe(403);
    const signOut = await client(stack)('DELETE', '/v1/sessions', { headers: { cookie: `${COOKIE}=${cookie}`, origin: 'https://evil.example' } });
    expect(signOut.status).toBe(403);
    // Reads need no Origin; nothing was requested or signed out.
    const overview = await client(stack)('GET', '/v1/account-deletion', { headers: { cookie: `${COOKIE}=${cookie}` } });
    expect(overview.body.request.status).toBe('none');
    // Login CSRF: signing in needs the dashboard's Origin too.
    expect((await anon()('POST', '/v1/sessions', { body: { email: a.email, password: PASSWORD }, headers: { origin: 'https://evil.example' } })).status).toBe(
      403,
    );
  });

  it('never echoes a too-long or wrong-typed password or token in a 422', async () => {
    const a = await passwordAccount();
    const secret = `my-real-password-${'x'.repeat(1100)}`;
    const long = await signIn(a.email, secret);
    expect(long.status).toBe(422);
    expect(long.body.detail[0].loc).toEqual(['body', 'password']);
    expect(long.body.detail[0]).not.toHaveProperty('input');
    const typed = await anon()('POST', '/v1/sessions', { body: { email: a.email, password: 123456789012 }, headers: { origin: origin() } });
    expect(typed.status).toBe(422);
    expect(JSON.stringify(typed.body)).not.toContain('123456789012');
    const token = await anon()('POST', '/v1/sessions/email-link/confirm', { body: { token: `val_${'s'.repeat(400)}` }, headers: { origin: origin() } });
    expect(token.status).toBe(422);
    expect(JSON.stringify(token.body)).not.toContain('s'.repeat(400));
    const api = dashboard(await signedIn(a.email));
    const deletion = await api('POST', '/v1/account-deletion/requests', { body: { password: secret, confirmation_phrase: `delete ${a.name}` } });
    expect(deletion.status).toBe(422);
    expect(JSON.stringify(deletion.body)).not.toContain('my-real-password');
  });

  it('a new password (user set-password) ends the user’s sessions, and only that user’s', async () => {
    const a = await passwordAccount();
    const other = await createUser({ tenantId: a.tenantId, email: uniqueEmail('other'), role: 'admin' });
    await setPasswordAction({ tenantId: a.tenantId, userId: other.user_id, password: PASSWORD });
    const first = await signedIn(a.email);
    const second = await signedIn(a.email);
    const bystander = await signedIn(other.email);
    for (const c of [first, second, bystander]) expect((await dashboard(c)('GET', '/v1/account-deletion')).status).toBe(200);
    await setPasswordAction({ tenantId: a.tenantId, userId: a.userId, password: 'a brand new password 123' });
    expect((await dashboard(first)('GET', '/v1/account-deletion')).status).toBe(401);
    expect((await dashboard(second)('GET', '/v1/account-deletion')).status).toBe(401);
    expect((await dashboard(bystander)('GET', '/v1/account-deletion')).status).toBe(200);
    // The records are gone, not merely refused.
    const scan = await db().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#t = :s AND user_id = :u',
        ExpressionAttributeNames: { '#t': 'type' },
        ExpressionAttributeValues: { ':s': 'session', ':u': a.userId },
        ConsistentRead: true,
      }),
    );
    expect(scan.Items).toEqual([]);
    expect((await signIn(a.email, 'a brand new password 123')).status).toBe(204);
  });

  it('a wrong email and a wrong password are the same 401', async () => {
    const a = await passwordAccount();
    const wrongPassword = await signIn(a.email, 'not the password at all');
    const wrongEmail = await signIn(uniqueEmail('nobody'), PASSWORD);
    expect(wrongPassword.status).toBe(401);
    expect(wrongEmail.status).toBe(401);
    expect(wrongEmail.body).toEqual(wrongPassword.body);
    expect(wrongEmail.body).toEqual({ detail: 'Invalid email or password', code: 'invalid_credentials' });
  });

  it('answers a wrong email and a wrong password in the same time (medians of interleaved tries within noise)', async () => {
    const tries = 60;
    const known = await Promise.all(Array.from({ length: tries }, () => passwordAccount()));
    const at = now();
    const yardstick = await hashPassword('a password of the same parameters');
    const wrong = (email: string, ip: string) =>
      expect(signInWithPassword({ email, password: 'wrong password here', sourceIp: ip, at })).rejects.toMatchObject({ kind: 'unauthorized' });
    // Each try from its own source and account. The yardstick is one Argon2id verification (the
    // binding called directly): skipping it for unknown emails shifts the paired median by more
    // than one of them (measured: 1.4–1.8×); parity measures 0–0.4×.
    const t = await pairedTiming(
      tries,
      (i) => wrong(known[i]!.email, `10.1.0.${i}`),
      (i) => wrong(uniqueEmail('ghost'), `10.2.0.${i}`),
      () => verify(yardstick, 'wrong password here'),
    );
    expect(
      Math.abs(t.gap),
      `known − unknown (paired median) ${t.gap.toFixed(1)} ms; one Argon2id ${t.yardstick.toFixed(1)} ms; medians ${t.known.toFixed(1)} / ${t.unknown.toFixed(1)} ms`,
    ).toBeLessThan(0.75 * t.yardstick);
    // 60 accounts hashed and 120 verifications, each behind the throttle's transaction: near the default 30 s when the machine is shared.
  }, 90_000);

  it('answers an emailed-link request for a known and an unknown email in the same time (paired medians, the way the password test measures)', async () => {
    const tries = 24;
    const known = await Promise.all(Array.from({ length: tries }, () => passwordlessAccount()));
    const link = (email: string, ip: string) => requestEmailLink({ email, sourceIp: ip, at: now(), dashboardOrigin: origin() });
    // The yardstick: what only a known email used to cost (the link's Put and the mail), measured alongside.
    const t = await pairedTiming(
      tries,
      (i) => link(known[i]!.email, `10.3.0.${i}`),
      (i) => link(uniqueEmail('ghost'), `10.4.0.${i}`),
      async (i) => {
        await db().send(
          new PutCommand({
            TableName: tableName(),
            Item: {
              pk: 'PLATFORM#TEST_YARDSTICK',
              sk: `LINK#${i}`,
              token_hash: 'x'.repeat(64),
              created_at: now().toISOString(),
              expires_at: now().toISOString(),
              ttl: 1,
            },
          }),
        );
        await sendMail({ to: uniqueEmail('yardstick'), subject: 'Sign in', text: 'x'.repeat(300) }, now());
      },
    );
    expect(tokenInMail((await lastMail(known[0]!.email))!)).toMatch(/^val_/);
    expect(
      Math.abs(t.gap),
      `known − unknown (paired median) ${t.gap.toFixed(1)} ms; the known path's extra work ${t.yardstick.toFixed(1)} ms; medians ${t.known.toFixed(1)} / ${t.unknown.toFixed(1)} ms`,
    ).toBeLessThan(0.5 * t.yardstick);
  });

  it('slows repeated failures down: after 5 the right password answers 429 with Retry-After and gets in when that has passed', async () => {
    const a = await passwordAccount();
    for (let i = 0; i < 5; i++) expect((await signIn(a.email, `wrong ${i}`)).status).toBe(401);
    const refused = await signIn(a.email);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('too_many_attempts');
    expect(refused.headers.get('retry-after')).toBe('1');
    setClock(now().getTime() + 1000);
    expect((await signIn(a.email)).status).toBe(204);
  });

  it('grows the wait 1, 2, 4 … up to 60 s, never longer; the right password gets in a minute after the last guess, and a success starts the account over', async () => {
    const a = await passwordAccount();
    const ip = '198.51.100.50';
    let at = now().getTime();
    const attempt = (password: string) => signInWithPassword({ email: a.email, password, sourceIp: ip, at: new Date(at) });
    for (let i = 0; i < 5; i++) await expect(attempt(`wrong ${i}`)).rejects.toMatchObject({ kind: 'unauthorized' });
    const waits: string[] = [];
    for (let i = 5; i < 14; i++) {
      const refused = await attempt(PASSWORD).then(
        () => undefined,
        (err: { kind: string; hints: { retryAfterSeconds?: number } }) => err,
      );
      expect(refused?.kind).toBe('rate_limited');
      waits.push(String(refused!.hints.retryAfterSeconds));
      at += refused!.hints.retryAfterSeconds! * 1000;
      await expect(attempt(`wrong ${i}`)).rejects.toMatchObject({ kind: 'unauthorized' });
    }
    expect(waits).toEqual(['1', '2', '4', '8', '16', '32', '60', '60', '60']);
    at += 59_999;
    await expect(attempt(PASSWORD)).rejects.toMatchObject({ kind: 'rate_limited', hints: { retryAfterSeconds: 1 } });
    at += 1;
    await expect(attempt(PASSWORD)).resolves.toMatchObject({ tenant_id: a.tenantId });
    // The success started the account over: a slip is a 401 and the right password is not kept waiting.
    await expect(attempt('one slip')).rejects.toMatchObject({ kind: 'unauthorized' });
    await expect(attempt(PASSWORD)).resolves.toMatchObject({ tenant_id: a.tenantId });
  });

  it('throttles a source per account and over every account: another source still signs the account in, and a sprayed source waits', async () => {
    const a = await passwordAccount();
    const at = now();
    const attempt = (email: string, password: string, sourceIp: string, when = at) => signInWithPassword({ email, password, sourceIp, at: when });
    // One source guessing one account is slowed after 5 failures; the owner, elsewhere, is not.
    for (let i = 0; i < 5; i++) await expect(attempt(a.email, `wrong ${i}`, '198.51.100.1')).rejects.toMatchObject({ kind: 'unauthorized' });
    await expect(attempt(a.email, PASSWORD, '198.51.100.1')).rejects.toMatchObject({ kind: 'rate_limited', hints: { retryAfterSeconds: 1 } });
    await expect(attempt(a.email, PASSWORD, '198.51.100.2')).resolves.toMatchObject({ tenant_id: a.tenantId });
    // Per source: 30 failures over different emails from one IP, then that IP waits for any account.
    for (let i = 0; i < 30; i++) await expect(attempt(uniqueEmail('spray'), 'x', '203.0.113.7')).rejects.toMatchObject({ kind: 'unauthorized' });
    const c = await passwordAccount();
    await expect(attempt(c.email, PASSWORD, '203.0.113.7')).rejects.toMatchObject({ kind: 'rate_limited', hints: { retryAfterSeconds: 1 } });
    await expect(attempt(c.email, PASSWORD, '203.0.113.8')).resolves.toMatchObject({ tenant_id: c.tenantId });
    await expect(attempt(c.email, PASSWORD, '203.0.113.7', new Date(at.getTime() + 1000))).resolves.toMatchObject({ tenant_id: c.tenantId });
  });

  it('counts concurrent guesses exactly: of ten at one instant after the free ones, one is tried and the rest wait', async () => {
    const a = await passwordAccount();
    const at = now();
    for (let i = 0; i < 5; i++)
      await expect(signInWithPassword({ email: a.email, password: `wrong ${i}`, sourceIp: '192.0.2.9', at })).rejects.toMatchObject({ kind: 'unauthorized' });
    const later = new Date(at.getTime() + 1000);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => signInWithPassword({ email: a.email, password: `burst ${i}`, sourceIp: '192.0.2.9', at: later })),
    );
    const statuses = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { kind: string }).kind : 'signed_in')).sort();
    expect(statuses).toEqual([...Array(9).fill('rate_limited'), 'unauthorized']);
  });

  it('emailed sign-in links: the same 202 for unknown emails, one use, replaced by a newer link', async () => {
    const b = await passwordlessAccount();
    const unknown = await anon()('POST', '/v1/sessions/email-link', { body: { email: uniqueEmail('nobody') }, headers: { origin: origin() } });
    const known = await anon()('POST', '/v1/sessions/email-link', { body: { email: b.email }, headers: { origin: origin() } });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual(known.body);
    const first = tokenInMail((await lastMail(b.email))!)!;
    expect(first).toMatch(/^val_/);
    await anon()('POST', '/v1/sessions/email-link', { body: { email: b.email }, headers: { origin: origin() } });
    const second = tokenInMail((await lastMail(b.email))!)!;
    expect(second).not.toBe(first);
    const replaced = await anon()('POST', '/v1/sessions/email-link/confirm', { body: { token: first }, headers: { origin: origin() } });
    expect(replaced.status).toBe(422);
    expect(replaced.body.detail[0].loc).toEqual(['body', 'token']);
    const ok = await anon()('POST', '/v1/sessions/email-link/confirm', { body: { token: second }, headers: { origin: origin() } });
    expect(ok.status).toBe(204);
    expect((await dashboard(cookieOf(ok))('GET', '/v1/account-deletion')).status).toBe(200);
    expect((await anon()('POST', '/v1/sessions/email-link/confirm', { body: { token: second }, headers: { origin: origin() } })).status).toBe(422);
  });
});

describe('emailed sign-in link limits', () => {
  const askLink = (email: string) => anon()('POST', '/v1/sessions/email-link', { body: { email }, headers: { origin: origin() } });

  it('sends at most 3 links per email in 15 minutes (then 429, known or not), and a link expires after 15 minutes', async () => {
    const b = await passwordlessAccount();
    for (let i = 0; i < 3; i++) expect((await askLink(b.email)).status).toBe(202);
    const refused = await askLink(b.email);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('too_many_attempts');
    const ghost = uniqueEmail('ghost');
    for (let i = 0; i < 3; i++) expect((await askLink(ghost)).status).toBe(202);
    expect((await askLink(ghost)).status).toBe(429);
    // The newest link, used 16 minutes later, is refused like a spent one.
    const token = tokenInMail((await lastMail(b.email))!)!;
    setClock(Date.now() + 16 * 60_000);
    const late = await anon()('POST', '/v1/sessions/email-link/confirm', { body: { token }, headers: { origin: origin() } });
    expect(late.status).toBe(422);
    expect(late.body.detail[0].loc).toEqual(['body', 'token']);
  });
});

describe('the deletion request', () => {
  it('needs the password now and the exact phrase (each wrong one at its loc), then schedules after 14 days; reconfirming keeps the date; cancelling needs the password', async () => {
    const a = await passwordAccount();
    const api = dashboard(await signedIn(a.email));
    const wrong = await api('POST', '/v1/account-deletion/requests', { body: { password: 'not my password', confirmation_phrase: `Delete ${a.name}` } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ['body', 'password'],
      ['body', 'confirmation_phrase'],
    ]);
    expect((await api('GET', '/v1/account-deletion')).body.request.status).toBe('none');
    const before = now().getTime();
    const made = await api('POST', '/v1/account-deletion/requests', { body: { password: PASSWORD, confirmation_phrase: `delete ${a.name}` } });
    expect(made.status).toBe(200);
    expect(made.body.request).toMatchObject({ status: 'pending', confirmed_by: 'password' });
    const scheduled = Date.parse(made.body.request.scheduled_for);
    expect(scheduled - before).toBeGreaterThanOrEqual(14 * 86_400_000);
    expect(scheduled - before).toBeLessThan(14 * 86_400_000 + 60_000);
    const again = await api('POST', '/v1/account-deletion/requests', { body: { password: PASSWORD, confirmation_phrase: `delete ${a.name}` } });
    expect(again.body.request.scheduled_for).toBe(made.body.request.scheduled_for);
    expect((await api('DELETE', '/v1/account-deletion/requests', { body: { password: 'nope nope nope' } })).status).toBe(422);
    const cancelled = await api('DELETE', '/v1/account-deletion/requests', { body: { password: PASSWORD } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.request).toMatchObject({ status: 'cancelled', scheduled_for: null });
    expect((await api('DELETE', '/v1/account-deletion/requests', { body: { password: PASSWORD } })).status).toBe(409);
    const types = (await listTenantEvents(a.tenantId)).map((e) => e.type);
    expect(types).toEqual(['account.deletion_requested', 'account.deletion_cancelled']);
    // Nothing runs for a cancelled request, however late.
    expect((await runDueDeletions(new Date(scheduled + 86_400_000))).results.filter((r) => r.tenant_id === a.tenantId)).toEqual([]);
  });

  it('concurrent confirmations and cancellations never 500: each commits or is a 409 naming the request’s status', async () => {
    const a = await passwordAccount();
    const at = now();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 24 }, (_, i) =>
        i % 3 === 2
          ? cancelDeletion({ tenantId: a.tenantId, userId: a.userId, at })
          : confirmDeletion({ tenantId: a.tenantId, userId: a.userId, by: 'password', at }),
      ),
    );
    const refused = outcomes
      .filter((o): o is PromiseRejectedResult => o.status === 'rejected')
      .map((o) => o.reason as { kind?: string; code?: string; extra?: { status?: string } });
    for (const r of refused) {
      expect(r.kind, String(r)).toBe('conflict');
      expect(['account_deletion_conflict', 'account_deletion_not_pending', 'account_deletion_in_progress']).toContain(r.code);
    }
    expect(outcomes.some((o) => o.status === 'fulfilled')).toBe(true);
    // The request is in one consistent state, its revision counting exactly the committed writes.
    const request = (await getDeletionRequest(a.tenantId))!;
    expect(['pending', 'cancelled']).toContain(request.status);
    expect(request.revision).toBe(outcomes.filter((o) => o.status === 'fulfilled').length);
  });

  it('only admins may request it', async () => {
    const a = await passwordAccount();
    const member = await createUser({ tenantId: a.tenantId, email: uniqueEmail('member'), role: 'member' });
    await setPasswordAction({ tenantId: a.tenantId, userId: member.user_id, password: PASSWORD });
    const api = dashboard(await signedIn(member.email));
    expect((await api('GET', '/v1/account-deletion')).status).toBe(200);
    expect((await api('POST', '/v1/account-deletion/requests', { body: { password: PASSWORD, confirmation_phrase: `delete ${a.name}` } })).status).toBe(403);
    // Nor cancel it, nor have a proof emailed.
    expect((await api('DELETE', '/v1/account-deletion/requests', { body: { password: PASSWORD } })).status).toBe(403);
    expect((await api('POST', '/v1/account-deletion/email-confirmations')).status).toBe(403);
  });

  it('throttles the password re-entered for the request and for the cancellation like a sign-in (5 failures, then the right one waits a second)', async () => {
    const a = await passwordAccount();
    const api = dashboard(await signedIn(a.email));
    const phrase = `delete ${a.name}`;
    for (let i = 0; i < 5; i++)
      expect((await api('POST', '/v1/account-deletion/requests', { body: { password: `wrong password ${i}`, confirmation_phrase: phrase } })).status).toBe(422);
    const refused = await api('POST', '/v1/account-deletion/requests', { body: { password: PASSWORD, confirmation_phrase: phrase } });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('too_many_attempts');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await api('GET', '/v1/account-deletion')).body.request.status).toBe('none');
    setClock(now().getTime() + 1000);
    expect((await api('POST', '/v1/account-deletion/requests', { body: { password: PASSWORD, confirmation_phrase: phrase } })).status).toBe(200);

    const b = await passwordAccount();
    const bApi = dashboard(await signedIn(b.email));
    expect((await bApi('POST', '/v1/account-deletion/requests', { body: { password: PASSWORD, confirmation_phrase: `delete ${b.name}` } })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await bApi('DELETE', '/v1/account-deletion/requests', { body: { password: `wrong password ${i}` } })).status).toBe(422);
    expect((await bApi('DELETE', '/v1/account-deletion/requests', { body: { password: PASSWORD } })).status).toBe(429);
    expect((await bApi('GET', '/v1/account-deletion')).body.request.status).toBe('pending');
  });

  it('cannot be cancelled once the job has started (409), even by a caller whose session outlived the revoke', async () => {
    const a = await passwordAccount();
    const request = await confirmDeletion({ tenantId: a.tenantId, userId: a.userId, by: 'password', at: now() });
    const at = new Date(Date.parse(request.scheduled_for) + 60_000);
    expect((await runDueDeletions(at, { crashAfterDeletes: 0 })).results.find((r) => r.tenant_id === a.tenantId)).toMatchObject({ outcome: 'failed' });
    // Sessions are refused from here (401), so the repository is the caller that still could.
    await expect(cancelDeletion({ tenantId: a.tenantId, userId: a.userId, at })).rejects.toMatchObject({
      kind: 'conflict',
      code: 'account_deletion_not_pending',
      extra: { status: 'deleting' },
    });
    await expect(confirmDeletion({ tenantId: a.tenantId, userId: a.userId, by: 'password', at })).rejects.toMatchObject({
      kind: 'conflict',
      code: 'account_deletion_in_progress',
    });
    expect((await getDeletionRequest(a.tenantId))?.status).toBe('deleting');
    await runDueDeletions(at);
  });

  it('counts the tenant’s calls in the overview', async () => {
    const a = await passwordAccount();
    const api = client(stack, a.key);
    const world = await callWorld(api, a.tenantId);
    setClock(ALLOWED_AT);
    for (let i = 0; i < 2; i++) expect((await queue(api, { agent_id: world.agentId, contact_id: (await newContact(api)).id })).status).toBe(200);
    resetClock();
    const overview = await dashboard(await signedIn(a.email))('GET', '/v1/account-deletion');
    expect(overview.body.impact).toMatchObject({ calls: 2, contacts: 2, phone_numbers_to_release: 1 });
  });
});

describe('the emailed deletion proof (passwordless accounts)', () => {
  const confirm = (token: string, originHeader: string | null = origin()) =>
    anon()('POST', '/v1/account-deletion/email-confirmations/confirm', { body: { token }, headers: originHeader === null ? {} : { origin: originHeader } });

  async function proof(b: { email: string }, cookie: string) {
    const sent = await dashboard(cookie)('POST', '/v1/account-deletion/email-confirmations');
    expect(sent.status).toBe(200);
    return { sent: sent.body, token: tokenInMail((await lastMail(b.email))!)! };
  }

  async function passwordlessSignedIn() {
    const b = await passwordlessAccount();
    await anon()('POST', '/v1/sessions/email-link', { body: { email: b.email }, headers: { origin: origin() } });
    const res = await anon()('POST', '/v1/sessions/email-link/confirm', {
      body: { token: tokenInMail((await lastMail(b.email))!)! },
      headers: { origin: origin() },
    });
    return { b, cookie: cookieOf(res) };
  }

  it('is sent to the masked mailbox; a foreign or missing Origin is refused and leaves it usable; of 10 concurrent confirms exactly one wins', async () => {
    const { b, cookie } = await passwordlessSignedIn();
    const { sent, token } = await proof(b, cookie);
    expect(sent.sent_to).toBe(`${b.email[0]}***@acme.test`);
    expect(Date.parse(sent.expires_at) - now().getTime()).toBeLessThanOrEqual(30 * 60_000);
    expect(token).toMatch(/^vad_ten_[0-9A-Z]{26}\.[A-Za-z0-9_-]{43}$/);
    expect((await confirm(token, 'https://evil.example')).status).toBe(403);
    expect((await confirm(token, null)).status).toBe(403);
    const results = await Promise.all(Array.from({ length: 10 }, () => confirm(token)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(9).fill(422)]);
    for (const r of results.filter((x) => x.status === 422)) expect(r.body.detail[0].loc).toEqual(['body', 'token']);
    const winner = results.find((r) => r.status === 200)!;
    expect(winner.body.request).toMatchObject({ status: 'pending', confirmed_by: 'email' });
    expect((await confirm(token)).status).toBe(422); // reused
    // A password account has no emailed proof.
    const a = await passwordAccount();
    expect((await dashboard(await signedIn(a.email))('POST', '/v1/account-deletion/email-confirmations')).status).toBe(409);
  });

  it('a passwordless account cancels with its session alone', async () => {
    const { b, cookie } = await passwordlessSignedIn();
    const { token } = await proof(b, cookie);
    expect((await confirm(token)).status).toBe(200);
    const cancelled = await dashboard(cookie)('DELETE', '/v1/account-deletion/requests', { body: {} });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.request).toMatchObject({ status: 'cancelled', scheduled_for: null });
  });

  it('expires after 30 minutes, and a newer proof replaces an older one', async () => {
    const { b, cookie } = await passwordlessSignedIn();
    const { token: old } = await proof(b, cookie);
    const t0 = Date.now();
    setClock(t0 + 31 * 60_000);
    expect((await confirm(old)).status).toBe(422);
    resetClock();
    const { token: first } = await proof(b, cookie);
    const { token: second } = await proof(b, cookie);
    expect((await confirm(first)).status).toBe(422);
    expect((await confirm(second)).status).toBe(200);
  });
});

describe('the deletion', () => {
  it('runs after the grace period; a crash half-way finishes on the next run; then every route answers 401 and only the kept kinds remain', async () => {
    const a = await passwordAccount();
    const bystander = await passwordAccount();
    const api = client(stack, a.key);
    const world = await callWorld(api, a.tenantId);
    const number = world.number;
    // The sandbox carrier's own records for the tenant's mock account: a text (body and numbers) and a call.
    const sandboxSid = (await openSandboxCredentials((await getTelephonyAccount(a.tenantId, world.accountId))!))!.account_sid;
    const smsBody = `private text ${Math.random().toString(36).slice(2)}`;
    const customer = randomNumber('917');
    await putSandboxMessage(
      planSandboxMessage({ accountSid: sandboxSid, to: customer, from: number.phone_e164, body: smsBody, statusCallback: null }, now(), 1000),
    );
    const callSid = `CA${'0123456789abcdef'.repeat(2)}`.slice(0, 34);
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...platformKeys.sandboxCall(callSid),
          ...platformKeys.sandboxCallIndex(sandboxSid, now().toISOString(), callSid),
          type: 'sandbox_call',
          sid: callSid,
          account_sid: sandboxSid,
          to: customer,
          from: number.phone_e164,
          status: 'completed',
        },
      }),
    );
    const listId = await importList(
      api,
      Array.from({ length: 5 }, () => randomNumber('212')),
    );
    for (let i = 0; i < 7; i++) await newContact(api);
    const pool = await poolOf(world, 0);
    const campaign = await newCampaign(world, listId, pool.id);
    expect((await api('POST', `/v1/campaigns/${campaign.id}/start`)).status).toBe(200);
    expect(await importObjects(a.tenantId)).toHaveLength(1);
    const suppressed = randomNumber('646');
    expect((await api('POST', '/v1/suppressions', { body: { phone_e164: suppressed, reason: 'opt_out' } })).status).toBe(201);
    const other = client(stack, bystander.key);
    await newContact(other);

    const cookie = await signedIn(a.email);
    const overview = await dashboard(cookie)('GET', '/v1/account-deletion');
    expect(overview.body.impact).toEqual({ contacts: 12, calls: 0, phone_numbers_to_release: 1, active_campaigns: 1, open_invoices: 0 });
    const made = await dashboard(cookie)('POST', '/v1/account-deletion/requests', { body: { password: PASSWORD, confirmation_phrase: `delete ${a.name}` } });
    const due = Date.parse(made.body.request.scheduled_for);

    // Other tests' tenants may be due too (one table per file): look at this tenant's results.
    const mine = (r: Awaited<ReturnType<typeof runDueDeletions>>) => r.results.filter((x) => x.tenant_id === a.tenantId);
    // Not yet due: nothing happens.
    expect(mine(await runDueDeletions(new Date(due - 60_000)))).toEqual([]);
    expect((await api('GET', '/v1/me')).status).toBe(200);

    setClock(due + 60_000);
    // First crash: as the sweep starts. The steps before it are done: keys revoked, the campaign
    // cancelled by its own move, the number released, the import file erased.
    expect(mine(await runDueDeletions(now(), { crashAfterDeletes: 0 }))).toEqual([
      { tenant_id: a.tenantId, outcome: 'failed', reason: 'injected crash after 0 deletes' },
    ]);
    expect((await api('GET', '/v1/me')).status).toBe(401);
    const cancelled = await db().send(new GetCommand({ TableName: tableName(), Key: campaignKeys.campaign(a.tenantId, campaign.id), ConsistentRead: true }));
    expect(cancelled.Item?.status).toBe('cancelled');
    const doomed = async () => (await tenantLeftovers(a.tenantId, sandboxSid)).filter((i) => !isRetained(i, a.tenantId)).length;
    const before = await doomed();
    // Second crash: half-way through the sweep (7 items deleted); the rerun resumes from the checkpoint.
    expect(mine(await runDueDeletions(now(), { crashAfterDeletes: 7 }))).toEqual([
      { tenant_id: a.tenantId, outcome: 'failed', reason: 'injected crash after 7 deletes' },
    ]);
    const halfway = await doomed();
    expect(halfway).toBe(before - 7);
    expect(halfway).toBeGreaterThan(4);
    expect(await getSandboxNumber(number.phone_e164)).toBeUndefined();
    expect(await importObjects(a.tenantId)).toEqual([]);
    const cancelDuringRun = await dashboard(cookie)('DELETE', '/v1/account-deletion/requests', { body: { password: PASSWORD } });
    expect(cancelDuringRun.status).toBe(401); // the session is already gone

    const rerun = (await jobs.deletions!(now())) as Awaited<ReturnType<typeof runDueDeletions>>;
    expect(mine(rerun)).toEqual([expect.objectContaining({ tenant_id: a.tenantId, outcome: 'completed' })]);

    for (const r of routes as readonly RouteDefinition[]) {
      if (r.auth !== 'bearer' && r.auth !== 'session') continue;
      const path = r.path.replace(/\{[^}]+\}/g, 'xyz_01JZZZZZZZZZZZZZZZZZZZZZZZ');
      const res =
        r.auth === 'bearer'
          ? await api(r.method, path, r.method === 'GET' ? {} : { body: {} })
          : await dashboard(cookie)(r.method, path, r.method === 'GET' ? {} : { body: {} });
      expect(res.status, `${r.id}`).toBe(401);
    }
    expect((await signIn(a.email)).status).toBe(401);

    const left = await tenantLeftovers(a.tenantId);
    expect(left.filter((i) => !isRetained(i, a.tenantId))).toEqual([]);
    const kinds = left.map((i) => i.sk.replace(/#.*/, '#')).sort();
    expect(kinds).toEqual(['DELETION_REQUEST', 'SUPPRESSION_HASH#', 'TENANT']);
    expect(JSON.stringify(left)).not.toContain(suppressed);
    // The kept hash is under the derived key, not the pepper.
    const pepper = (await appSecrets()).apiKeyPepper;
    expect(left.filter((i) => i.sk.startsWith('SUPPRESSION_HASH#')).map((i) => i.sk)).toEqual([
      `SUPPRESSION_HASH#${numberHash(suppressionHashKey(pepper), suppressed)}`,
    ]);
    expect(JSON.stringify(left)).not.toContain(a.name);
    // The number went back to the carrier; another tenant is untouched; a third run does nothing.
    expect(await getSandboxNumber(number.phone_e164)).toBeUndefined();
    // Nowhere in the table: the tenant's number, its SMS text, the customer it texted, its sandbox account.
    const everything = JSON.stringify(await wholeTable());
    for (const trace of [number.phone_e164, smsBody, customer, sandboxSid]) expect(everything, trace).not.toContain(trace);
    expect((await other('GET', '/v1/contacts')).body.data).toHaveLength(1);
    expect(mine(await runDueDeletions(now()))).toEqual([]);
  });
});

describe('while the deletion runs', () => {
  it('the tenant is ‘deleting’: a key minted during the run, a session and sign-in are refused; a scheduled call is cancelled; an item written behind the sweep is swept by another pass', async () => {
    const a = await passwordAccount();
    const api = client(stack, a.key);
    const world = await callWorld(api, a.tenantId);
    const contact = await newContact(api);
    // A call deferred by quiet hours: scheduled, not yet dialled.
    setClock(QUIET_AT);
    const scheduled = await queue(api, { agent_id: world.agentId, contact_id: contact.id });
    expect(scheduled.body.state).toBe('scheduled');
    resetClock();
    const request = await confirmDeletion({ tenantId: a.tenantId, userId: a.userId, by: 'password', at: now() });
    const at = new Date(Date.parse(request.scheduled_for) + 60_000);
    setClock(at.getTime());
    const mine = (r: Awaited<ReturnType<typeof runDueDeletions>>) => r.results.filter((x) => x.tenant_id === a.tenantId);
    // Stop as the sweep starts: every step before it has run.
    expect(mine(await runDueDeletions(at, { crashAfterDeletes: 0 }))[0]).toMatchObject({ outcome: 'failed' });
    expect((await getTenant(a.tenantId))?.status).toBe('deleting');
    expect(await storedCall(a.tenantId, scheduled.body.call_id)).toMatchObject({ state: 'disposed', end_reason: 'cancelled' });
    // A key minted now (after the revoke step) and a session opened now are refused; so is signing in.
    const late = await createApiKey({ tenantId: a.tenantId, name: 'late', role: 'admin' });
    expect((await client(stack, late.api_key.secret)('GET', '/v1/me')).status).toBe(401);
    const session = await createSession(a.tenantId, a.userId, now());
    expect((await dashboard(session.cookieValue)('GET', '/v1/account-deletion')).status).toBe(401);
    expect((await signIn(a.email)).status).toBe(401);
    // An item written behind the first sweep pass is found by the next one.
    let behind: string | undefined;
    const rerun = await runDueDeletions(at, {
      afterSweepPass: async (pass) => {
        if (pass === 1) behind = (await createApiKey({ tenantId: a.tenantId, name: 'behind', role: 'admin' })).api_key.id;
      },
    });
    expect(mine(rerun)).toEqual([expect.objectContaining({ outcome: 'completed' })]);
    expect(behind).toBeDefined();
    const left = await tenantLeftovers(a.tenantId);
    expect(left.filter((i) => !isRetained(i, a.tenantId))).toEqual([]);
    expect((await getTenant(a.tenantId))?.status).toBe('deleted');
  });
});

describe('the scheduled deletion worker', () => {
  it('runs the deletions due now (the EventBridge handler) and reports them', async () => {
    const a = await passwordAccount();
    const request = await confirmDeletion({ tenantId: a.tenantId, userId: a.userId, by: 'password', at: now() });
    expect((await accountDeletionsWorker()).results.filter((r) => r.tenant_id === a.tenantId)).toEqual([]);
    setClock(Date.parse(request.scheduled_for) + 60_000);
    const result = await accountDeletionsWorker();
    expect(result.results.filter((r) => r.tenant_id === a.tenantId)).toEqual([expect.objectContaining({ outcome: 'completed' })]);
    expect((await getDeletionRequest(a.tenantId))?.status).toBe('completed');
  });
});

describe('numbers at the carrier', () => {
  it('gives back a number we bought and leaves a number the customer connected at their carrier account', async () => {
    const a = await passwordAccount();
    const api = client(stack, a.key);
    const creds = newSandboxCredentials();
    await putSandboxAccount(creds);
    const accountId = (await api('POST', '/v1/telephony-accounts', { body: { mode: 'byo', provider: 'twilio', credentials: creds } })).body.id;
    expect((await api('POST', `/v1/telephony-accounts/${accountId}/verify`)).body.verification_status).toBe('verified');
    const own = randomNumber('212');
    const held = await client(stack)('POST', `/sandbox/twilio/2010-04-01/Accounts/${creds.account_sid}/IncomingPhoneNumbers.json`, {
      form: { PhoneNumber: own },
      headers: { authorization: `Basic ${Buffer.from(`${creds.account_sid}:${creds.auth_token}`).toString('base64')}` },
    });
    expect(held.status).toBe(201);
    const connected = await api('POST', '/v1/phone-numbers', {
      body: { phone_e164: own, telephony_account_id: accountId, provider_sid: (held.body as { sid: string }).sid },
    });
    expect(connected.status).toBe(200);
    const boughtPhone = randomNumber('212');
    const bought = await api('POST', '/v1/phone-numbers', { body: { phone_e164: boughtPhone, telephony_account_id: accountId } });
    expect(bought.status).toBe(200);
    expect(await getSandboxNumber(boughtPhone)).toBeDefined();
    expect((await api('POST', '/v1/suppressions', { body: { phone_e164: randomNumber('646'), reason: 'opt_out' } })).status).toBe(201);
    const request = await confirmDeletion({ tenantId: a.tenantId, userId: a.userId, by: 'password', at: now() });
    // The run's instant is 14 days from the wall clock: every stamp the run writes is that instant.
    const at = new Date(Date.parse(request.scheduled_for) + 60_000);
    const mine = async (faults = {}) => (await runDueDeletions(at, faults)).results.filter((r) => r.tenant_id === a.tenantId);
    expect(await mine({ crashAfterDeletes: 0 })).toEqual([expect.objectContaining({ outcome: 'failed' })]);
    const released = await db().send(
      new GetCommand({ TableName: tableName(), Key: { pk: `TENANT#${a.tenantId}`, sk: `NUMBER#${bought.body.id}` }, ConsistentRead: true }),
    );
    expect(released.Item).toMatchObject({ status: 'released', released_at: at.toISOString() });
    expect(await mine()).toEqual([expect.objectContaining({ outcome: 'completed' })]);
    const kept = (await wholeTable()).filter((i) => i.pk === `TENANT#${a.tenantId}` && String(i.sk).startsWith('SUPPRESSION_HASH#'));
    expect(kept.map((i) => i.kept_at)).toEqual([at.toISOString()]);
    expect(await getSandboxNumber(boughtPhone)).toBeUndefined();
    expect(await getSandboxNumber(own)).toMatchObject({ account_sid: creds.account_sid });
  });
});

/** Every item the tenant owns or is named in (a full Scan, as the sweep does), and its sandbox account's calls and messages. */
async function tenantLeftovers(tenantId: string, sandboxSid?: string): Promise<{ pk: string; sk: string }[]> {
  const out: { pk: string; sk: string }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start, ConsistentRead: true }));
    for (const item of page.Items ?? []) {
      const sandbox = sandboxSid !== undefined && (item.pk as string).startsWith('PLATFORM#SANDBOX#') && item.account_sid === sandboxSid;
      if (belongsToTenant(item.pk as string, tenantId) || item.tenant_id === tenantId || sandbox) out.push({ pk: item.pk as string, sk: item.sk as string });
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/** Every item of the table. */
async function wholeTable(): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start, ConsistentRead: true }));
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/** The tenant's objects in the import bucket (the emulator's S3). */
async function importObjects(tenantId: string): Promise<string[]> {
  const s3 = new S3Client({ region: process.env.AWS_REGION ?? 'us-east-1', endpoint: process.env.S3_ENDPOINT, forcePathStyle: true });
  const out = await s3.send(new ListObjectsV2Command({ Bucket: process.env.IMPORT_BUCKET!, Prefix: `imports/${tenantId}/` }));
  s3.destroy();
  return (out.Contents ?? []).map((o) => o.Key!);
}
