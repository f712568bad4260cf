/**
 * Calendar connections and availability over the local stack: a sandbox_calendar connects at
 * once; Google Calendar connects through a real OAuth 2.0 code flow with PKCE against the
 * sandbox's Google (state and verifier checked, tokens sealed and never in a response or a
 * log, refreshed on expiry); availability reads the connection's free/busy and working hours.
 */

import '../support/debug-log-level.js';
import { createHash } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { open } from '../../shared/crypto/secret-box.js';
import { db, tableName } from '../../shared/db/client.js';
import { integrationKeys } from '../../shared/db/keys.js';
import { getConnectionRecord, openTokens } from '../../shared/repositories/integration-connections.js';
import { captureLogs } from '../support/log-capture.js';
import { useTestStack } from '../support/stack.js';
import { resetClock, setClock } from './call-fixtures.js';
import { client, expectContractResponse, newTenant } from './client.js';

const logs = captureLogs();
// The local server's own access log too (what `npm start` prints), into the captured stderr.
process.env.LOCAL_STACK_DEBUG = '1';
const stack = useTestStack({ workers: false });
afterEach(resetClock);

const week = { start_date: '2026-06-01', end_date: '2026-06-05', duration_minutes: 60 };

async function follow(url: string): Promise<Response> {
  const u = new URL(url);
  return stack.fetch(`${u.pathname}${u.search}`, { redirect: 'manual' });
}

/** Start the Google flow and let the sandbox consent: the callback URL Google would send the browser to. */
async function consent(api: ReturnType<typeof client>, body: Record<string, unknown> = { provider: 'google_calendar' }) {
  const start = await api('POST', '/v1/integration-connections/oauth/start', { body });
  expect(start.status).toBe(200);
  const authorize = new URL(start.body.authorize_url);
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const redirect = await follow(start.body.authorize_url);
  expect(redirect.status).toBe(302);
  return { start: start.body, callback: new URL(redirect.headers.get('location')!), authorize };
}

async function callback(url: URL) {
  const res = await stack.fetch(`${url.pathname}${url.search}`);
  const body = (await res.json()) as any;
  await expectContractResponse('GET', url.pathname, res.status, body);
  return { status: res.status, body };
}

