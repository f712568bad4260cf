/** The pacing rule behind the cps ceiling (pure): no one-second window of the carrier's clock ever holds more than cps dials, the instant an input. */
import { describe, expect, it } from 'vitest';
import {
  ABANDONED_AFTER_MS,
  claimLane,
  cpsOf,
  DEFAULT_CPS,
  DIAL_GUARD_MS,
  DIAL_REQUEST_MAX_MS,
  DIAL_SEND_LATE_MS,
  dialLane,
  dialSpacingMs,
  LANE_POLL_MS,
  type LaneHolder,
  laneFreeAt,
  laneRelease,
  paceDial,
  STALE_AHEAD_MS,
  stampLeadMs,
  transitionLeadMs,
} from '../../shared/policy/dial-pacing.js';

/** 250 dial requests in bursts: some at once, some tens or hundreds of ms apart, some on the next second's edge. */
function burstyRequests(r: () => number): number[] {
  const requests: number[] = [];
  let t = 0;
  for (let i = 0; i < 250; i++) {
    const kind = r();
    t += kind < 0.4 ? 0 : kind < 0.7 ? r() * 30 : kind < 0.9 ? r() * 400 : 1000 - (t % 1000);
    requests.push(Math.round(t));
  }
  return requests;
}

/** The most instants in any half-open window [t, t + width) (a carrier's sliding second). */
function maxInAnyWindow(instants: readonly number[], width = 1000): number {
  const sorted = [...instants].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= width) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** A deterministic generator (the test must fail the same way every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Requests at the given instants, granted in arrival order against one account's state (what
 * the atomic writes serialise to). A refused one is handed back and asks again a second later
 * (the dispatcher's due item), unless `handBack` is false.
 */
function grantAll(requests: readonly number[], spacing: number, maxWaitMs = 20_000, handBack = true): { grants: number[]; refused: number } {
  let nextAt: number | null = null;
  const grants: number[] = [];
  let refused = 0;
  const queue = [...requests].sort((a, b) => a - b);
  while (queue.length > 0) {
    const at = queue.shift()!;
    const out = paceDial(nextAt, at, spacing, maxWaitMs);
    if ('busyUntil' in out) {
      refused++;
      if (handBack) {
        const again = at + 1000;
        const i = queue.findIndex((q) => q > again);
        queue.splice(i === -1 ? queue.length : i, 0, again);
      }
      continue;
    }
    expect(out.grantAt).toBeGreaterThanOrEqual(at);
    grants.push(out.grantAt);
    nextAt = out.nextAt;
  }
  return { grants, refused };
}

/** Events by instant, ties in insertion order (a binary heap: the simulations below run tens of thousands). */
class EventHeap {
  private items: { t: number; n: number; run: () => void }[] = [];
  private n = 0;
  push(t: number, run: () => void): void {
    const items = this.items;
    items.push({ t, n: this.n++, run });
    for (let i = items.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!this.before(items[i]!, items[p]!)) break;
      [items[i], items[p]] = [items[p]!, items[i]!];
      i = p;
    }
  }
  pop(): (() => void) | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top && last && items.length > 0) {
      items[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && this.before(items[l]!, items[m]!)) m = l;
        if (r < items.length && this.before(items[r]!, items[m]!)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top?.run;
  }
  private before(a: { t: number; n: number }, b: { t: number; n: number }): boolean {
    return a.t < b.t || (a.t === b.t && a.n < b.n);
  }
}

/** What happens to one dial between its lane and the carrier (all instants on one clock; ms). */
interface Fate {
  /** After its lane's instant, before the request leaves (a busy worker); at most DIAL_SEND_LATE_MS. */
  late: number;
  /** The request's trip until the carrier stamps the dial. */
  trip: number;
  /** The carrier's handling after the stamp, and the answer's trip back. */
  back: number;
  /** The release's write lands this long after the answer. */
  releaseWrite: number;
  /** How far the carrier's clock is ahead of ours (ms; negative: behind): its stamps are read on it, and so is what it answers. */
  skew?: number;
  /** The worker dies: after sending (no release ever written), before (nothing sent, nothing released), or not. */
  crash: 'after_send' | 'before_send' | null;
  /** The transition found the call taken: the lane is released unused. */
  unused: boolean;
}

