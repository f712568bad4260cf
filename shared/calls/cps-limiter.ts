/**
 * The account's calls-per-second ceiling (cps_limit), across every dispatch worker at once, as
 * the carrier counts it: at most cps_limit dials in ANY one-second window of its clock
 * (shared/policy/dial-pacing.ts). A dial goes through two steps:
 *
 *  1. A grant (one conditional write on the account's pacing item): an instant, paced a lane
 *     cycle / cps after the account's previous one, and the lane it will take. A grant further
 *     ahead than MAX_WAIT_MS is refused: nothing dialled, and the dispatcher hands the call back
 *     until the backlog ahead of it is within the wait again (a delayed message, and a due
 *     item then as its safety net), so a long backlog never dead-letters.
 *  2. Its lane, from the grant's instant (one conditional write, while the dial's transition
 *     runs): the dial may go to the carrier from the instant the lane's previous dial was
 *     answered + a second + the guard (stamped, when the carrier answers its stamp), and it
 *     releases the lane the same way once the carrier answered it. That is what makes the
 *     ceiling exact; the grant only keeps dispatchers from queueing on the lanes.
 *
 * The transition starts one lead before the grant's instant (a pause or cancel answered
 * meanwhile still stops the dial). A dial that is not sent after all (the transition found the
 * call taken) releases its lane at once.
 */
import { now } from '../clock.js';
import { logger } from '../observability.js';
import { claimLane, DIAL_SEND_LATE_MS, dialLane, dialSpacingMs, type LaneHolder, laneRelease, transitionLeadMs } from '../policy/dial-pacing.js';
import { RecentlyUsed } from '../recently-used.js';
import { releaseDialLane, takeDialGrant, takeDialLane } from '../repositories/dial-pacing.js';

const MAX_WAIT_MS = 20_000;

export class DialSlotsBusy extends Error {
  /** When asking again can find a grant within the wait (epoch ms; null: not known). */
  constructor(
    message: string,
    readonly retryAt: number | null = null,
  ) {
    super(message);
  }
}

/** The last RECENT_TRANSITIONS dial transitions of this process (ms): the lead before a grant's instant (transitionLeadMs). */
const RECENT_TRANSITIONS = 64;
const recentTransitions: number[] = [];
let nextTransition = 0;
const leadMs = () => transitionLeadMs(recentTransitions);
/** How long lanes were held lately in this process on top of the second and the guard (ms): the carrier's round trip, or the send to its stamp. */
let laneHeldMs = 0;

const sleepUntil = async (at: number) => {
  const wait = at - now().getTime();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
};

export interface DialSlot {
  tenantId: string;
  accountId: string;
  cpsLimit: number | null;
  /** The grant: the instant (epoch ms of now()'s clock) the dial may go at the earliest. */
  grantAt: number;
  /** The grant's number on the account: it names the lane. */
  seq: number;
}

/**
 * A grant. `forTransition`: the dial's transition still lies ahead, so the earliest instant it
 * can go is one lead away (an idle account's grant is then not already late when the transition
 * is done).
 */
export async function acquireDialSlot(
  tenantId: string,
  accountId: string,
  cpsLimit: number | null,
  opts: { maxWaitMs?: number; forTransition?: boolean } = {},
): Promise<DialSlot> {
  const maxWaitMs = opts.maxWaitMs ?? MAX_WAIT_MS;
  const earliest = now().getTime() + (opts.forTransition ? leadMs() : 0);
  const grant = await takeDialGrant(tenantId, accountId, earliest, dialSpacingMs(cpsLimit, laneHeldMs), maxWaitMs);
  if ('busyUntil' in grant)
    throw new DialSlotsBusy(
      `account ${accountId}: no dial slot within ${maxWaitMs} ms (next at ${new Date(grant.busyUntil).toISOString()})`,
      grant.busyUntil - maxWaitMs,
    );
  return { tenantId, accountId, cpsLimit, grantAt: grant.grantAt, seq: grant.seq };
}

/** Waits until the dial's transition should start: its grant's instant less the lead. */
export async function waitUntilDialLead(grantAt: number): Promise<void> {
  await sleepUntil(grantAt - leadMs());
}

