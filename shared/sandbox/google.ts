/**
 * The sandbox's Google: just enough of Google's OAuth 2.0 server and Calendar API for the
 * Google adapter (shared/calendar/google.ts) to run offline against this deployment —
 * consent is granted at once (no screen), PKCE S256 is required and checked, codes are one
 * use and live 10 minutes, access tokens live SANDBOX_ACCESS_TTL_S, refresh tokens until
 * revoked. Tokens are stored only as SHA-256 hashes. The calendar of a grant reports the
 * events inserted through it plus a standing 12:00–13:00 UTC block every day.
 * Platform-side state (`PLATFORM#SANDBOX#OAUTH`), like the sandbox carrier's.
 */
import { createHash, randomBytes } from 'node:crypto';
import { SANDBOX_GOOGLE_CLIENT } from '../calendar/google.js';
import { now } from '../clock.js';
import {
  googleEventsOf,
  grantRevoked,
  putGoogleEvent,
  putGrantRevoked,
  putInsertFault,
  putOauthCode,
  putOauthToken,
  readOauthCode,
  readOauthToken,
  revokeOauthToken,
  spendOauthCode,
  takeInsertFault,
} from '../repositories/sandbox-google.js';

export const SANDBOX_ACCESS_TTL_S = 3600;
const CODE_TTL_MS = 10 * 60_000;
const hash = (v: string) => createHash('sha256').update(v).digest('hex');
const token = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;
const ttlOf = (ms: number) => Math.floor(ms / 1000) + 86_400;

