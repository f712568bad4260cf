/** The pacing rule behind the cps ceiling (pure): no one-second window ever holds more than cps dials, the instant an input. */
import { describe, expect, it } from 'vitest';
import { cpsOf, DEFAULT_CPS, DIAL_GUARD_MS, dialSpacingMs, leastDialSpanMs, paceDial, STALE_AHEAD_MS } from '../../shared/policy/dial-pacing.js';

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
function grantAll(requests: readonly number[], cps: number, maxWaitMs = 20_000, handBack = true): { grants: number[]; refused: number } {
  let nextAt: number | null = null;
  const grants: number[] = [];
  let refused = 0;
  const queue = [...requests].sort((a, b) => a - b);
  while (queue.length > 0) {
    const at = queue.shift()!;
    const out = paceDial(nextAt, at, dialSpacingMs(cps), maxWaitMs);
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

describe('dial pacing', () => {
  it('takes the account’s limit, or one call a second when the carrier never said', () => {
    expect(cpsOf(10)).toBe(10);
    expect(cpsOf(null)).toBe(DEFAULT_CPS);
    expect(cpsOf(0)).toBe(DEFAULT_CPS);
    expect(cpsOf(2.7)).toBe(2);
    expect(dialSpacingMs(10)).toBeCloseTo((1000 + DIAL_GUARD_MS) / 10);
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

  it('the epoch-second counter it replaces let 2 × cps through in 0.2 s; paced grants never do', () => {
    // 20 at x.9 and 20 at (x + 1).1: each epoch second holds 20, the sliding second 40.
    const epochCounted = [...Array(20).fill(1_900), ...Array(20).fill(2_100)];
    expect(maxInAnyWindow(epochCounted)).toBe(40);
    expect(maxInAnyWindow(grantAll(epochCounted, 20).grants)).toBe(20);
  });

  it('no one-second window ever holds more than cps grants, for bursts, trickles and mixes, at every cps', () => {
    for (const cps of [1, 2, 3, 7, 10, 20, 100]) {
      for (let seed = 1; seed <= 20; seed++) {
        const r = rng(seed * 1000 + cps);
        const requests: number[] = [];
        let t = 0;
        for (let i = 0; i < 400; i++) {
          // Bursts of simultaneous requests, gaps, and requests landing on second boundaries.
          const kind = r();
          t += kind < 0.4 ? 0 : kind < 0.7 ? r() * 30 : kind < 0.9 ? r() * 400 : 1000 - (t % 1000);
          requests.push(Math.round(t));
        }
        const { grants } = grantAll(requests, cps);
        expect(grants).toHaveLength(requests.length);
        expect(maxInAnyWindow(grants)).toBeLessThanOrEqual(cps);
      }
    }
  });

  it('still at most cps in any second of the carrier’s clock when each dial lands up to the guard late', () => {
    for (const cps of [5, 10, 20, 100]) {
      const r = rng(cps);
      const { grants } = grantAll(
        Array.from({ length: 1000 }, () => 0),
        cps,
      );
      const landed = grants.map((g) => g + r() * DIAL_GUARD_MS);
      expect(maxInAnyWindow(landed)).toBeLessThanOrEqual(cps);
      // The worst case: cps dials late by (almost) all the guard, the next one on time; a millisecond more is one too many.
      const late = (by: number) => [...grants.slice(0, cps).map((g) => g + by), grants[cps]!];
      expect(maxInAnyWindow(late(DIAL_GUARD_MS - 0.01))).toBeLessThanOrEqual(cps);
      // (At 100 cps, 100 grants alone outlast a second: the guard is spread over more dials than it needs.)
      if (cps <= 20) expect(maxInAnyWindow(late(DIAL_GUARD_MS + 1))).toBe(cps + 1);
    }
  });

  it('a full backlog runs at the ceiling less the guard: 500 dials at 10 cps span 499 spacings', () => {
    const { grants } = grantAll(
      Array.from({ length: 500 }, () => 0),
      10,
    );
    expect(grants.at(-1)! - grants[0]!).toBeCloseTo(leastDialSpanMs(500, 10));
    expect(leastDialSpanMs(500, 10) / 1000).toBeCloseTo((499 * (1000 + DIAL_GUARD_MS)) / 10_000);
  });

  it('refuses what lies past the wait, and the refusal does not move the account’s next grant', () => {
    const { grants, refused } = grantAll(
      Array.from({ length: 50 }, () => 0),
      10,
      1_000,
      false,
    );
    // Grants at 0, 103, …, ≤ 1000 ms ahead: ⌊1000 / spacing⌋ + 1 of them; the rest refused.
    expect(grants).toHaveLength(Math.floor(1000 / dialSpacingMs(10)) + 1);
    expect(refused).toBe(50 - grants.length);
  });
});