/**
 * Dispatchers taking their grant's lane through claimLane and sending on it, in one event loop
 * whose every step is atomic (what each conditional write on a lane item serialises to). Returns
 * the carrier's stamps, on its own clock (ours + the fate's skew). `release` is the rule under
 * test: when the lane frees after an answer, given the stamp the carrier answered (its clock).
 */
function dialThroughLanes(
  grants: readonly number[],
  cps: number,
  fate: (i: number) => Fate,
  release: (answeredAt: number, sentAt: number, stampedAt: number) => number = (answeredAt) => laneRelease(answeredAt),
): { stamps: number[]; maxWaitMs: number; polls: number } {
  let polls = 0;
  const lanes = new Map<number, LaneHolder>();
  const events = new EventHeap();
  const at = (t: number, run: () => void) => events.push(t, run);
  const stamps: number[] = [];
  let maxWaitMs = 0;
  grants.forEach((grantAt, seq) => {
    const f = fate(seq);
    const lane = dialLane(seq, cps);
    const ask = (t: number) => {
      const out = claimLane(lanes.get(lane), { seq, cpsLimit: cps, wantAt: Math.max(grantAt, t) }, t);
      if ('retryAt' in out) {
        if (!(out.retryAt > t)) throw new Error(`a retry at ${out.retryAt} is not after ${t}`);
        polls++;
        return at(out.retryAt, () => ask(out.retryAt));
      }
      const holder: LaneHolder = { at: out.sendAt, seq };
      lanes.set(lane, holder);
      maxWaitMs = Math.max(maxWaitMs, out.sendAt - grantAt);
      if (f.unused)
        return at(out.sendAt, () => {
          holder.release = out.sendAt;
        });
      if (f.crash === 'before_send') return;
      const sentAt = out.sendAt + Math.min(f.late, DIAL_SEND_LATE_MS);
      const stampedAt = sentAt + f.trip + (f.skew ?? 0);
      at(sentAt + f.trip, () => stamps.push(stampedAt));
      if (f.crash === 'after_send') return;
      const answeredAt = sentAt + Math.min(f.trip + f.back, DIAL_REQUEST_MAX_MS);
      at(answeredAt + f.releaseWrite, () => {
        holder.release = release(answeredAt, sentAt, stampedAt);
      });
    };
    at(grantAt, () => ask(grantAt));
  });
  for (let e = events.pop(); e; e = events.pop()) e();
  return { stamps, maxWaitMs, polls };
}

const calm = (): Fate => ({ late: 0, trip: 5, back: 20, releaseWrite: 5, crash: null, unused: false });

/** Trips from a few ms to over a second, long stalls before sending, slow releases, and now and then a crash or an unused lane. */
const stormy = (r: () => number) => (): Fate => {
  const x = r();
  return {
    late: r() < 0.2 ? r() * DIAL_SEND_LATE_MS : r() * 20,
    trip: r() < 0.15 ? r() * 1500 : r() * 40,
    back: r() < 0.1 ? r() * 2000 : r() * 60,
    releaseWrite: r() * 50,
    crash: x < 0.02 ? 'after_send' : x < 0.04 ? 'before_send' : null,
    unused: x > 0.95,
  };
};

/** The dispatcher's rule when the carrier answers its stamp (on its clock; our send and answer on ours). */
const fromStamp = (answeredAt: number, sentAt: number, stampedAt: number) => laneRelease(answeredAt, { sentAt, stampedAt, answeredAt });