export interface AuthorizeQuery {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

/** Issue a code for a well-formed request; an OAuth error code otherwise. */
export async function sandboxAuthorize(q: AuthorizeQuery): Promise<{ code: string } | { error: string; description: string }> {
  if (q.client_id !== SANDBOX_GOOGLE_CLIENT.id) return { error: 'invalid_client', description: 'Unknown client_id' };
  if (!q.redirect_uri || !/^https?:\/\//.test(q.redirect_uri)) return { error: 'invalid_request', description: 'redirect_uri is required' };
  if (q.response_type !== 'code') return { error: 'unsupported_response_type', description: 'response_type must be code' };
  if (q.code_challenge_method !== 'S256' || !q.code_challenge || !/^[A-Za-z0-9_-]{43}$/.test(q.code_challenge))
    return { error: 'invalid_request', description: 'PKCE with code_challenge_method S256 is required' };
  const code = token('4/sbx_');
  const at = now().getTime();
  await putOauthCode(hash(code), {
    client_id: q.client_id,
    redirect_uri: q.redirect_uri,
    scope: q.scope ?? '',
    code_challenge: q.code_challenge,
    expires_at: new Date(at + CODE_TTL_MS).toISOString(),
    used: false,
    ttl: ttlOf(at + CODE_TTL_MS),
  });
  return { code };
}

export type TokenAnswer = { status: 200; body: Record<string, unknown> } | { status: 400 | 401; body: { error: string; error_description: string } };
const fail = (status: 400 | 401, error: string, description: string): TokenAnswer => ({ status, body: { error, error_description: description } });

async function mint(grantId: string, scope: string, withRefresh: boolean): Promise<Record<string, unknown>> {
  const at = now().getTime();
  const access = token('ya29.sbx_');
  const expires = at + SANDBOX_ACCESS_TTL_S * 1000;
  await putOauthToken(hash(access), { kind: 'access', grant_id: grantId, scope, expires_at: new Date(expires).toISOString(), ttl: ttlOf(expires) });
  const body: Record<string, unknown> = { access_token: access, token_type: 'Bearer', expires_in: SANDBOX_ACCESS_TTL_S, scope };
  if (withRefresh) {
    const refresh = token('1//sbx_');
    await putOauthToken(hash(refresh), { kind: 'refresh', grant_id: grantId, scope, revoked: false });
    body.refresh_token = refresh;
  }
  return body;
}

/** The token endpoint: authorization_code (with code_verifier) or refresh_token; client_secret_post or basic. */
export async function sandboxToken(form: Record<string, string | undefined>, authorization: string | undefined): Promise<TokenAnswer> {
  let clientId = form.client_id;
  let secret = form.client_secret;
  if (authorization?.startsWith('Basic ')) [clientId, secret] = Buffer.from(authorization.slice(6), 'base64').toString().split(':').map(decodeURIComponent);
  if (clientId !== SANDBOX_GOOGLE_CLIENT.id || secret !== SANDBOX_GOOGLE_CLIENT.secret) return fail(401, 'invalid_client', 'The OAuth client was not found.');
  if (form.grant_type === 'authorization_code') {
    if (!form.code || !form.code_verifier) return fail(400, 'invalid_request', 'code and code_verifier are required');
    const codeHash = hash(form.code);
    const item = await readOauthCode(codeHash);
    if (!item || Date.parse(item.expires_at as string) <= now().getTime()) return fail(400, 'invalid_grant', 'Malformed auth code.');
    if (item.redirect_uri !== form.redirect_uri) return fail(400, 'redirect_uri_mismatch', 'Bad Request');
    if (createHash('sha256').update(form.code_verifier).digest('base64url') !== item.code_challenge)
      return fail(400, 'invalid_grant', 'Invalid code verifier.');
    if (!(await spendOauthCode(codeHash))) return fail(400, 'invalid_grant', 'Bad Request');
    return { status: 200, body: await mint(`grant_${randomBytes(12).toString('hex')}`, item.scope as string, true) };
  }
  if (form.grant_type === 'refresh_token') {
    const item = form.refresh_token ? await readOauthToken(hash(form.refresh_token)) : undefined;
    if (!item || item.kind !== 'refresh' || item.revoked) return fail(400, 'invalid_grant', 'Token has been expired or revoked.');
    return { status: 200, body: await mint(item.grant_id as string, item.scope as string, false) };
  }
  return fail(400, 'unsupported_grant_type', 'Invalid grant_type');
}

/** Revoke a refresh or access token (a refresh token takes its grant's access tokens with it, as Google does). */
export async function sandboxRevoke(tokenValue: string | undefined): Promise<boolean> {
  if (!tokenValue) return false;
  const tokenHash = hash(tokenValue);
  const item = await readOauthToken(tokenHash);
  if (!item) return false;
  await revokeOauthToken(tokenHash);
  if (item.kind === 'refresh') await putGrantRevoked(item.grant_id as string);
  return true;
}

/** The grant behind a live Bearer access token, or undefined. */
export async function sandboxBearer(authorization: string | undefined): Promise<string | undefined> {
  const m = /^Bearer (\S+)$/.exec(authorization ?? '');
  if (!m) return undefined;
  const item = await readOauthToken(hash(m[1]!));
  if (!item || item.kind !== 'access' || item.revoked || Date.parse(item.expires_at as string) <= now().getTime()) return undefined;
  return (await grantRevoked(item.grant_id as string)) ? undefined : (item.grant_id as string);
}

/**
 * Make the next insert of `eventId` fail once with Google's 503 backendError, as Google
 * sometimes does (a test of what a booking does when Google fails mid-way).
 */
export async function failNextSandboxGoogleInsert(eventId: string): Promise<void> {
  await putInsertFault(eventId, ttlOf(now().getTime() + 3_600_000));
}

/** Insert an event: `failed` when a fault was injected for its id (taken once), `created: false` for an id already used (Google's 409). */
export async function sandboxInsertEvent(
  grantId: string,
  e: { id: string; summary: string; start: string; end: string },
): Promise<{ created: boolean; failed?: boolean }> {
  if (await takeInsertFault(e.id)) return { created: false, failed: true };
  return { created: await putGoogleEvent(grantId, e) };
}

export async function sandboxBusy(grantId: string, timeMin: number, timeMax: number): Promise<{ start: string; end: string }[]> {
  const busy: { start: number; end: number }[] = [];
  for (let d = Math.floor(timeMin / 86_400_000) * 86_400_000; d < timeMax; d += 86_400_000) busy.push({ start: d + 12 * 3_600_000, end: d + 13 * 3_600_000 });
  for (const i of await googleEventsOf(grantId)) busy.push({ start: Date.parse(i.start as string), end: Date.parse(i.end as string) });
  return busy
    .filter((b) => b.end > timeMin && b.start < timeMax)
    .sort((a, b) => a.start - b.start)
    .map((b) => ({ start: new Date(b.start).toISOString(), end: new Date(b.end).toISOString() }));
}
