/**
 * Short-lived capabilities the carrier carries for us, HMAC-SHA256 under a key the caller
 * passes in (a deployment secret), checked against the instant `at` the caller passes in:
 *   - the Stream token (<Connect><Stream><Parameter name="token">): which tenant, call,
 *     agent version, number and policy version the voice runtime is serving;
 *   - the Gather action URL's query: which call, number, policy version and menu the key
 *     press answers, and how many invalid presses were already made there.
 * Each MAC covers a purpose label, so one kind can never stand in for the other. The
 * carrier's own X-Twilio-Signature covers the whole URL as well; this signature is what
 * makes the URL's state ours rather than merely Twilio-delivered.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { decodeStepPath } from '../policy/answering/step-path.js';

export type CallTokenKey = string | Uint8Array;
export type TokenCheck<T> = { ok: true; claims: T } | { ok: false; reason: 'malformed' | 'bad_signature' | 'expired' };

/**
 * The voice runtime reports a call's events with its Stream token for as long as the call
 * lasts (and flushes after the hang-up), so the token must outlive the longest call: 4 h by
 * default, STREAM_TOKEN_TTL_SECONDS to change it (streamTokenTtlSeconds()).
 */
export const STREAM_TOKEN_TTL_SECONDS = 4 * 60 * 60;
const MIN_STREAM_TTL = 60;
const MAX_STREAM_TTL = 24 * 60 * 60;

/** STREAM_TOKEN_TTL_SECONDS as seconds: a whole number 60…86,400; anything else is the default (4 h). */
export function streamTokenTtlSeconds(value: string | undefined = process.env.STREAM_TOKEN_TTL_SECONDS): number {
  if (value === undefined || !/^\d+$/.test(value.trim())) return STREAM_TOKEN_TTL_SECONDS;
  const n = Number(value.trim());
  return n >= MIN_STREAM_TTL && n <= MAX_STREAM_TTL ? n : STREAM_TOKEN_TTL_SECONDS;
}
/** A caller may listen to a long prompt, replay it and take the full timeout: allow a generous quarter hour. */
export const GATHER_TTL_SECONDS = 15 * 60;
const MIN_KEY_BYTES = 32;

function mac(key: CallTokenKey, purpose: string, message: string): Buffer {
  const k = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  if (k.length < MIN_KEY_BYTES) throw new Error(`call token key must be at least ${MIN_KEY_BYTES} bytes`);
  return createHmac('sha256', k).update(`${purpose}\n${message}`, 'utf8').digest();
}

function sameMac(expected: Buffer, given: string): boolean {
  const g = Buffer.from(given, 'base64url');
  return g.length === expected.length && timingSafeEqual(g, expected);
}

const epoch = (at: Date) => Math.floor(at.getTime() / 1000);
const isB64url = (s: string) => /^[A-Za-z0-9_-]+$/.test(s);

/* ---- Stream token ---- */

export interface StreamClaims {
  tenant_id: string;
  call_id: string;
  agent_version_id: string;
  number_id: string;
  /** Present when the call is answered by an answering policy. */
  policy_version?: number;
}
export type VerifiedStreamClaims = StreamClaims & { exp: number };

const STREAM = 'stream-token.v1';

/** `v1.<base64url JSON claims>.<base64url MAC>`; valid until `at` + ttl. */
export function mintStreamToken(key: CallTokenKey, claims: StreamClaims, at: Date, ttlSeconds = STREAM_TOKEN_TTL_SECONDS): string {
  const body: VerifiedStreamClaims = { ...claims, exp: epoch(at) + ttlSeconds };
  const payload = Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
  return `v1.${payload}.${mac(key, STREAM, payload).toString('base64url')}`;
}

export function verifyStreamToken(key: CallTokenKey, token: string, at: Date): TokenCheck<VerifiedStreamClaims> {
  const [version, payload, sig, ...rest] = token.split('.');
  if (version !== 'v1' || !payload || !sig || rest.length || !isB64url(payload) || !isB64url(sig)) return { ok: false, reason: 'malformed' };
  if (!sameMac(mac(key, STREAM, payload), sig)) return { ok: false, reason: 'bad_signature' };
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (!isStreamClaims(claims)) return { ok: false, reason: 'malformed' };
  if (epoch(at) >= claims.exp) return { ok: false, reason: 'expired' };
  return { ok: true, claims };
}

