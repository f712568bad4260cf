/**
 * Sign-in throttling (see docs/decisions/auth-and-sessions.md), pure: fixed windows per scope. A password attempt holds a
 * slot in both its account's and its source's window; a success gives both back, so the
 * counters count failures (and attempts still running). An emailed sign-in link spends a slot
 * per request (a mailbox is not flooded). Limits are per window; the refusal is 429 with
 * Retry-After until the window ends.
 */
export interface ThrottleLimit {
  readonly max: number;
  readonly windowSeconds: number;
}

export const THROTTLES = {
  /** Wrong passwords for one email (known or not). */
  password_account: { max: 5, windowSeconds: 15 * 60 },
  /** Wrong passwords from one source IP, over every email. */
  password_source: { max: 30, windowSeconds: 15 * 60 },
  /** Emailed sign-in links per email address. */
  link_account: { max: 3, windowSeconds: 15 * 60 },
  /** Emailed sign-in links per source IP. */
  link_source: { max: 20, windowSeconds: 15 * 60 },
} as const satisfies Record<string, ThrottleLimit>;
export type ThrottleScope = keyof typeof THROTTLES;

export const windowStart = (at: Date, limit: ThrottleLimit): number => Math.floor(at.getTime() / 1000 / limit.windowSeconds) * limit.windowSeconds;
export const windowEnd = (at: Date, limit: ThrottleLimit): number => windowStart(at, limit) + limit.windowSeconds;
/** Seconds until the window that refused resets (at least 1). */
export const retryAfterSeconds = (at: Date, limit: ThrottleLimit): number => Math.max(1, Math.ceil(windowEnd(at, limit) - at.getTime() / 1000));
