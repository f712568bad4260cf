/**
 * Who gets a lane next (shared/calls/cps-limiter.ts), over a lane store in memory that keeps the
 * repository's take and release conditions, with the timers faked: a dial that missed its turn
 * is woken by the lane's release in this process, the earliest grant first, so the lane's next
 * fresh dial can no longer take the lane ahead of it every cycle. A dial asks for its lane from the
 * release this process knows, so it is not refused first at its grant's instant.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LaneHolder } from '../../../shared/policy/dial-pacing.js';

type Lane = { at: number; release: number | null; seq: number; callId: string };
const lanes = new Map<number, Lane>();
const takes: string[] = [];
/** Every take asked for (a write each), taken or refused. */
const asked: string[] = [];

vi.mock('../../../shared/repositories/dial-pacing.js', () => ({
  takeDialGrant: vi.fn(),
  async takeDialLane(_t: string, _a: string, lane: number, claim: { seq: number; callId: string; sendAt: number }) {
    asked.push(claim.callId);
    const held = lanes.get(lane);
    // Free by the instant asked for: never held, or released by then (the abandoned bound never comes in these tests).
    if (held && (held.release === null || held.release > claim.sendAt)) {
      return { taken: false, holder: { at: held.at, release: held.release, seq: held.seq } satisfies LaneHolder };
    }
    lanes.set(lane, { at: claim.sendAt, release: null, seq: claim.seq, callId: claim.callId });
    takes.push(claim.callId);
    return { taken: true };
  },
  async releaseDialLane(_t: string, _a: string, lane: number, seq: number, release: number) {
    const held = lanes.get(lane);
    if (held?.seq !== seq || held.release !== null) return false;
    held.release = release;
    return true;
  },
}));

const { holdDialLane, releaseUnusedLane, sendOnLane } = await import('../../../shared/calls/cps-limiter.js');

/** One lane (cps 1) of account `accountId`: grant `seq` at `grantAt`. */
const slot = (seq: number, grantAt: number, accountId = 'tac_1') => ({ tenantId: 'ten_1', accountId, cpsLimit: 1, grantAt, seq });

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  lanes.clear();
  takes.length = 0;
  asked.length = 0;
});
afterEach(() => vi.useRealTimers());

describe('a lane freed in this process', () => {
  it('goes to the earliest grant waiting for it, before a fresh dial that comes for it later', async () => {
    const t0 = Date.now();
    const first = slot(1, t0);
    const held = await holdDialLane(first, 'call_1', 30_000);
    // Grant 2 waits for the lane (its holder is not answered yet); grant 3 comes later and waits too.
    const second = holdDialLane(slot(2, t0 + 10), 'call_2', 30_000);
    await vi.advanceTimersByTimeAsync(50);
    const third = holdDialLane(slot(3, t0 + 60), 'call_3', 30_000);
    await vi.advanceTimersByTimeAsync(10);
    expect(takes).toEqual(['call_1']);

    // The first dial was never sent: its lane is free from its instant, and grant 2 — not 3 — takes it at once.
    await releaseUnusedLane(first, held);
    await vi.advanceTimersByTimeAsync(0);
    expect(takes).toEqual(['call_1', 'call_2']);
    // A fresh dial for the lane now finds it held by grant 2.
    const fresh = holdDialLane(slot(4, Date.now()), 'call_4', 30_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(takes).toEqual(['call_1', 'call_2']);

    // Grant 2's release wakes grant 3 next (the earliest still waiting), then the fresh one.
    await releaseUnusedLane(slot(2, t0 + 10), await second);
    await vi.advanceTimersByTimeAsync(0);
    expect(takes).toEqual(['call_1', 'call_2', 'call_3']);
    await releaseUnusedLane(slot(3, t0 + 60), await third);
    await vi.advanceTimersByTimeAsync(0);
    expect(takes).toEqual(['call_1', 'call_2', 'call_3', 'call_4']);
    await fresh;
  });

  it('a dial with no release to wake it looks again at its own instant (a holder in another process)', async () => {
    const t0 = Date.now();
    lanes.set(0, { at: t0, release: null, seq: 1, callId: 'elsewhere' });
    const waiting = holdDialLane(slot(2, t0 + 10), 'call_2', 30_000);
    await vi.advanceTimersByTimeAsync(500);
    expect(takes).toEqual([]);
    // The other process answers and writes its release; nothing here wakes the dial: it looks again a lane cycle after the holder's instant.
    lanes.get(0)!.release = t0 + 1_040;
    await vi.advanceTimersByTimeAsync(600);
    expect(takes).toEqual(['call_2']);
    expect(await waiting).toMatchObject({ lane: 0, sendAt: t0 + 1_040 });
  });

  it('a dial asks from the release this process wrote, once, and waits here for a holder not yet answered', async () => {
    // An account of its own: what this process knows of other tests' lanes does not apply.
    const t0 = Date.now();
    const first = slot(1, t0, 'tac_known');
    const held = await holdDialLane(first, 'call_1', 30_000);
    // Grant 2 comes while the first dial waits for the carrier: no write, it waits for the release here.
    const second = holdDialLane(slot(2, t0 + 100, 'tac_known'), 'call_2', 30_000);
    await vi.advanceTimersByTimeAsync(50);
    expect(asked).toEqual(['call_1']);
    // The carrier answers at t0 + 200: the lane frees a second and the guard later, and grant 2 takes it from then in one write.
    const answered = sendOnLane(
      first,
      held,
      () => holdDialLane(first, 'call_1', 30_000),
      async () => {
        await new Promise((r) => setTimeout(r, 150));
        return {};
      },
    );
    await vi.advanceTimersByTimeAsync(150);
    await answered;
    expect(await second).toMatchObject({ lane: 0, sendAt: t0 + 200 + 1_010 });
    expect(asked).toEqual(['call_1', 'call_2']);
  });
});