/** Runs the dial's transition, learning how long transitions take (the last RECENT_TRANSITIONS). */
export async function timedTransition<T>(run: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await run();
  } finally {
    recentTransitions[nextTransition++ % RECENT_TRANSITIONS] = Date.now() - started;
  }
}

/** A lane held by a dial: send at or after `sendAt`, then release it. */
export interface HeldLane {
  lane: number;
  sendAt: number;
}

/**
 * The dials of this process waiting for a lane whose holder has not been answered yet, by
 * account and lane. A release written here wakes the one with the earliest grant at once (it
 * then takes the lane from the release's instant, before the lane's next fresh dial comes for
 * it); a holder in another process is looked at again at claimLane's instant. Without this, a
 * dial that once missed its turn woke a lane cycle after its holder, just after the next fresh
 * dial had taken the lane again — every cycle, until it gave up.
 */
const waiting = new Map<string, { seq: number; wake: () => void }[]>();
const laneId = (slot: Pick<DialSlot, 'tenantId' | 'accountId'>, lane: number) => `${slot.tenantId}|${slot.accountId}|${lane}`;

/** Resolves at `at`, or earlier when a release of the lane in this process wakes this dial (the earliest grant waiting first). */
function untilReleasedOr(slot: DialSlot, lane: number, at: number): Promise<void> {
  const id = laneId(slot, lane);
  return new Promise<void>((resolve) => {
    const queue = waiting.get(id) ?? waiting.set(id, []).get(id)!;
    const me = { seq: slot.seq, wake: () => done() };
    const timer = setTimeout(() => done(), Math.max(0, at - now().getTime()));
    function done() {
      clearTimeout(timer);
      const i = queue.indexOf(me);
      if (i >= 0) queue.splice(i, 1);
      if (queue.length === 0 && waiting.get(id) === queue) waiting.delete(id);
      resolve();
    }
    queue.push(me);
  });
}

/** A release of the lane was written by this process: the earliest grant waiting for it looks again now. */
function released(slot: Pick<DialSlot, 'tenantId' | 'accountId'>, lane: number): void {
  const queue = waiting.get(laneId(slot, lane));
  if (!queue?.length) return;
  queue.reduce((a, b) => (b.seq < a.seq ? b : a)).wake();
}

/**
 * The last holder of each lane this process took, released, or learnt of from a refused take. A
 * dial asks for its lane from that holder's release rather than from its grant's instant (the
 * lanes run a little behind the grants, so the grant's instant was refused about as often as not:
 * one more write each), and a holder of this process still waiting for its answer is waited for
 * here rather than asked about. Only a guess: the lane's own condition still decides, and a holder
 * another process took since is learnt from the refusal.
 */
const lastHolders = new RecentlyUsed<string, LaneHolder>(1_024);

/** A later holder replaces the one known; the same holder only gains a release (a refusal read before its release was written must not take it back). */
function noteHolder(id: string, holder: LaneHolder): void {
  const known = lastHolders.get(id);
  const [mine, theirs] = [holder.seq ?? 0, known?.seq ?? 0];
  if (!known || mine > theirs || (mine === theirs && typeof holder.release === 'number')) lastHolders.set(id, holder);
}

/** Writes the lane's release and wakes a dial of this process waiting for it. */
async function releaseLane(slot: DialSlot, lane: number, release: number): Promise<void> {
  const written = await releaseDialLane(slot.tenantId, slot.accountId, lane, slot.seq, release);
  const id = laneId(slot, lane);
  const known = lastHolders.get(id);
  if (written && known?.seq === slot.seq) noteHolder(id, { ...known, release });
  released(slot, lane);
}

/**
 * Takes the slot's lane from its grant's instant or as soon after as the lane frees, waiting at
 * most `maxWaitMs`; DialSlotsBusy past that (nothing held).
 */
