/**
 * The account's calls-per-second ceiling (cps_limit), across every dispatch worker at once, as
 * the carrier counts it: at most cps_limit dials in ANY one-second window. Each dial takes a
 * grant, an instant paced `dialSpacingMs` after the account's previous one
 * (shared/policy/dial-pacing.ts; one conditional write on the account's pacing item,
 * shared/repositories/dial-pacing.ts), and goes to the carrier at that instant, not before.
 * A grant further ahead than MAX_WAIT_MS is refused: nothing dialled, and the dispatcher hands
 * the call back to the scheduler with a due item a second on, so a long backlog never
 * dead-letters. The grant is taken before the dial's transition and the transition starts
 * just before the grant's instant (a pause or cancel answered meanwhile still stops the dial),
 * so a grant is never held by a call that is not dialled — at worst one is wasted (the
 * transition then found the call taken). A dial that reaches its instant late (its transition
 * took longer than the lead) takes a fresh grant rather than bunch up with the next one.
 */
import { now } from '../clock.js';
import { DIAL_GUARD_MS, dialSpacingMs } from '../policy/dial-pacing.js';
import { takeDialGrant } from '../repositories/dial-pacing.js';

const MAX_WAIT_MS = 20_000;
/** How late a dial may leave after its instant: half the guard, the other half is the trip to the carrier. */
const LATE_MS = DIAL_GUARD_MS / 2;

export class DialSlotsBusy extends Error {}

/**
 * How long before its instant a dial starts its transition: about as long as recent dial
 * transitions took in this process (so the dial leaves at the instant, and the transition's
 * checks — the campaign still running — are as fresh as they can be).
 */
let transitionMs = 50;
const leadMs = () => Math.min(500, Math.max(10, Math.round(transitionMs * 1.5)));

/**
 * A grant: the instant (epoch ms of now()'s clock) the dial may go to the carrier. `forTransition`:
 * the dial's transition still lies ahead, so the earliest instant it can go is one lead away
 * (an idle account's grant is then not already late when the transition is done).
 */
export async function acquireDialSlot(
  tenantId: string,
  accountId: string,
  cpsLimit: number | null,
  opts: { maxWaitMs?: number; forTransition?: boolean } = {},
): Promise<number> {
  const maxWaitMs = opts.maxWaitMs ?? MAX_WAIT_MS;
  const earliest = now().getTime() + (opts.forTransition ? leadMs() : 0);
  const grant = await takeDialGrant(tenantId, accountId, earliest, dialSpacingMs(cpsLimit), maxWaitMs);
  if ('busyUntil' in grant)
    throw new DialSlotsBusy(`account ${accountId}: no dial slot within ${maxWaitMs} ms (next at ${new Date(grant.busyUntil).toISOString()})`);
  return grant.grantAt;
}

/** Waits until the dial's transition should start: its grant's instant less the lead. */
export async function waitUntilDialLead(grantAt: number): Promise<void> {
  const wait = grantAt - leadMs() - now().getTime();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}

/** Runs the dial's transition, learning how long transitions take (a moving average). */
export async function timedTransition<T>(run: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await run();
  } finally {
    transitionMs = 0.8 * transitionMs + 0.2 * (Date.now() - started);
  }
}

/**
 * Waits until the grant's instant; a dial that got there more than LATE_MS after it takes a
 * fresh grant (and waits for that one). Returns when the dial may go.
 */
export async function waitForDialSlot(grantAt: number, regrant: () => Promise<number>): Promise<void> {
  let at = grantAt;
  for (;;) {
    const wait = at - now().getTime();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (now().getTime() - at <= LATE_MS) return;
    at = await regrant();
  }
}
