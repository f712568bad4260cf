/**
 * The Google Calendar adapter: OAuth 2.0 authorization code + PKCE (S256) through
 * `oauth4webapi` (panva), free/busy and event insertion over Google's Calendar REST API.
 *
 * Where Google is reached is a deployment setting: GOOGLE_API_BASE_URL. Unset, the real
 * hosts (accounts.google.com, oauth2.googleapis.com, www.googleapis.com); set (locally:
 * `<PUBLIC_BASE_URL>/sandbox/google`), every endpoint sits under it with Google's own paths,
 * which is how the sandbox plays Google offline. oauth4webapi refuses http:// endpoints; the
 * allowInsecureRequests option is set only when the base URL is this deployment's own
 * sandbox on plain http (the local server), never for a configured remote.
 *
 * Client credentials: app secret fields google_oauth_client_id / google_oauth_client_secret;
 * against the sandbox, its fixed sandbox client (the sandbox is not a secret holder).
 * Tokens are sealed at rest (repositories/integration-connections.ts), refreshed here when the
 * access token has expired (or is about to), and never logged.
 */
import * as oauth from 'oauth4webapi';
import { now } from '../clock.js';
import { DomainError } from '../errors.js';
import type { Interval } from '../policy/calendar/availability.js';
import { type ConnectionRecord, markConnectionError, type OAuthTokens, openTokens, storeRefreshedTokens } from '../repositories/integration-connections.js';
import { appSecrets } from '../secrets.js';
import { publicBaseUrl } from '../telephony/endpoints.js';

const GOOGLE_SCOPES = ['https://www.googleapis.com/auth/calendar.freebusy', 'https://www.googleapis.com/auth/calendar.events'];
export const SANDBOX_GOOGLE_CLIENT = { id: 'sandbox-google-client', secret: 'sandbox-google-client-secret' };
/** Refresh this long before the access token's stated expiry. */
const REFRESH_SKEW_MS = 60_000;

const trim = (u: string) => u.replace(/\/+$/, '');
const configuredBase = () => (process.env.GOOGLE_API_BASE_URL ? trim(process.env.GOOGLE_API_BASE_URL) : undefined);
const sandboxGoogleBase = () => `${publicBaseUrl()}/sandbox/google`;
const isSandbox = () => configuredBase() !== undefined && configuredBase() === sandboxGoogleBase();

function googleEndpoints() {
  const base = configuredBase();
  return {
    authorize: base ? `${base}/o/oauth2/v2/auth` : 'https://accounts.google.com/o/oauth2/v2/auth',
    token: base ? `${base}/token` : 'https://oauth2.googleapis.com/token',
    revoke: base ? `${base}/revoke` : 'https://oauth2.googleapis.com/revoke',
    calendar: base ? `${base}/calendar/v3` : 'https://www.googleapis.com/calendar/v3',
  };
}

const redirectUri = () => `${publicBaseUrl()}/oauth/google/callback`;

function authorizationServer(): oauth.AuthorizationServer {
  const e = googleEndpoints();
  return { issuer: 'https://accounts.google.com', authorization_endpoint: e.authorize, token_endpoint: e.token, revocation_endpoint: e.revoke };
}

/** Only this deployment's own plain-http sandbox may be reached without TLS. */
const requestOptions = () => (isSandbox() && sandboxGoogleBase().startsWith('http://') ? { [oauth.allowInsecureRequests]: true } : {});

async function clientCredentials(): Promise<{ id: string; secret: string }> {
  if (isSandbox()) return SANDBOX_GOOGLE_CLIENT;
  const s = await appSecrets();
  if (!s.googleOAuth)
    throw new DomainError(
      'conflict',
      'provider_not_configured',
      'Google Calendar is not configured on this deployment (no OAuth client); use sandbox_calendar',
    );
  return { id: s.googleOAuth.clientId, secret: s.googleOAuth.clientSecret };
}

export interface AuthorizationStart {
  authorizeUrl: string;
  state: string;
  codeVerifier: string;
}

/** A fresh state + PKCE verifier and the URL the user opens. */
export async function startAuthorization(): Promise<AuthorizationStart> {
  const client = await clientCredentials();
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(googleEndpoints().authorize);
  url.searchParams.set('client_id', client.id);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', GOOGLE_SCOPES.join(' '));
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', state);
  url.searchParams.set('access_type', 'offline');
  url.searchParams.set('prompt', 'consent');
  return { authorizeUrl: url.href, state, codeVerifier };
}

export interface ExchangedTokens {
  tokens: OAuthTokens;
  accessExpiresAt: string;
  scopes: string[];
}

/** Google's token endpoint could not be reached: a clear 502 (never the transport's message, which may name the request). */
const unreachable = () =>
  new DomainError(
    'upstream_failed',
    'oauth_provider_unreachable',
    'Google could not be reached to complete the authorization; start again from /v1/integration-connections/oauth/start',
  );

const expiryOf = (expiresIn: number | undefined) => new Date(now().getTime() + (expiresIn ?? 3600) * 1000).toISOString();