describe('sandbox_calendar', () => {
  it('connects at once, lists without token material, answers availability around its busy block, and one calendar at a time', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    expect((await api('POST', '/v1/calendar/availability', { body: week })).body.code).toBe('calendar_not_connected');
    const c = await api('POST', '/v1/integration-connections', { body: { provider: 'sandbox_calendar', timezone: 'America/Chicago' } });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ provider: 'sandbox_calendar', status: 'active', timezone: 'America/Chicago' });
    expect((await api('POST', '/v1/integration-connections', { body: { provider: 'sandbox_calendar' } })).body).toMatchObject({
      code: 'calendar_already_connected',
      connection_id: c.body.id,
    });

    setClock('2026-05-20T12:00:00Z');
    const a = await api('POST', '/v1/calendar/availability', { body: week });
    expect(a.status).toBe(200);
    expect(a.body.connection_id).toBe(c.body.id);
    expect(a.body.timezone).toBe('America/Chicago');
    // 09:00–17:00 Chicago (14:00–22:00Z) minus lunch 12:00–13:00 (17:00–18:00Z): 3 + 4 hours of 60-minute starts on the quarter hour.
    const monday = a.body.slots.filter((s: { starts_at: string }) => s.starts_at.startsWith('2026-06-01'));
    expect(monday[0].starts_at).toBe('2026-06-01T14:00:00.000Z');
    expect(monday.some((s: { starts_at: string }) => s.starts_at === '2026-06-01T16:15:00.000Z')).toBe(false);
    expect(monday.at(-1).ends_at).toBe('2026-06-01T22:00:00.000Z');
    expect(monday).toHaveLength(9 + 13);

    // Working hours are settable; the request's zone changes which days are asked about.
    await api('PATCH', `/v1/integration-connections/${c.body.id}`, { body: { working_hours: { saturday: [{ start: '10:00', end: '12:00' }] } } });
    const sat = await api('POST', '/v1/calendar/availability', {
      body: { start_date: '2026-06-01', end_date: '2026-06-07', duration_minutes: 120, timezone: 'Europe/Paris' },
    });
    expect(sat.body.slots).toEqual([{ starts_at: '2026-06-06T15:00:00.000Z', ends_at: '2026-06-06T17:00:00.000Z' }]);
    expect(sat.body.timezone).toBe('Europe/Paris');

    // The zone itself is settable (`timezone` is a DynamoDB reserved word: it once made this a 500), alone and with partial hours.
    const zoned = await api('PATCH', `/v1/integration-connections/${c.body.id}`, { body: { timezone: 'America/Denver' } });
    expect(zoned.status).toBe(200);
    expect(zoned.body).toMatchObject({ timezone: 'America/Denver', working_hours: { saturday: [{ start: '10:00', end: '12:00' }], monday: [] } });
    const both = await api('PATCH', `/v1/integration-connections/${c.body.id}`, {
      body: { timezone: 'America/Chicago', working_hours: { sunday: [{ start: '09:00', end: '10:00' }] } },
    });
    expect(both.body).toMatchObject({ timezone: 'America/Chicago', working_hours: { sunday: [{ start: '09:00', end: '10:00' }], saturday: [] } });
    expect((await api('GET', `/v1/integration-connections/${c.body.id}`)).body.timezone).toBe('America/Chicago');

    const list = await api('GET', '/v1/integration-connections');
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([c.body.id]);
    expect(JSON.stringify(list.body)).not.toMatch(/token/i);

    expect((await api('DELETE', `/v1/integration-connections/${c.body.id}`)).body.status).toBe('revoked');
    expect((await api('POST', '/v1/calendar/availability', { body: week })).status).toBe(409);
    expect((await api('POST', '/v1/integration-connections', { body: { provider: 'sandbox_calendar' } })).status).toBe(201);
  });

  it('refuses bad ranges and fields with 422, and another tenant’s connection is a 404', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const bad = async (body: unknown) =>
      (await api('POST', '/v1/calendar/availability', { body })).body.detail.map((d: { loc: unknown[]; type: string }) => `${d.loc.join('.')}:${d.type}`);
    expect(await bad({ ...week, end_date: '2026-07-02' })).toEqual(['body.end_date:date_range_too_long']);
    expect(await bad({ ...week, end_date: '2026-05-31' })).toEqual(['body.end_date:date_range_reversed']);
    expect(await bad({ ...week, duration_minutes: 4 })).toEqual(['body.duration_minutes:greater_than_equal']);
    expect(await bad({ ...week, timezone: 'Mars/Olympus' })).toEqual(['body.timezone:timezone_invalid']);
    expect(await bad({ ...week, calendar_id: 'x' })).toEqual(['body.calendar_id:extra_forbidden']);
    const mine = (await api('POST', '/v1/integration-connections', { body: { provider: 'sandbox_calendar' } })).body;
    const other = client(stack, (await newTenant('Other')).token);
    expect((await other('GET', `/v1/integration-connections/${mine.id}`)).status).toBe(404);
    expect((await other('DELETE', `/v1/integration-connections/${mine.id}`)).status).toBe(404);
    expect((await other('PATCH', `/v1/integration-connections/${mine.id}`, { body: { timezone: 'UTC' } })).status).toBe(404);
    expect((await api('GET', `/v1/integration-connections/${mine.id}`)).body.status).toBe('active');
  });
});

