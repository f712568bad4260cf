/**
 * Dial pacing (pure): an account's cps_limit as its carrier counts it — at most `cps` dials in
 * ANY one-second window of the carrier's clock, not per epoch second (20 dials at x.9 and 20 at
 * (x+1).1 are 40 in 0.2 s). Each grant is an instant: the first one free at or after the
 * request, and the next one `spacing` later (a cell-rate rule: the account's state is one
 * number, the instant of its next free grant). Grants `spacing` apart put at most `cps` of
 * them in any window of `cps × spacing` ms, and that is 1,000 ms plus a guard: a dial may land
 * at the carrier up to the guard later than its instant (the request's own trip, the
 * carrier's handling, clocks) and still never make `cps + 1` in one second of the carrier's.
 * See docs/decisions/dispatch-and-carrier.md. The instant is an argument; no clock, no I/O.
 */

/** An account whose carrier never told us its ceiling dials at one call a second. */
export const DEFAULT_CPS = 1;
/** What a dial may land later than its instant without breaking the ceiling (ms). */
export const DIAL_GUARD_MS = 30;

export const cpsOf = (limit: number | null | undefined): number => (typeof limit === 'number' && limit > 0 ? Math.floor(limit) : DEFAULT_CPS);

/** The interval between two grants on an account: `cps` of them span one second plus the guard. */
export const dialSpacingMs = (cpsLimit: number | null | undefined, guardMs = DIAL_GUARD_MS): number => (1000 + guardMs) / cpsOf(cpsLimit);

/**
 * No grant is ever taken further ahead than a dispatcher waits (at most a minute): a `next_at`
 * beyond this is a clock that moved back (the test clock; a host's jump), not a backlog.
 */
export const STALE_AHEAD_MS = 60_000;

export type PaceOutcome = { grantAt: number; nextAt: number } | { busyUntil: number };

/**
 * A dial asking at `at` on an account whose next free grant is `nextAt` (null: never dialled):
 * its grant is max(nextAt, at) and the account's next one `spacing` after it; a grant more than
 * `maxWaitMs` ahead is refused, and nothing is taken. A `nextAt` more than STALE_AHEAD_MS ahead
 * is forgotten (the account is idle).
 */
export function paceDial(nextAt: number | null, at: number, spacing: number, maxWaitMs: number): PaceOutcome {
  const idle = nextAt === null || nextAt < at || nextAt - at > STALE_AHEAD_MS;
  const grantAt = idle ? at : nextAt;
  if (grantAt - at > maxWaitMs) return { busyUntil: grantAt };
  return { grantAt, nextAt: grantAt + spacing };
}

/** The least time `n` dials take at `cps` from the first to the last grant (ms). */
export const leastDialSpanMs = (n: number, cpsLimit: number | null | undefined, guardMs = DIAL_GUARD_MS): number =>
  Math.max(0, n - 1) * dialSpacingMs(cpsLimit, guardMs);