describe('dial pacing: grants', () => {
  it('takes the account’s limit, or one call a second when the carrier never said', () => {
    expect(cpsOf(10)).toBe(10);
    expect(cpsOf(null)).toBe(DEFAULT_CPS);
    expect(cpsOf(0)).toBe(DEFAULT_CPS);
    expect(cpsOf(2.7)).toBe(2);
    expect(dialSpacingMs(10)).toBeCloseTo((1000 + DIAL_GUARD_MS) / 10);
    // A lane cycle includes the carrier's round trip: grants come as fast as lanes free, no faster.
    expect(dialSpacingMs(10, 40)).toBeCloseTo((1000 + DIAL_GUARD_MS + 40) / 10);
  });

  it('grants at once when idle, then one spacing apart; a grant past the wait is refused and takes nothing', () => {
    const s = dialSpacingMs(10);
    expect(paceDial(null, 5_000, s, 1_000)).toEqual({ grantAt: 5_000, nextAt: 5_000 + s });
    expect(paceDial(4_000, 5_000, s, 1_000)).toEqual({ grantAt: 5_000, nextAt: 5_000 + s });
    expect(paceDial(5_400, 5_000, s, 1_000)).toEqual({ grantAt: 5_400, nextAt: 5_400 + s });
    expect(paceDial(6_001, 5_000, s, 1_000)).toEqual({ busyUntil: 6_001 });
  });

  it('forgets a next grant further ahead than any dispatcher waits: the clock moved back, the account is idle', () => {
    const s = dialSpacingMs(10);
    expect(paceDial(5_000 + STALE_AHEAD_MS, 5_000, s, 1_000)).toEqual({ busyUntil: 5_000 + STALE_AHEAD_MS });
    expect(paceDial(5_001 + STALE_AHEAD_MS, 5_000, s, 1_000)).toEqual({ grantAt: 5_000, nextAt: 5_000 + s });
  });

  it('refuses what lies past the wait, and the refusal does not move the account’s next grant', () => {
    const { grants, refused } = grantAll(
      Array.from({ length: 50 }, () => 0),
      dialSpacingMs(10),
      1_000,
      false,
    );
    expect(grants).toHaveLength(Math.floor(1000 / dialSpacingMs(10)) + 1);
    expect(refused).toBe(50 - grants.length);
  });

  it('grants alone are no ceiling: a dial that reaches the carrier later than the next one breaks it', () => {
    // The cause of "11 dials in one second at cps 10": grants (1000 + guard) / cps apart, and a
    // trip from grant to the carrier's stamp that varies by more than the guard between dials.
    const { grants } = grantAll(
      Array.from({ length: 100 }, () => 0),
      dialSpacingMs(10),
    );
    const landed = grants.map((g, i) => g + (i === 0 ? DIAL_GUARD_MS + 40 : 0));
    expect(maxInAnyWindow(landed)).toBe(11);
  });
});

