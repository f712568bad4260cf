/**
 * Sign-in throttling (see docs/decisions/auth-and-sessions.md), pure: the instant is an argument.
 *
 * Passwords: progressive delays, never a lockout (OWASP). Failures are counted per account
 * (the email), per source and account (IP + email) and per source (IP, over every email).
 * Once a scope has seen `free` failures, each further failure makes its next attempt wait
 * 1 s, 2 s, 4 s … at most `capSeconds` after that failure; a scope quiet for `forgetSeconds`
 * starts over. An attempt counts as a failure from the moment it is admitted (concurrent
 * guesses cannot share one opening); a success resets the account's scopes and gives the
 * source its attempt back. So the right password waits at most `capSeconds` after the last
 * wrong one — nobody can lock an account by guessing at it.
 *
 * Emailed sign-in links: fixed windows, a slot spent per request (a mailbox is not flooded).
 */
export interface BackoffRule {
  /** Failures allowed before any delay. */
  readonly free: number;
  readonly baseSeconds: number;
  readonly capSeconds: number;
  /** Failures older than this (since the last one) are forgotten. */
  readonly forgetSeconds: number;
}

/** The longest any password attempt is made to wait after the last failure. */
export const PASSWORD_DELAY_CAP_SECONDS = 60;

export const PASSWORD_BACKOFF = {
  /** One source guessing one account: the tight one. */
  password_pair: { free: 5, baseSeconds: 1, capSeconds: PASSWORD_DELAY_CAP_SECONDS, forgetSeconds: 15 * 60 },
  /** One account, guessed from anywhere: slows a distributed guesser, never locks the owner out. */
  password_account: { free: 10, baseSeconds: 1, capSeconds: PASSWORD_DELAY_CAP_SECONDS, forgetSeconds: 15 * 60 },
  /** One source over every account (password spraying). */
  password_source: { free: 30, baseSeconds: 1, capSeconds: PASSWORD_DELAY_CAP_SECONDS, forgetSeconds: 15 * 60 },
} as const satisfies Record<string, BackoffRule>;
export type PasswordScope = keyof typeof PASSWORD_BACKOFF;

/** A scope's counter: failures so far, when the last was admitted, when the next may be (epoch ms). */
export interface BackoffState {
  readonly failures: number;
  readonly lastAt: number;
  readonly nextAt: number;
}

/** How long the attempt after `failures` failures waits: 0 while free, then doubling up to the cap. */
export const delaySeconds = (failures: number, rule: BackoffRule): number =>
  failures < rule.free ? 0 : Math.min(rule.capSeconds, rule.baseSeconds * 2 ** (failures - rule.free));

const forgotten = (state: BackoffState | undefined, at: Date, rule: BackoffRule) => !state || at.getTime() - state.lastAt >= rule.forgetSeconds * 1000;

export type Admission = { admitted: true; next: BackoffState } | { admitted: false; retryAfterSeconds: number };

/**
 * May an attempt be made at `at`? If so, the state to store: the attempt already counted as
 * a failure (a success takes it back); else how many seconds until it may.
 */
export function admit(state: BackoffState | undefined, at: Date, rule: BackoffRule): Admission {
  const current = forgotten(state, at, rule) ? { failures: 0, lastAt: 0, nextAt: 0 } : state!;
  const t = at.getTime();
  // Only a delay refuses: with none, an instant a little before the last failure (another
  // host's clock) is no reason to wait.
  if (current.nextAt > current.lastAt && t < current.nextAt) return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((current.nextAt - t) / 1000)) };
  const failures = current.failures + 1;
  return { admitted: true, next: { failures, lastAt: t, nextAt: t + delaySeconds(failures, rule) * 1000 } };
}

/** When a stored counter may be dropped (epoch seconds, for the TTL): forgotten by then. */
export const backoffExpiry = (state: BackoffState, rule: BackoffRule): number => Math.ceil((state.lastAt + rule.forgetSeconds * 1000) / 1000) + 60;

export interface ThrottleLimit {
  readonly max: number;
  readonly windowSeconds: number;
}

export const THROTTLES = {
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
