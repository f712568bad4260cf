/**
 * Dial pacing (pure): an account's cps_limit as its carrier counts it — at most `cps` dials in
 * ANY one-second window of the carrier's clock, not per epoch second (20 dials at x.9 and 20 at
 * (x+1).1 are 40 in 0.2 s). See docs/decisions/dispatch-and-carrier.md. Two parts, the instant
 * always an argument (no clock, no I/O):
 *
 *  - **Permits** make the ceiling exact. The account has `cps` lanes; a dial holds one from the
 *    instant it may be sent until DIAL_GUARD_MS + one second after the carrier ANSWERED it. The
 *    carrier stamps a dial somewhere between our send and its answer (it cannot answer a request
 *    that has not reached it), so two dials of one lane are stamped more than a second apart,
 *    however long the trip or the carrier's handling took, and no carrier second ever holds more
 *    than one dial per lane: `cps` in all. No estimate of the trip is involved. A carrier that
 *    answers its own stamp to the millisecond (the sandbox) frees the lane a second and the guard
 *    after that stamp instead, which is exact for the same reason and owes nothing to the trip.
 *  - **Grants** (a cell-rate rule) order the dials and spread them a lane cycle / cps apart, so
 *    dispatchers reach their lanes one at a time, already past their transition, instead of
 *    waiting on the lanes in a herd. The account's state is one number, the instant of its next
 *    free grant, and a counter whose value picks the grant's lane. Grants alone are not a limit:
 *    how late a dial reaches the carrier after its grant is not ours to bound.
 */

/** An account whose carrier never told us its ceiling dials at one call a second. */
export const DEFAULT_CPS = 1;
/**
 * Clock skew (ms) between the workers that release a lane and take it next — a release is written
 * on one host's clock and read on another's — and, when a lane frees from the carrier's stamp,
 * between the carrier's clock and ours (the sandbox shares the process's clock locally and NTP's on AWS).
 */
export const DIAL_GUARD_MS = 10;
/** A dial that could not be sent within this of its permit's instant is not sent on that permit (ms): it takes a fresh one. */
export const DIAL_SEND_LATE_MS = 1_000;
/** The longest a carrier request may take before we give it up (ms); the carrier adapter aborts it then. */
export const DIAL_REQUEST_MAX_MS = 5_000;
/** How soon a dispatcher looks at a lane again whose holder is still waiting for the carrier's answer (ms). */
export const LANE_POLL_MS = 20;

export const cpsOf = (limit: number | null | undefined): number => (typeof limit === 'number' && limit > 0 ? Math.floor(limit) : DEFAULT_CPS);

/**
 * The interval between two grants: one lane cycle shared by `cps` lanes. A cycle is the second,
 * the guard, and how long a lane is held on top of them (`heldMs`: what this worker has seen
 * lately — the carrier's round trip, or the send to its stamp when it answers one), so grants
 * come as fast as lanes free up and no faster.
 */
export const dialSpacingMs = (cpsLimit: number | null | undefined, heldMs = 0): number => (1000 + DIAL_GUARD_MS + Math.max(0, heldMs)) / cpsOf(cpsLimit);

/**
 * No grant or permit is ever taken further ahead than a dispatcher waits (at most a minute): an
 * instant beyond this is a clock that moved back (the test clock; a host's jump), not a backlog.
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

/** The lane of the account's `seq`-th grant: the lanes are taken in turn. */
export const dialLane = (seq: number, cpsLimit: number | null | undefined): number => seq % cpsOf(cpsLimit);

/**
 * A lane's last holder: the instant it was allowed to send from (`at`) and, once the carrier
 * answered it (or it was not sent at all), the instant the lane is free again (`release`).
 */
export interface LaneHolder {
  at: number;
  release?: number | null;
  /** Its grant's number. */
  seq?: number;
}

/**
 * The carrier's own stamp of a dial and our send and its answer around it, all three on the clock
 * the carrier's is compared with (the hosts' wall clock, not a test's offset of ours).
 */
export interface CarrierStamp {
  sentAt: number;
  stampedAt: number;
  answeredAt: number;
}

