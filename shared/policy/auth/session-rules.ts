/**
 * Dashboard session rules (see docs/decisions/auth-and-sessions.md), pure: the cookie's name and attributes, how long a
 * session lives, and the Origin check state-changing cookie routes make.
 *
 * - `__Host-` prefix, `Secure`, `HttpOnly`, `SameSite=Strict`, `Path=/`, no Domain: the
 *   browser sends it only to this exact host over HTTPS, never to script, never cross-site.
 * - The value is `vas_<tenant_id>.<secret>` (256-bit secret); the record stores SHA-256 of it.
 * - Idle expiry 30 minutes (each use slides it, written at most once a minute), absolute
 *   expiry 12 hours from sign-in, whichever comes first; sign-out deletes the record.
 */
export const SESSION_COOKIE = '__Host-vac_session';
export const SESSION_TOKEN_PREFIX = 'vas';
const SESSION_IDLE_MS = 30 * 60_000;
const SESSION_ABSOLUTE_MS = 12 * 3_600_000;
/** A session's last use is rewritten only when older than this (one write a minute, not one per request). */
const SESSION_TOUCH_MS = 60_000;

export interface SessionTimes {
  created_at: string;
  last_used_at: string;
}

export const absoluteExpiry = (s: Pick<SessionTimes, 'created_at'>): number => Date.parse(s.created_at) + SESSION_ABSOLUTE_MS;
const idleExpiry = (s: Pick<SessionTimes, 'last_used_at'>): number => Date.parse(s.last_used_at) + SESSION_IDLE_MS;
/** When the session stops working if it is not used again (ms). */
const sessionExpiry = (s: SessionTimes): number => Math.min(absoluteExpiry(s), idleExpiry(s));
export const sessionActive = (s: SessionTimes, at: Date): boolean => at.getTime() < sessionExpiry(s);
export const needsTouch = (s: SessionTimes, at: Date): boolean => at.getTime() - Date.parse(s.last_used_at) >= SESSION_TOUCH_MS;

/** The Set-Cookie value that hands the session to the browser (it expires with the absolute expiry). */
export function sessionCookie(value: string, maxAgeSeconds = SESSION_ABSOLUTE_MS / 1000): string {
  return `${SESSION_COOKIE}=${value}; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; Path=/; Secure; HttpOnly; SameSite=Strict`;
}

/** The Set-Cookie value that removes it (sign-out). */
export const clearedSessionCookie = (): string => `${SESSION_COOKIE}=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Strict`;

/**
 * The session cookie's value from an API Gateway v2 event's `cookies` (one `name=value` per
 * entry) or a raw Cookie header; undefined when absent. Two session cookies = none (ambiguous).
 */
export function readSessionCookie(cookies: readonly string[] | undefined, header?: string): string | undefined {
  const pairs = [...(cookies ?? []), ...(header ? header.split(';') : [])];
  const values = pairs
    .map((p) => p.trim())
    .filter((p) => p.startsWith(`${SESSION_COOKIE}=`))
    .map((p) => p.slice(SESSION_COOKIE.length + 1));
  return values.length === 1 && values[0] ? values[0] : undefined;
}

export const STATE_CHANGING_METHODS: readonly string[] = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** Exact match of a request's Origin header against the configured origin (scheme, host, port). */
export function originAllowed(origin: string | undefined, expected: string | undefined): boolean {
  if (!origin || !expected) return false;
  return origin === normalizeOrigin(expected);
}

/** `https://Dash.Example.com/` → `https://dash.example.com` (what a browser sends as Origin). */
export function normalizeOrigin(value: string): string {
  try {
    return new URL(value).origin;
  } catch {
    return value;
  }
}