describe('dial pacing: lanes', () => {
  it('a lane is free at once when never held, at its release once answered, and in flight until its abandoned bound', () => {
    expect(laneFreeAt(undefined, 5_000)).toEqual({ at: Number.NEGATIVE_INFINITY, known: true });
    expect(laneFreeAt({ at: 4_000, release: 5_300 }, 5_000)).toEqual({ at: 5_300, known: true });
    expect(laneFreeAt({ at: 4_000 }, 5_000)).toEqual({ at: 4_000 + ABANDONED_AFTER_MS, known: false });
    expect(ABANDONED_AFTER_MS).toBe(DIAL_SEND_LATE_MS + DIAL_REQUEST_MAX_MS + 1000 + DIAL_GUARD_MS);
    expect(laneRelease(7_000)).toBe(8_000 + DIAL_GUARD_MS);
    // A clock moved back leaves a holder far ahead: forgotten.
    expect(laneFreeAt({ at: 5_001 + STALE_AHEAD_MS }, 5_000).at).toBe(Number.NEGATIVE_INFINITY);
    expect(laneFreeAt({ at: 4_000, release: 5_001 + STALE_AHEAD_MS }, 5_000).at).toBe(Number.NEGATIVE_INFINITY);
  });

  it('claims from the later of the grant and the release; waits on a holder still waiting for its answer', () => {
    const me = (wantAt: number, seq = 13) => ({ seq, cpsLimit: 10, wantAt });
    expect(claimLane(undefined, me(5_000), 4_990)).toEqual({ sendAt: 5_000 });
    expect(claimLane({ at: 3_000, release: 4_500 }, me(5_000), 4_990)).toEqual({ sendAt: 5_000 });
    expect(claimLane({ at: 3_000, release: 5_200 }, me(5_000), 4_990)).toEqual({ sendAt: 5_200 });
    // In flight since 4_800: its answer cannot free the lane before 5_810; then polled.
    expect(claimLane({ at: 4_800, seq: 3 }, me(5_000), 4_990)).toEqual({ retryAt: 4_800 + 1000 + DIAL_GUARD_MS });
    expect(claimLane({ at: 3_000, seq: 3 }, me(5_000), 4_990)).toEqual({ retryAt: 4_990 + LANE_POLL_MS });
    // Two more dials of the lane were granted in between: they go first, a cycle each.
    expect(claimLane({ at: 4_800, seq: 3 }, me(5_000, 33), 4_990)).toEqual({ retryAt: 4_800 + 3 * (1000 + DIAL_GUARD_MS) });
    // Abandoned (its worker died): taken back at its bound.
    expect(claimLane({ at: 3_000 }, me(3_000 + ABANDONED_AFTER_MS), 3_000 + ABANDONED_AFTER_MS)).toEqual({ sendAt: 3_000 + ABANDONED_AFTER_MS });
    expect(dialLane(0, 10)).toBe(0);
    expect(dialLane(23, 10)).toBe(3);
    expect(dialLane(5, null)).toBe(0);
  });

  it('no second of the carrier’s clock ever holds more than cps dials, whatever the trips, stalls, crashes and bursts', () => {
    for (const cps of [1, 2, 3, 10, 100]) {
      for (let seed = 1; seed <= 6; seed++) {
        const r = rng(seed * 1000 + cps);
        const requests = burstyRequests(r);
        // Grants paced for no round trip at all: lanes, not grants, hold the line.
        const { grants } = grantAll(requests, dialSpacingMs(cps));
        const { stamps } = dialThroughLanes(grants, cps, stormy(r));
        expect(stamps.length).toBeGreaterThan(0);
        expect(maxInAnyWindow(stamps)).toBeLessThanOrEqual(cps);
      }
    }
  });

  it('a lane freed a second after the SEND instead of the answer lets a slow trip through: cps + 1 (the rule is what holds it)', () => {
    const r = rng(7);
    const { grants } = grantAll(
      Array.from({ length: 400 }, () => 0),
      dialSpacingMs(10),
    );
    const naive = (_answeredAt: number, sentAt: number) => sentAt + 1000 + DIAL_GUARD_MS;
    expect(maxInAnyWindow(dialThroughLanes(grants, 10, stormy(r), naive).stamps)).toBeGreaterThan(10);
    expect(maxInAnyWindow(dialThroughLanes(grants, 10, stormy(rng(7))).stamps)).toBeLessThanOrEqual(10);
  });

  it('a lane frees a second and the guard after the carrier’s stamp when it answers one, even if that instant is already past', () => {
    // Stamped 40 ms after the send, answered 600 ms after it: free 1,010 ms after the stamp, not the answer.
    expect(laneRelease(7_600, { sentAt: 7_000, stampedAt: 7_040, answeredAt: 7_600 })).toBe(7_040 + 1000 + DIAL_GUARD_MS);
    // Answered 1.5 s after a stamp: the release is past when written; a lane claimed from then is free at once.
    const past = laneRelease(9_000, { sentAt: 7_000, stampedAt: 7_500, answeredAt: 9_000 });
    expect(past).toBe(7_500 + 1000 + DIAL_GUARD_MS);
    expect(claimLane({ at: 7_000, release: past, seq: 3 }, { seq: 13, cpsLimit: 10, wantAt: 9_005 }, 9_005)).toEqual({ sendAt: 9_005 });
    // Only the stamp's distance to the answer counts: the same on any clock both instants share.
    expect(laneRelease(107_600, { sentAt: 7_000, stampedAt: 7_040, answeredAt: 7_600 })).toBe(107_040 + 1000 + DIAL_GUARD_MS);
    // A stamp within the guard outside [send, answer] is held inside it; further out, the clocks disagree: the answer rules.
    expect(stampLeadMs({ sentAt: 7_000, stampedAt: 6_995, answeredAt: 7_600 })).toBe(600);
    expect(stampLeadMs({ sentAt: 7_000, stampedAt: 7_605, answeredAt: 7_600 })).toBe(0);
    expect(stampLeadMs({ sentAt: 7_000, stampedAt: 7_000 - DIAL_GUARD_MS - 1, answeredAt: 7_600 })).toBe(0);
    expect(stampLeadMs({ sentAt: 7_000, stampedAt: 7_600 + DIAL_GUARD_MS + 1, answeredAt: 7_600 })).toBe(0);
    expect(laneRelease(7_600, null)).toBe(laneRelease(7_600));
  });

  it('with the carrier’s stamps, no second of its clock holds more than cps dials: stamps anywhere in [send, answer], trips to 1.5 s, clocks a guard apart', () => {
    for (const cps of [1, 2, 3, 10, 100]) {
      for (let seed = 1; seed <= 6; seed++) {
        for (const skew of [0, DIAL_GUARD_MS, -DIAL_GUARD_MS]) {
          const r = rng(seed * 7919 + cps);
          const requests = burstyRequests(r);
          const { grants } = grantAll(requests, dialSpacingMs(cps));
          const stormyStamp = stormy(r);
          const { stamps } = dialThroughLanes(grants, cps, () => ({ ...stormyStamp(), skew }), fromStamp);
          expect(stamps.length).toBeGreaterThan(0);
          expect(maxInAnyWindow(stamps)).toBeLessThanOrEqual(cps);
        }
      }
    }
  });

  it('a stamp from a clock far from ours is not trusted: taken as reported it breaks the ceiling, the rule falls back to the answer', () => {
    const { grants } = grantAll(
      Array.from({ length: 400 }, () => 0),
      dialSpacingMs(10),
    );
    // The carrier's clock 5 s behind ours (a host off NTP; a test that moved ours): its stamps land outside [send, answer].
    const fate = (i: number): Fate => ({ late: 0, trip: i % 3 ? 5 : 400, back: 300, releaseWrite: 0, crash: null, unused: false, skew: -5_000 });
    const asReported = (_answeredAt: number, _sentAt: number, stampedAt: number) => stampedAt + 1000 + DIAL_GUARD_MS;
    expect(maxInAnyWindow(dialThroughLanes(grants, 10, fate, asReported).stamps)).toBeGreaterThan(10);
    expect(maxInAnyWindow(dialThroughLanes(grants, 10, fate, fromStamp).stamps)).toBeLessThanOrEqual(10);
  });

  it('a full backlog with a carrier that answers its stamp runs at a lane cycle of the second, the guard and the trip to the stamp, whatever the answer’s trip back', () => {
    const toStamp = 5;
    const { grants } = grantAll(
      Array.from({ length: 500 }, () => 0),
      dialSpacingMs(10, toStamp),
    );
    const slowAnswer = (): Fate => ({ late: 0, trip: toStamp, back: 600, releaseWrite: 5, crash: null, unused: false });
    const { stamps } = dialThroughLanes(grants, 10, slowAnswer, fromStamp);
    expect(stamps).toHaveLength(500);
    expect(maxInAnyWindow(stamps)).toBe(10);
    const span = Math.max(...stamps) - Math.min(...stamps);
    // A lane cycle of the second, the guard and the trip to the stamp: the answer 600 ms later is not in it.
    expect(span / 1000).toBeCloseTo((499 * (1000 + DIAL_GUARD_MS + toStamp)) / 10_000, 0);
    // The same carrier without its stamp: the answer's 600 ms trip back is in every cycle.
    const { stamps: unstamped } = dialThroughLanes(grants, 10, slowAnswer);
    const slower = Math.max(...unstamped) - Math.min(...unstamped);
    expect(slower / span).toBeGreaterThan(1.5);
  });

  it('a full backlog with a calm carrier runs at the ceiling less the round trip and the guard, never waiting long on a lane', () => {
    const roundTrip = 25;
    const { grants } = grantAll(
      Array.from({ length: 500 }, () => 0),
      dialSpacingMs(10, roundTrip),
    );
    const { stamps, maxWaitMs } = dialThroughLanes(grants, 10, calm);
    expect(stamps).toHaveLength(500);
    expect(maxInAnyWindow(stamps)).toBe(10);
    // Grants paced at the lane cycle: each lane is free (or nearly) when its next grant comes.
    expect(maxWaitMs).toBeLessThan(10);
    const span = Math.max(...stamps) - Math.min(...stamps);
    expect(span / 1000).toBeCloseTo((499 * (1000 + DIAL_GUARD_MS + roundTrip)) / 10_000, 0);
  });
});

describe('transitionLeadMs', () => {
  it('leads by all but the slowest twentieth of recent transitions, between 10 and 500 ms', () => {
    expect(transitionLeadMs([])).toBe(50);
    // A long tail: the mean (~98 ms) would leave one dial in ten late; the lead covers the 95th.
    const recent = [...Array.from({ length: 56 }, () => 60), 200, 210, 220, 230, 240, 250, 380, 390];
    expect(transitionLeadMs(recent)).toBe(240);
    expect(recent.filter((ms) => ms > transitionLeadMs(recent)).length).toBeLessThanOrEqual(recent.length / 20);
    expect(transitionLeadMs([1, 2, 3])).toBe(10);
    expect(transitionLeadMs([900, 1200])).toBe(500);
  });
});
