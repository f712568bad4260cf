/**
 * Short-lived capabilities the carrier carries for us, HMAC-SHA256 under a key the caller
 * passes in (a deployment secret), checked against the instant `at` the caller passes in:
 *   - the Stream token (<Connect><Stream><Parameter name="token">): which tenant, call,
 *     agent version, number and policy version the voice runtime is serving;
 *   - the Gather action URL's query: which call, number, policy version and menu the key
 *     press answers, and how many invalid presses were already made there;
 *   - the ConversationRelay <Connect action> URL's query: the call's Stream claims and how
 *     many times its relay was reconnected.
 * Each MAC covers a purpose label, so one kind can never stand in for another. The
 * carrier's own X-Twilio-Signature covers the whole URL as well; this signature is what
 * makes the URL's state ours rather than merely Twilio-delivered.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
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

/* ---- signed callback URLs: our state in the query, MAC'd under a purpose ---- */

type SignedFields = readonly string[];
type Values<F extends SignedFields> = Record<F[number], string>;
type QueryLike = URLSearchParams | Record<string, string | undefined>;

// JSON of the values in a fixed order: no separator a value could contain can shift a boundary.
const fieldsMessage = <F extends SignedFields>(fields: F, values: Values<F>) => JSON.stringify(fields.map((f) => values[f as F[number]]));

function signQuery<F extends SignedFields>(key: CallTokenKey, purpose: string, fields: F, values: Values<F>): URLSearchParams {
  const params = new URLSearchParams(fields.map((f) => [f, values[f as F[number]]]));
  params.set('sig', mac(key, purpose, fieldsMessage(fields, values)).toString('base64url'));
  return params;
}

/** The query's values for `fields` when all are present and `sig` is their MAC (checked before any value is read). */
function readSignedQuery<F extends SignedFields>(
  key: CallTokenKey,
  purpose: string,
  fields: F,
  query: QueryLike,
): { ok: true; values: Values<F> } | { ok: false; reason: 'malformed' | 'bad_signature' } {
  const get = (k: string) => (query instanceof URLSearchParams ? (query.get(k) ?? undefined) : Object.hasOwn(query, k) ? query[k] : undefined);
  const values = Object.fromEntries(fields.map((f) => [f, get(f)]));
  const sig = get('sig');
  if (!sig || !isB64url(sig) || fields.some((f) => values[f] === undefined)) return { ok: false, reason: 'malformed' };
  const v = values as Values<F>;
  if (!sameMac(mac(key, purpose, fieldsMessage(fields, v)), sig)) return { ok: false, reason: 'bad_signature' };
  return { ok: true, values: v };
}

/** A decimal count 0…max as written by us (no sign, no leading zero), else undefined. */
const count = (s: string, max: number) => (/^(0|[1-9]\d{0,15})$/.test(s) && Number(s) <= max ? Number(s) : undefined);

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

/** The query parameters of a Gather action URL: the state, its expiry and `sig`. */
export function signGatherParams(key: CallTokenKey, state: GatherState, at: Date, ttlSeconds = GATHER_TTL_SECONDS): URLSearchParams {
  return signQuery(key, GATHER, GATHER_FIELDS, {
    tenant_id: state.tenant_id,
    call_id: state.call_id,
    number_id: state.number_id,
    policy_version: String(state.policy_version),
    step_path: state.step_path,
    invalid_attempts: String(state.invalid_attempts),
    exp: String(epoch(at) + ttlSeconds),
  });
}

/** `base` (the configured public callback URL) with the signed state as its query. */
export const gatherActionUrl = (base: string, key: CallTokenKey, state: GatherState, at: Date, ttlSeconds?: number): string =>
  `${base}?${signGatherParams(key, state, at, ttlSeconds).toString()}`;

