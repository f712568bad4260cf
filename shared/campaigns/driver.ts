/**
 * The campaign driver (see docs/decisions/campaigns.md), run by the scheduler tick (runDispatchTick: every minute
 * on AWS, every SCHEDULER_TICK_MS locally) for each campaign marked in `PLATFORM#CAMPAIGNS`:
 *   scrubbing → the first page of the scrub, then ready → running at once: the contacts judged
 *               allowed dial while the rest of the list is judged;
 *   running   → attempts launched up to the concurrency cap; the scrub's further pages within a
 *               time budget, each followed by a launch; completed once every targeted
 *               contact has its terminal outcome (the marker goes). The same step also runs
 *               at once when an attempt's end frees a slot (launchNow, a `campaign.launch`
 *               message: nudgeCampaign in shared/calls/dispatch-queue.ts); the tick is the safety net;
 *   paused    → the scrub goes on, nothing launches (scheduled attempts wait; the dispatcher does not dial them);
 *   cancelled → the sweep, until nothing is queued or in flight (the marker goes).
 * A lease on the campaign item keeps two ticks from driving one campaign at once.
 */

import { dispatchCall } from '../calls/dispatch.js';
import { pinnedVersion } from '../calls/pinned-versions.js';
import { now } from '../clock.js';
import { logger } from '../observability.js';
import { isFinished, SCRUB_OPEN_STATUSES, scrubOpen } from '../policy/campaigns/rules.js';
import {
  activeCampaignMarkers,
  activeMarkerDelete,
  type CampaignRecord,
  CampaignStatusConflict,
  dropActiveMarker,
  dropDriverLease,
  getCampaign,
  moveCampaign,
  takeDriverLease,
} from '../repositories/campaigns.js';
import { sweepCancelled } from './cancel-sweep.js';
import { type DispatchLaunched, launchAttempts } from './launch.js';
import { scrubPage } from './scrub.js';

/** How long one tick may scrub one campaign (the AWS tick function has 50 s, shared with the reconcilers). */
const SCRUB_BUDGET_MS = 15_000;
const LEASE_MS = 45_000;

const takeLease = (c: CampaignRecord) => takeDriverLease(c.tenant_id, c.id, new Date(Date.now() + LEASE_MS).toISOString(), new Date().toISOString());
const dropLease = (c: Pick<CampaignRecord, 'tenant_id' | 'id'>) => dropDriverLease(c.tenant_id, c.id);
const dropMarker = (c: { tenant_id: string; id: string }) => dropActiveMarker(c.tenant_id, c.id);

/** Move on if the status still allows it; a lost race is fine (the next tick sees the new status). */
const tryMove = async (c: CampaignRecord, action: 'ready' | 'run' | 'complete') => {
  try {
    return await moveCampaign(
      c.tenant_id,
      c.id,
      action,
      action === 'ready' ? 'ready' : action === 'run' ? 'running' : 'completed',
      now(),
      action === 'complete' ? { extra: () => [activeMarkerDelete(c.tenant_id, c.id)] } : {},
    );
  } catch (err) {
    if (err instanceof CampaignStatusConflict) return undefined;
    throw err;
  }
};

/** A running campaign's step: launch what the cap allows, then completed if every contact is done. */
async function launchStep(c: CampaignRecord, dispatch?: DispatchLaunched): Promise<number> {
  const launched = await launchAttempts(c, now(), dispatch);
  const fresh = await getCampaign(c.tenant_id, c.id);
  if (fresh && fresh.status === 'running' && isFinished(fresh)) await tryMove(fresh, 'complete');
  return launched;
}

/**
 * A slot freed by an attempt's end is refilled by a dial from this same worker: the launched
 * call is dispatched here rather than through another trip on the queue (the call's due item
 * still stands behind it, so a crash meanwhile only delays it to the scheduler's next send).
 * The dial starts from what the launch holds — the call it wrote, the campaign's pool, the
 * pinned version (immutable, kept per instance) — instead of reading them back: three reads
 * less between an attempt's end and the next dial.
 */
const dialHere = (c: CampaignRecord): DispatchLaunched => {
  let version: ReturnType<typeof pinnedVersion> | undefined;
  return async (call) => {
    version ??= pinnedVersion(c.tenant_id, call.agent_version_id);
    const pinned = await version;
    await dispatchCall(call.tenant_id, call.id, pinned ? { launched: { call, numberIds: c.pool_number_ids, version: pinned.version } } : {});
  };
};

/**
 * The launch step alone, at once (a `campaign.launch` message: an attempt's end freed a slot,
 * nudgeCampaign in shared/calls/dispatch-queue.ts). No lease: every launch is one conditional transaction (the
 * queue item still there, `in_flight < cap`, status running), so a nudge running beside a tick
 * or another nudge never exceeds the cap nor launches a contact twice; the completion move is
 * conditional too.
 *
 * In one process a campaign's launch steps run one at a time: a nudge that comes while one runs
 * waits for the next, which starts once that one ends and so sees the slot its attempt freed (all
 * the nudges that came meanwhile share it). Only the launches are one at a time; their dials run
 * beside the next step. Each nudge used to launch on its own: the nudges of a batch (up to ten) and
 * of the batches beside it each read the campaign and raced each other's conditional launches.
 */