/**
 * How long before its answer the carrier stamped the dial, or 0 when the stamp cannot be used: a
 * stamp further than the guard outside [send, answer] is a clock that disagrees with ours by more
 * than the guard covers. Within the guard it is held inside [send, answer].
 */
export function stampLeadMs(stamp: CarrierStamp | null | undefined): number {
  if (!stamp || !(stamp.stampedAt >= stamp.sentAt - DIAL_GUARD_MS && stamp.stampedAt <= stamp.answeredAt + DIAL_GUARD_MS)) return 0;
  return Math.max(0, Math.min(stamp.answeredAt - stamp.stampedAt, stamp.answeredAt - stamp.sentAt));
}

/**
 * The instant a lane frees once the carrier answered its dial at `answeredAt` (whatever the
 * answer: a refusal may have been counted too): a second and the guard after the answer, or after
 * the carrier's own stamp when it told us (`stamp`) — an instant that may already be past when the
 * answer comes (laneFreeAt takes it as it is).
 */
export const laneRelease = (answeredAt: number, stamp?: CarrierStamp | null): number => answeredAt - stampLeadMs(stamp) + 1000 + DIAL_GUARD_MS;

/**
 * A holder that never wrote its release (it crashed): it sent no later than DIAL_SEND_LATE_MS
 * after `at`, and its request was answered or given up DIAL_REQUEST_MAX_MS after that at most.
 */
export const ABANDONED_AFTER_MS = DIAL_SEND_LATE_MS + DIAL_REQUEST_MAX_MS + 1000 + DIAL_GUARD_MS;

/**
 * When a lane is free for a new holder, seen at `now`: never held → at once; released → its
 * release; still waiting for the carrier → not before `at` + the second and the guard (its answer
 * cannot come before its send), and at the latest ABANDONED_AFTER_MS after `at`. An instant more
 * than STALE_AHEAD_MS ahead of `now` is a clock that moved back: free.
 */
export function laneFreeAt(holder: LaneHolder | null | undefined, now: number): { at: number; known: boolean } {
  if (!holder) return { at: Number.NEGATIVE_INFINITY, known: true };
  const ahead = now + STALE_AHEAD_MS;
  if (holder.at > ahead || (typeof holder.release === 'number' && holder.release > ahead)) return { at: Number.NEGATIVE_INFINITY, known: true };
  if (typeof holder.release === 'number') return { at: holder.release, known: true };
  return { at: holder.at + ABANDONED_AFTER_MS, known: false };
}

export type LaneClaim = { sendAt: number } | { retryAt: number };

/**
 * The dial `me` (its grant's number and instant) asking, at `now`, for its lane whose holder is
 * `holder`: it takes the lane from max(wantAt, the lane's release) when the release is known,
 * else it looks again once the holder can have been answered — one lane cycle per grant between
 * them, for the dials of the lane granted in between go first — then every LANE_POLL_MS.
 */
export function claimLane(holder: LaneHolder | null | undefined, me: { seq: number; cpsLimit: number | null; wantAt: number }, now: number): LaneClaim {
  const free = laneFreeAt(holder, now);
  if (free.known || free.at <= me.wantAt) return { sendAt: Math.max(me.wantAt, free.at) };
  const cycles = holder!.seq === undefined ? 1 : Math.max(1, Math.floor((me.seq - holder!.seq) / cpsOf(me.cpsLimit)));
  const earliestAnswer = holder!.at + cycles * (1000 + DIAL_GUARD_MS);
  return { retryAt: Math.min(free.at, Math.max(earliestAnswer, now + LANE_POLL_MS)) };
}

/**
 * How long before its instant a dial starts its transition, from how long recent transitions
 * took (ms): as long as all but the slowest twentieth of them (a transition that ends after the
 * instant delays the dial and its lane's whole cycle by the overrun; a multiple of their mean was
 * short under load, when the tail is long), between 10 ms and 500 ms (the transition's checks —
 * a pause or cancel — stay that fresh).
 */
export function transitionLeadMs(recent: readonly number[]): number {
  if (recent.length === 0) return 50;
  const sorted = [...recent].sort((a, b) => a - b);
  return Math.min(500, Math.max(10, Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!)));
}