/** The state a Gather callback's query carries, if it is ours, untampered and unexpired. */
export function verifyGatherParams(key: CallTokenKey, query: QueryLike, at: Date): TokenCheck<VerifiedGatherState> {
  const read = readSignedQuery(key, GATHER, GATHER_FIELDS, query);
  if (!read.ok) return read;
  const v = read.values;
  const policyVersion = count(v.policy_version, Number.MAX_SAFE_INTEGER);
  const invalid = count(v.invalid_attempts, 100);
  const exp = count(v.exp, Number.MAX_SAFE_INTEGER);
  if (!policyVersion || invalid === undefined || exp === undefined || !decodeStepPath(v.step_path)) return { ok: false, reason: 'malformed' };
  if (epoch(at) >= exp) return { ok: false, reason: 'expired' };
  return {
    ok: true,
    claims: {
      tenant_id: v.tenant_id,
      call_id: v.call_id,
      number_id: v.number_id,
      policy_version: policyVersion,
      step_path: v.step_path,
      invalid_attempts: invalid,
      exp,
    },
  };
}

/* ---- ConversationRelay <Connect action> URL ---- */

/**
 * What the relay's action callback needs to answer for the call: the Stream token's claims
 * (to hand a reconnect the same capability) and how many times the relay was already
 * reconnected after its WebSocket died (bounded, so a broken runtime cannot loop a caller).
 */
export interface RelayActionState extends StreamClaims {
  reconnects: number;
}
export type VerifiedRelayActionState = RelayActionState & { exp: number };

const RELAY_ACTION = 'relay-action.v1';
const RELAY_ACTION_FIELDS = ['tenant_id', 'call_id', 'agent_version_id', 'number_id', 'policy_version', 'reconnects', 'exp'] as const;
const MAX_RECONNECTS_SIGNED = 100;

/** The query of a relay action URL; valid as long as the Stream token (the session lasts the call). */
export function signRelayActionParams(key: CallTokenKey, state: RelayActionState, at: Date, ttlSeconds = STREAM_TOKEN_TTL_SECONDS): URLSearchParams {
  return signQuery(key, RELAY_ACTION, RELAY_ACTION_FIELDS, {
    tenant_id: state.tenant_id,
    call_id: state.call_id,
    agent_version_id: state.agent_version_id,
    number_id: state.number_id,
    // 0 = not answered by a policy (policy versions start at 1).
    policy_version: String(state.policy_version ?? 0),
    reconnects: String(state.reconnects),
    exp: String(epoch(at) + ttlSeconds),
  });
}

export const relayActionUrl = (base: string, key: CallTokenKey, state: RelayActionState, at: Date, ttlSeconds?: number): string =>
  `${base}?${signRelayActionParams(key, state, at, ttlSeconds).toString()}`;

export function verifyRelayActionParams(key: CallTokenKey, query: QueryLike, at: Date): TokenCheck<VerifiedRelayActionState> {
  const read = readSignedQuery(key, RELAY_ACTION, RELAY_ACTION_FIELDS, query);
  if (!read.ok) return read;
  const v = read.values;
  const policyVersion = count(v.policy_version, Number.MAX_SAFE_INTEGER);
  const reconnects = count(v.reconnects, MAX_RECONNECTS_SIGNED);
  const exp = count(v.exp, Number.MAX_SAFE_INTEGER);
  if (policyVersion === undefined || reconnects === undefined || exp === undefined || [v.tenant_id, v.call_id, v.agent_version_id, v.number_id].some((s) => !s))
    return { ok: false, reason: 'malformed' };
  if (epoch(at) >= exp) return { ok: false, reason: 'expired' };
  return {
    ok: true,
    claims: {
      tenant_id: v.tenant_id,
      call_id: v.call_id,
      agent_version_id: v.agent_version_id,
      number_id: v.number_id,
      ...(policyVersion ? { policy_version: policyVersion } : {}),
      reconnects,
      exp,
    },
  };
}

/** A signed callback query as the OpenAPI document shows it: every state field and its `sig` (the handlers read them raw). */
const signedQuery = (fields: SignedFields, what: string) =>
  z.object(
    Object.fromEntries(
      [...fields, 'sig'].map((f) => [f, z.string().describe(f === 'sig' ? `Our MAC over the ${what} state (base64url)` : `Signed ${what} state`)]),
    ),
  );
export const gatherQuery = signedQuery(GATHER_FIELDS, 'menu');
export const relayActionQuery = signedQuery(RELAY_ACTION_FIELDS, 'relay action');