export async function launchNow(tenantId: string, campaignId: string): Promise<number> {
  const key = `${tenantId}|${campaignId}`;
  const entry = launchSteps.get(key);
  let step: Promise<LaunchStep>;
  if (!entry) step = startLaunchStep(key, tenantId, campaignId);
  else {
    entry.next ??= entry.running.catch(() => undefined).then(() => startLaunchStep(key, tenantId, campaignId));
    step = entry.next;
  }
  const { launched, dials } = await step;
  await Promise.all(dials);
  return launched;
}

type LaunchStep = { launched: number; dials: Promise<void>[] };
/** A campaign's launch step running in this process, and the one waiting behind it. */
type LaunchTurn = { running: Promise<LaunchStep>; next?: Promise<LaunchStep> };
const launchSteps = new Map<string, LaunchTurn>();

function startLaunchStep(key: string, tenantId: string, campaignId: string): Promise<LaunchStep> {
  const running = (async (): Promise<LaunchStep> => {
    const c = await getCampaign(tenantId, campaignId);
    if (c?.status !== 'running') return { launched: 0, dials: [] };
    const dial = dialHere(c);
    const dials: Promise<void>[] = [];
    const launched = await launchStep(c, async (call) => {
      // Best effort, as a launch's enqueue is: the due item written with the call brings it back.
      dials.push(
        dial(call).catch((err: unknown) =>
          logger.warn('launched attempt not dialled; the scheduler will send it', { call_id: call.id, error: (err as Error)?.message }),
        ),
      );
    });
    return { launched, dials };
  })();
  const entry: LaunchTurn = { running };
  launchSteps.set(key, entry);
  void running
    .catch(() => undefined)
    .then(() => {
      if (launchSteps.get(key) === entry && !entry.next) launchSteps.delete(key);
    });
  return running;
}

/**
 * The rest of the scrub, within the tick's budget: each page's allowed contacts are launched as
 * soon as it is judged (under the cap), so the slots fill while later pages are still judged.
 * `c` carries the scrub's cursor; each launch reads the campaign afresh (its counters moved).
 */
async function scrubOn(c: CampaignRecord, budgetMs: number): Promise<void> {
  const started = Date.now();
  let done = false;
  while (!done && Date.now() - started < budgetMs) {
    done = await scrubPage(c);
    const fresh = await getCampaign(c.tenant_id, c.id);
    if (!fresh || !(SCRUB_OPEN_STATUSES as readonly string[]).includes(fresh.status)) return;
    if (fresh.status === 'running') await launchStep(fresh);
  }
}

/** `scrubBudgetMs`: how long this tick may scrub past the first page (tests pass 0 to hold the rest of the list back). */
export async function driveCampaign(tenantId: string, campaignId: string, opts: { scrubBudgetMs?: number } = {}): Promise<void> {
  let c = await getCampaign(tenantId, campaignId);
  if (!c || c.status === 'draft' || c.status === 'completed') return void (await dropMarker({ tenant_id: tenantId, id: campaignId }));
  if (!(await takeLease(c))) return;
  try {
    if (c.status === 'scrubbing') {
      // One judged page is enough to start dialling (its allowed contacts are queued); the rest is judged below.
      if (!c.scrub_complete) await scrubPage(c);
      c = (await tryMove(c, 'ready')) ?? c;
      if (c.status === 'ready') c = (await tryMove(c, 'run')) ?? c;
    }
    if (c.status === 'running') await launchStep(c);
    if (scrubOpen(c)) await scrubOn(c, opts.scrubBudgetMs ?? SCRUB_BUDGET_MS);
    if (c.status === 'cancelled' && (await sweepCancelled(c))) await dropMarker(c);
  } finally {
    await dropLease(c);
  }
}

/**
 * After a restart of a runtime that is one process over its data (the local stack): every
 * lease was the dead process's, so it is dropped instead of waited out (LEASE_MS), and the
 * next tick drives every campaign at once. Never on AWS, where another tick may hold one.
 */
export async function dropLeasesAfterRestart(): Promise<number> {
  const markers = await activeCampaignMarkers();
  for (const m of markers) await dropLease({ tenant_id: m.tenant_id, id: m.campaign_id });
  return markers.length;
}

/** Every marked campaign, a few at a time; one campaign's failure does not stop the others. */
export async function runCampaigns(): Promise<number> {
  const markers = await activeCampaignMarkers();
  for (let i = 0; i < markers.length; i += 4) {
    await Promise.all(
      markers
        .slice(i, i + 4)
        .map((m) =>
          driveCampaign(m.tenant_id, m.campaign_id).catch((err) =>
            logger.error('campaign tick failed', { campaign_id: m.campaign_id, error: (err as Error).message }),
          ),
        ),
    );
  }
  return markers.length;
}