function isStreamClaims(c: unknown): c is VerifiedStreamClaims {
  if (typeof c !== 'object' || c === null) return false;
  const o = c as Record<string, unknown>;
  const strings = ['tenant_id', 'call_id', 'agent_version_id', 'number_id'].every((k) => typeof o[k] === 'string' && (o[k] as string).length > 0);
  const version = o.policy_version === undefined || (Number.isInteger(o.policy_version) && (o.policy_version as number) >= 1);
  return strings && version && Number.isInteger(o.exp);
}

/* ---- Gather action URL ---- */

export interface GatherState {
  tenant_id: string;
  call_id: string;
  number_id: string;
  policy_version: number;
  /** The menu's compact step path (shared/policy/answering/step-path.ts). */
  step_path: string;
  /** Invalid presses already made at this menu. */
  invalid_attempts: number;
}
export type VerifiedGatherState = GatherState & { exp: number };

const GATHER = 'gather-action.v1';
const GATHER_FIELDS = ['tenant_id', 'call_id', 'number_id', 'policy_version', 'step_path', 'invalid_attempts', 'exp'] as const;
// JSON of the values in a fixed order: no separator a value could contain can shift a boundary.
const gatherMessage = (values: Record<(typeof GATHER_FIELDS)[number], string>) => JSON.stringify(GATHER_FIELDS.map((f) => values[f]));

/** The query parameters of a Gather action URL: the state, its expiry and `sig`. */
export function signGatherParams(key: CallTokenKey, state: GatherState, at: Date, ttlSeconds = GATHER_TTL_SECONDS): URLSearchParams {
  const values = {
    tenant_id: state.tenant_id,
    call_id: state.call_id,
    number_id: state.number_id,
    policy_version: String(state.policy_version),
    step_path: state.step_path,
    invalid_attempts: String(state.invalid_attempts),
    exp: String(epoch(at) + ttlSeconds),
  };
  const params = new URLSearchParams(values);
  params.set('sig', mac(key, GATHER, gatherMessage(values)).toString('base64url'));
  return params;
}

/** `base` (the configured public callback URL) with the signed state as its query. */
export const gatherActionUrl = (base: string, key: CallTokenKey, state: GatherState, at: Date, ttlSeconds?: number): string =>
  `${base}?${signGatherParams(key, state, at, ttlSeconds).toString()}`;

/** The state a Gather callback's query carries, if it is ours, untampered and unexpired. */
export function verifyGatherParams(key: CallTokenKey, query: URLSearchParams | Record<string, string | undefined>, at: Date): TokenCheck<VerifiedGatherState> {
  const get = (k: string) => (query instanceof URLSearchParams ? (query.get(k) ?? undefined) : Object.hasOwn(query, k) ? query[k] : undefined);
  const values = Object.fromEntries(GATHER_FIELDS.map((f) => [f, get(f)]));
  const sig = get('sig');
  if (!sig || !isB64url(sig) || GATHER_FIELDS.some((f) => values[f] === undefined)) return { ok: false, reason: 'malformed' };
  const v = values as Record<(typeof GATHER_FIELDS)[number], string>;
  if (!sameMac(mac(key, GATHER, gatherMessage(v)), sig)) return { ok: false, reason: 'bad_signature' };
  const count = (s: string, max: number) => (/^(0|[1-9]\d{0,9})$/.test(s) && Number(s) <= max ? Number(s) : undefined);
  const policyVersion = count(v.policy_version, Number.MAX_SAFE_INTEGER);
  const invalid = count(v.invalid_attempts, 100);
  const exp = count(v.exp, Number.MAX_SAFE_INTEGER);
  if (!policyVersion || invalid === undefined || exp === undefined || !decodeStepPath(v.step_path)) return { ok: false, reason: 'malformed' };
  if (epoch(at) >= exp) return { ok: false, reason: 'expired' };
  return { ok: true, claims: { tenant_id: v.tenant_id, call_id: v.call_id, number_id: v.number_id, policy_version: policyVersion, step_path: v.step_path, invalid_attempts: invalid, exp } };
}