describe('Google Calendar over OAuth 2.0 + PKCE (against the sandbox’s Google)', () => {
  it('connects, seals the tokens, reads free/busy, refreshes an expired access token, and revokes', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    setClock('2026-05-20T12:00:00Z');
    const { callback: back } = await consent(api, { provider: 'google_calendar', timezone: 'UTC' });
    // The one-use credentials of the redirect: the authorization code, the state, and the PKCE verifier kept (sealed) for it.
    const code = back.searchParams.get('code')!;
    const state = back.searchParams.get('state')!;
    const pending = (await db().send(new GetCommand({ TableName: tableName(), Key: integrationKeys.oauthState(state), ConsistentRead: true }))).Item!;
    const verifier = await open(pending.sealed_verifier as string, { purpose: 'oauth_pkce_verifier', state, tenant_id: t.tenantId });
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    const done = await callback(back);
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ provider: 'google_calendar', status: 'active', timezone: 'UTC' });
    expect(done.body.scopes).toContain('https://www.googleapis.com/auth/calendar.freebusy');

    const record = (await getConnectionRecord(t.tenantId, done.body.id))!;
    const tokens = await openTokens(record);
    expect(tokens.access_token).toMatch(/^ya29\.sbx_/);
    expect(tokens.refresh_token).toMatch(/^1\/\/sbx_/);
    expect(JSON.stringify(record)).not.toContain(tokens.access_token);

    // The sandbox Google is busy 12:00–13:00 UTC every day.
    const a = await api('POST', '/v1/calendar/availability', { body: { start_date: '2026-06-01', end_date: '2026-06-01', duration_minutes: 60 } });
    expect(a.body.slots.map((s: { starts_at: string }) => s.starts_at.slice(11, 16))).toEqual([
      '09:00',
      '09:15',
      '09:30',
      '09:45',
      '10:00',
      '10:15',
      '10:30',
      '10:45',
      '11:00',
      '13:00',
      '13:15',
      '13:30',
      '13:45',
      '14:00',
      '14:15',
      '14:30',
      '14:45',
      '15:00',
      '15:15',
      '15:30',
      '15:45',
      '16:00',
    ]);

    // Two hours later the access token has expired: the adapter refreshes it and stores the new one sealed.
    setClock('2026-05-20T14:00:00Z');
    expect((await api('POST', '/v1/calendar/availability', { body: { start_date: '2026-06-01', end_date: '2026-06-01', duration_minutes: 60 } })).status).toBe(
      200,
    );
    const refreshed = await openTokens((await getConnectionRecord(t.tenantId, done.body.id))!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).toBe(tokens.refresh_token);

    expect((await api('DELETE', `/v1/integration-connections/${done.body.id}`)).body.status).toBe('revoked');
    const gone = (await getConnectionRecord(t.tenantId, done.body.id))!;
    expect(gone.sealed_tokens).toBeUndefined();
    // Revoked at the (sandbox) Google too: the refresh token no longer works there.
    const r = await stack.fetch('/sandbox/google/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
        client_id: 'sandbox-google-client',
        client_secret: 'sandbox-google-client-secret',
      }).toString(),
    });
    expect(r.status).toBe(400);

    const text = logs.text();
    expect(text).toContain('/oauth/google/callback'); // the callback was logged (access lines) — without its query
    for (const secret of [
      tokens.access_token,
      tokens.refresh_token!,
      refreshed.access_token,
      code,
      encodeURIComponent(code),
      state,
      verifier,
      back.search.slice(1),
    ])
      expect(text).not.toContain(secret);
    expect(JSON.stringify(done.body)).not.toMatch(/sbx_/);
  });

  it('accepts the parameters Google adds to its redirect (hd, authuser, prompt, scope)', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const { callback: back } = await consent(api);
    back.searchParams.set('hd', 'example.com');
    back.searchParams.set('authuser', '0');
    back.searchParams.set('prompt', 'consent');
    back.searchParams.set('scope', 'https://www.googleapis.com/auth/calendar.freebusy https://www.googleapis.com/auth/calendar.events');
    const done = await callback(back);
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ provider: 'google_calendar', status: 'active' });
  });

  it('refuses a tampered state, a reused state, an expired state and a refused consent, storing nothing', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const { callback: back } = await consent(api);
    const forged = new URL(back);
    forged.searchParams.set('state', `${back.searchParams.get('state')}x`);
    expect((await callback(forged)).body.code).toBe('oauth_state_invalid');
    expect((await callback(back)).status).toBe(201);
    expect((await callback(back)).body.code).toBe('oauth_state_invalid'); // one use
    expect((await api('GET', '/v1/integration-connections')).body.data).toHaveLength(1);

    const t2 = await newTenant();
    const api2 = client(stack, t2.token);
    const late = await consent(api2);
    setClock(Date.now() + 11 * 60_000);
    expect((await callback(late.callback)).body.code).toBe('oauth_state_invalid');
    resetClock();
    const denied = await consent(api2);
    const no = new URL(denied.callback);
    no.searchParams.delete('code');
    no.searchParams.set('error', 'access_denied');
    expect((await callback(no)).body.code).toBe('oauth_access_denied');
    expect((await api2('GET', '/v1/integration-connections')).body.data).toHaveLength(0);
  });

  it('a refused refresh puts the connection in error; availability then answers calendar_reauthorization_required every time until it is reconnected', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    setClock('2026-05-20T12:00:00Z');
    const done = await callback((await consent(api, { provider: 'google_calendar', timezone: 'UTC' })).callback);
    const tokens = await openTokens((await getConnectionRecord(t.tenantId, done.body.id))!);
    // The user revokes our access at Google; the access token then expires.
    const revoke = await stack.fetch('/sandbox/google/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token! }).toString(),
    });
    expect(revoke.status).toBe(200);
    setClock('2026-05-20T14:00:00Z');
    const day = { start_date: '2026-06-01', end_date: '2026-06-01', duration_minutes: 60 };
    const refused = await api('POST', '/v1/calendar/availability', { body: day });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('calendar_reauthorization_required');
    expect((await api('GET', `/v1/integration-connections/${done.body.id}`)).body.status).toBe('error');
    expect((await api('POST', '/v1/calendar/availability', { body: day })).body.code).toBe('calendar_reauthorization_required');
    // Connecting again: disconnect the one in error first.
    expect((await api('POST', '/v1/integration-connections/oauth/start', { body: { provider: 'google_calendar' } })).body).toMatchObject({
      code: 'calendar_already_connected',
      connection_id: done.body.id,
    });
    expect((await api('DELETE', `/v1/integration-connections/${done.body.id}`)).body.status).toBe('revoked');
    expect((await api('POST', '/v1/calendar/availability', { body: day })).body.code).toBe('calendar_not_connected');
    expect((await callback((await consent(api, { provider: 'google_calendar', timezone: 'UTC' })).callback)).status).toBe(201);
    expect((await api('POST', '/v1/calendar/availability', { body: day })).status).toBe(200);
  });

  it('oauth/start is 409 calendar_already_connected while a calendar is connected, before any consent', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const sandbox = (await api('POST', '/v1/integration-connections', { body: { provider: 'sandbox_calendar' } })).body;
    const start = await api('POST', '/v1/integration-connections/oauth/start', { body: { provider: 'google_calendar' } });
    expect(start.status).toBe(409);
    expect(start.body).toMatchObject({ code: 'calendar_already_connected', connection_id: sandbox.id });
  });

  it('a consent that cannot become a connection has its new grant revoked at Google', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    // Two authorizations started before either completed: the second cannot be stored.
    const first = await consent(api, { provider: 'google_calendar', timezone: 'UTC' });
    const second = await consent(api, { provider: 'google_calendar', timezone: 'UTC' });
    const done = await callback(first.callback);
    expect(done.status).toBe(201);
    const revokedGrants = async () =>
      (
        (
          await db().send(
            new QueryCommand({
              TableName: tableName(),
              KeyConditionExpression: 'pk = :pk AND begins_with(sk, :r)',
              ExpressionAttributeValues: { ':pk': 'PLATFORM#SANDBOX#OAUTH', ':r': 'REVOKED#' },
              ConsistentRead: true,
            }),
          )
        ).Items ?? []
      ).map((i) => i.grant_id as string);
    const before = await revokedGrants();
    const refused = await callback(second.callback);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'calendar_already_connected', connection_id: done.body.id });
    const fresh = (await revokedGrants()).filter((g) => !before.includes(g));
    expect(fresh).toHaveLength(1);
    // …and it is the refused consent’s grant, not the stored connection’s.
    const kept = await openTokens((await getConnectionRecord(t.tenantId, done.body.id))!);
    const keptGrant = (
      await db().send(
        new GetCommand({
          TableName: tableName(),
          Key: integrationKeys.sandboxOauthToken(createHash('sha256').update(kept.refresh_token!).digest('hex')),
          ConsistentRead: true,
        }),
      )
    ).Item!.grant_id;
    expect(fresh[0]).not.toBe(keptGrant);
  });

  it('Google unreachable at the token endpoint is a clear 502, not a 500', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const { callback: back } = await consent(api);
    const real = globalThis.fetch;
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      return url.includes('/sandbox/google/token') ? Promise.reject(new TypeError('fetch failed')) : real(input, init);
    });
    try {
      const res = await stack.fetch(`${back.pathname}${back.search}`);
      const body = (await res.json()) as any;
      expect(res.status).toBe(502);
      expect(body.code).toBe('oauth_provider_unreachable');
      await expectContractResponse('GET', back.pathname, res.status, body, { allowServerError: true });
    } finally {
      spy.mockRestore();
    }
    expect((await api('GET', '/v1/integration-connections')).body.data).toHaveLength(0);
  });

  it('the sandbox’s token endpoint checks the PKCE verifier: a code sent with another verifier is refused', async () => {
    const t = await newTenant();
    const api = client(stack, t.token);
    const { callback: back, authorize } = await consent(api);
    const form = {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: authorize.searchParams.get('redirect_uri')!,
      code_verifier: 'a'.repeat(43),
      client_id: 'sandbox-google-client',
      client_secret: 'sandbox-google-client-secret',
    };
    const r = await stack.fetch('/sandbox/google/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toBe('invalid_grant');
  });
});