export async function holdDialLane(slot: DialSlot, callId: string, maxWaitMs: number): Promise<HeldLane> {
  const lane = dialLane(slot.seq, slot.cpsLimit);
  const id = laneId(slot, lane);
  const deadline = now().getTime() + maxWaitMs;
  let waitedOnKnown = false;
  for (;;) {
    const at = now().getTime();
    let sendAt = Math.max(slot.grantAt, at);
    const known = lastHolders.get(id);
    if (known && (known.seq ?? Number.POSITIVE_INFINITY) < slot.seq) {
      const guess = claimLane(known, { seq: slot.seq, cpsLimit: slot.cpsLimit, wantAt: sendAt }, at);
      // A release past the wait is left for the lane's own answer to refuse (DialSlotsBusy below).
      if ('sendAt' in guess) sendAt = guess.sendAt <= deadline ? guess.sendAt : sendAt;
      else if (!waitedOnKnown && guess.retryAt <= deadline) {
        // Asking now would be refused: its holder cannot be free before it is answered.
        waitedOnKnown = true;
        await untilReleasedOr(slot, lane, guess.retryAt);
        continue;
      }
    }
    for (let round = 0; round < 3; round++) {
      const out = await takeDialLane(slot.tenantId, slot.accountId, lane, { seq: slot.seq, callId, sendAt, now: at });
      if (out.taken) {
        noteHolder(id, { at: sendAt, release: null, seq: slot.seq });
        return { lane, sendAt };
      }
      if (out.holder) noteHolder(id, out.holder);
      const next = claimLane(out.holder, { seq: slot.seq, cpsLimit: slot.cpsLimit, wantAt: sendAt }, now().getTime());
      if ('retryAt' in next) {
        if (next.retryAt > deadline) throw new DialSlotsBusy(`account ${slot.accountId}: lane ${lane} still held after ${maxWaitMs} ms`);
        await untilReleasedOr(slot, lane, next.retryAt);
        break;
      }
      if (next.sendAt > deadline) throw new DialSlotsBusy(`account ${slot.accountId}: lane ${lane} not free within ${maxWaitMs} ms`);
      sendAt = next.sendAt; // its release is known: take it from then
    }
  }
}

/**
 * Sends the dial on its lane: waits until the lane's instant, sends, and releases the lane a
 * second and the guard after the carrier's answer (or its failure), or after its stamp of the
 * dial when the answer carries one (`stampedAt`). A dial that could not be sent within
 * DIAL_SEND_LATE_MS of the instant (a stalled worker) is not sent on it: the lane is released
 * unused and a fresh one taken (`retake`).
 */
export async function sendOnLane<T extends { stampedAt?: number }>(
  slot: DialSlot,
  held: HeldLane,
  retake: () => Promise<HeldLane>,
  send: () => Promise<T>,
): Promise<T> {
  let lane = held;
  for (;;) {
    await sleepUntil(lane.sendAt);
    const sentAt = now().getTime();
    if (sentAt - lane.sendAt <= DIAL_SEND_LATE_MS) break;
    await releaseLane(slot, lane.lane, lane.sendAt);
    lane = await retake();
  }
  const sentAt = now().getTime();
  // The carrier's stamp is on its wall clock, not on now()'s (a test may offset that): the send and
  // the answer are read on the wall clock too, so only the stamp's distance to the answer is used.
  const sentWall = Date.now();
  let stampedAt: number | undefined;
  try {
    const answer = await send();
    stampedAt = answer.stampedAt;
    return answer;
  } finally {
    const answeredWall = Date.now();
    const answeredAt = now().getTime();
    const release = laneRelease(answeredAt, stampedAt === undefined ? null : { sentAt: sentWall, stampedAt, answeredAt: answeredWall });
    // The lane cannot be taken again before its release is written, so a release already past when the answer came costs the answer's lateness.
    // (Counted from the send, not the lane's instant: a dial sent late because its transition ran long says nothing of the lanes' pace,
    // and counting it spread an idle account's grants — a campaign's refills — for nothing.)
    laneHeldMs = 0.8 * laneHeldMs + 0.2 * (Math.max(release, answeredAt) - laneRelease(sentAt));
    // A release that fails leaves the lane to its abandoned bound: slower, never over the ceiling; the dial's own outcome stands.
    await releaseLane(slot, lane.lane, release).catch((err: unknown) =>
      logger.warn('dial lane not released; it frees at its abandoned bound', { account_id: slot.accountId, lane: lane.lane, error: (err as Error)?.message }),
    );
  }
}

/** A lane taken for a dial that will not be sent: free again from its instant (nothing reached the carrier). */
export async function releaseUnusedLane(slot: DialSlot, held: HeldLane): Promise<void> {
  await releaseLane(slot, held.lane, held.sendAt);
}