/** Exchange the callback's code (state checked by oauth4webapi against `expectedState`, PKCE by the server). */
export async function exchangeCode(callback: URLSearchParams, expectedState: string, codeVerifier: string): Promise<ExchangedTokens> {
  const as = authorizationServer();
  const c = await clientCredentials();
  const client: oauth.Client = { client_id: c.id };
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(as, client, callback, expectedState);
  } catch (err) {
    throw new DomainError('bad_request', 'oauth_callback_invalid', `The authorization response was refused: ${(err as Error).message}`);
  }
  let response: Response;
  try {
    response = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretPost(c.secret), params, redirectUri(), codeVerifier, requestOptions());
  } catch {
    // Google never answered (DNS, connection, TLS, timeout): nothing was granted that we know of.
    throw unreachable();
  }
  let result: oauth.TokenEndpointResponse;
  try {
    result = await oauth.processAuthorizationCodeResponse(as, client, response);
  } catch (err) {
    throw new DomainError(
      'upstream_failed',
      'oauth_exchange_failed',
      `Google refused the authorization code (${(err as { error?: string }).error ?? 'invalid response'})`,
    );
  }
  return {
    tokens: { access_token: result.access_token, refresh_token: result.refresh_token ?? null },
    accessExpiresAt: expiryOf(result.expires_in),
    scopes: result.scope ? result.scope.split(' ') : GOOGLE_SCOPES,
  };
}

/** A usable access token: the stored one, or a refreshed one (stored sealed) when it has expired. */
async function accessToken(c: ConnectionRecord): Promise<string> {
  const tokens = await openTokens(c);
  const at = now();
  if (c.access_expires_at && Date.parse(c.access_expires_at) - REFRESH_SKEW_MS > at.getTime()) return tokens.access_token;
  if (!tokens.refresh_token) {
    await markConnectionError(c, at);
    throw new DomainError('conflict', 'calendar_reauthorization_required', 'The calendar connection has expired and holds no refresh token; connect it again');
  }
  const as = authorizationServer();
  const cc = await clientCredentials();
  const client: oauth.Client = { client_id: cc.id };
  let response: Response;
  try {
    response = await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretPost(cc.secret), tokens.refresh_token, requestOptions());
  } catch {
    throw new DomainError('upstream_failed', 'calendar_provider_error', 'Google could not be reached to refresh the calendar connection');
  }
  let result: oauth.TokenEndpointResponse;
  try {
    result = await oauth.processRefreshTokenResponse(as, client, response);
  } catch (err) {
    // Google answered, but not with tokens. An OAuth error (invalid_grant: revoked, expired)
    // is a refusal: the connection is in error until it is connected again. Anything else
    // (a 5xx, an unreadable answer) is Google failing, not refusing.
    if (!(err instanceof oauth.ResponseBodyError))
      throw new DomainError('upstream_failed', 'calendar_provider_error', 'Google did not answer the token refresh properly');
    await markConnectionError(c, at);
    throw new DomainError('conflict', 'calendar_reauthorization_required', 'Google refused to refresh the calendar connection; connect it again');
  }
  const fresh = { access_token: result.access_token, refresh_token: result.refresh_token ?? tokens.refresh_token };
  await storeRefreshedTokens(c, fresh, expiryOf(result.expires_in), at);
  return fresh.access_token;
}

/** Revoke the refresh token (or access token) at Google; a failure does not stop the local revoke. */
export async function revokeAtGoogle(c: ConnectionRecord): Promise<boolean> {
  try {
    return await revokeTokensAtGoogle(await openTokens(c));
  } catch {
    return false;
  }
}

/** Revoke tokens we hold but will not keep (a connection that could not be stored); best effort. */
export async function revokeTokensAtGoogle(tokens: OAuthTokens): Promise<boolean> {
  try {
    const cc = await clientCredentials();
    const response = await oauth.revocationRequest(
      authorizationServer(),
      { client_id: cc.id },
      oauth.ClientSecretPost(cc.secret),
      tokens.refresh_token ?? tokens.access_token,
      requestOptions(),
    );
    await oauth.processRevocationResponse(response);
    return true;
  } catch {
    return false;
  }
}

async function calendarFetch(c: ConnectionRecord, path: string, body: unknown): Promise<Record<string, unknown>> {
  const token = await accessToken(c);
  let res: Response;
  try {
    res = await fetch(`${googleEndpoints().calendar}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    throw new DomainError('upstream_failed', 'calendar_provider_error', 'Google Calendar could not be reached');
  }
  if (!res.ok) throw new DomainError('upstream_failed', 'calendar_provider_error', `Google Calendar answered ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
}

/** Busy blocks of the primary calendar in [from, to). */
export async function googleFreeBusy(c: ConnectionRecord, from: number, to: number): Promise<Interval[]> {
  const out = await calendarFetch(c, '/freeBusy', { timeMin: new Date(from).toISOString(), timeMax: new Date(to).toISOString(), items: [{ id: 'primary' }] });
  const busy = (out.calendars as Record<string, { busy?: { start: string; end: string }[] }> | undefined)?.primary?.busy ?? [];
  return busy.map((b) => ({ start: Date.parse(b.start), end: Date.parse(b.end) })).filter((b) => Number.isFinite(b.start) && Number.isFinite(b.end));
}

/** Insert an event on the primary calendar; `requestId` makes a retry create nothing new (Google's event id). */
export async function googleInsertEvent(c: ConnectionRecord, e: { id: string; startsAt: string; endsAt: string; summary: string }): Promise<string> {
  const out = await calendarFetch(c, '/calendars/primary/events', {
    id: e.id,
    summary: e.summary,
    start: { dateTime: e.startsAt },
    end: { dateTime: e.endsAt },
  });
  return (out.id as string) ?? e.id;
}
