/**
 * The unfinished-call reconciler (the design: "a reconciler closes what the carrier never
 * reported"), run by the call scheduler's tick. Every call the carrier took has an
 * unfinished watch from the moment its CallSid is linked until its terminal transition
 * (shared/repositories/call-watches.ts). The bounds follow the longest call the carrier can
 * carry (unfinishedBounds): Twilio ends a call at its time limit (4 h, we set none), the
 * sandbox carrier at its longest scenario plus the longest a relay conversation holds the
 * final callback. A watch past `askAfterMs` means the final status callback was lost: the
 * reconciler asks the carrier (TelephonyProvider.fetchCall) and acts as decideUnfinished says
 * (shared/policy/call-state/unfinished.ts):
 *
 *   final status      → applyOutboundStatus, the status callback's own transition (its
 *                       call.completed, analysis watch, unfinished watch deleted);
 *   still live / the carrier unreachable → the watch is re-armed and asked again at
 *                       `giveUpAfterMs` after the link: then closed (a live call hung up first);
 *   no such call      → closed now: `carrier_unreported` (onCarrierUnreported).
 *
 * CALL_UNFINISHED_AFTER_MS / CALL_UNFINISHED_GIVE_UP_MS override both bounds for every
 * carrier. A watch whose call already ended (or is gone) is deleted. Work per run is bounded:
 * 100 watches per shard (oldest first, swept at the shortest carrier's bound) and a time
 * budget (the carrier is asked over the network).
 */
import { dispatchKeys } from '../db/keys.js';
import { logger } from '../observability.js';
import { isTerminal, onCarrierUnreported } from '../policy/call-state/machine.js';
import { type CarrierWord, decideUnfinished } from '../policy/call-state/unfinished.js';
import { applyCallTransition, applyOutboundStatus, outboundChange, type TransitionResult } from '../repositories/call-lifecycle.js';
import { dropWatch, rearmWatch, sweepWatches, unfinishedWatchDelete, unfinishedWatchPut, type WatchItem } from '../repositories/call-watches.js';
import { type CallRecord, getCall } from '../repositories/calls.js';
import { getTelephonyAccount, type TelephonyAccountRecord } from '../repositories/telephony-accounts.js';
import { callMinutesLedgerItems } from '../repositories/usage-ledger.js';
import { longestSandboxCallMs, sandboxStepMs } from '../sandbox/timeline.js';
import { providerFor } from '../telephony/carrier-for.js';
import { CarrierRefused, type TelephonyProvider } from '../telephony/provider.js';
import { callEnded, campaignSlotFreed } from './call-ended.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Twilio's default call time limit (we set no TimeLimit): no Twilio call outlives it. */
const TWILIO_TIME_LIMIT_MS = 4 * HOUR;
/** How long one run may keep asking the carrier (the scheduler's Lambda times out at 50 s). */
const RUN_BUDGET_MS = 30_000;

export interface UnfinishedBounds {
  /** After the link: ask the carrier (its final callback is overdue). */
  askAfterMs: number;
  /** After the link: a call the carrier still calls live, or could not be asked about, is closed. */
  giveUpAfterMs: number;
}

const positiveMs = (raw: string | undefined): number | undefined => {
  const v = Number(raw);
  return Number.isFinite(v) && v > 0 ? v : undefined;
};

/**
 * The bounds for a carrier: its longest possible call plus slack for a late final callback,
 * then a little more before giving up (the carrier may be briefly unreachable).
 */
export function unfinishedBounds(provider: TelephonyAccountRecord['provider'] | undefined): UnfinishedBounds {
  const longest = provider === 'mock' ? longestSandboxCallMs(sandboxStepMs()) : TWILIO_TIME_LIMIT_MS;
  const [ask, giveUp] = provider === 'mock' ? [MINUTE, 5 * MINUTE] : [10 * MINUTE, 30 * MINUTE];
  return {
    askAfterMs: positiveMs(process.env.CALL_UNFINISHED_AFTER_MS) ?? longest + ask,
    giveUpAfterMs: positiveMs(process.env.CALL_UNFINISHED_GIVE_UP_MS) ?? longest + giveUp,
  };
}

export interface UnfinishedDeps {
  /** Ask about every watch at least this old, whatever its carrier (0 at a restart: ask about all). */
  afterMs?: number;
  giveUpAfterMs?: number;
  /** The carrier for an account (tests pass a stub; default: carrier-for.ts). */
  provider?: (account: TelephonyAccountRecord) => Promise<TelephonyProvider>;
}

/** Closes (or hands its final status to) every unfinished call past its carrier's bound; returns how many ended. */
export async function runUnfinishedReconciler(at: Date, deps: UnfinishedDeps = {}): Promise<number> {
  // The budget is the run's own (wall-clock) time, not the platform instant `at` judges by.
  const stopAt = Date.now() + RUN_BUDGET_MS;
  // Swept at the shortest bound; each watch then waits for its own carrier's.
  const sweepAfterMs = deps.afterMs ?? Math.min(unfinishedBounds('mock').askAfterMs, unfinishedBounds('twilio').askAfterMs);
  const bound = new Date(at.getTime() - sweepAfterMs).toISOString();
  return sweepWatches(
    dispatchKeys.unfinishedPartition,
    bound,
    (item) => settle(item as unknown as WatchItem, at, deps),
    'unfinished call',
    () => Date.now() > stopAt,
  );
}

/** Whether the watch is due under its carrier's bounds: first asked at askAfterMs after the link, again at the give-up. */
function due(watch: WatchItem, at: Date, bounds: UnfinishedBounds, deps: UnfinishedDeps): boolean {
  const since = Date.parse(watch.since);
  if (deps.afterMs !== undefined) return at.getTime() - since >= deps.afterMs;
  const linked = Date.parse(watch.linked_at ?? watch.since);
  const next = since === linked ? linked + bounds.askAfterMs : Math.min(since + bounds.askAfterMs, linked + bounds.giveUpAfterMs);
  return at.getTime() >= next;
}

async function settle(watch: WatchItem, at: Date, deps: UnfinishedDeps): Promise<boolean> {
  const call = await getCall(watch.tenant_id, watch.call_id);
  const heldSlot = Boolean(call?.campaign_slot_held && isTerminal(call.state) && call.provider_call_sid);
  if (!call || (!heldSlot && (call.direction !== 'outbound' || isTerminal(call.state) || !call.provider_call_sid))) {
    await dropWatch(watch); // its reason is gone: the call ended (or never was the carrier's)
    return false;
  }
  const account = call.telephony_account_id ? await getTelephonyAccount(call.tenant_id, call.telephony_account_id) : undefined;
  const bounds = unfinishedBounds(account?.provider);
  if (!due(watch, at, bounds, deps)) return false;
  const giveUpAfterMs = deps.giveUpAfterMs ?? bounds.giveUpAfterMs;
  if (heldSlot) return freeHeldSlot(call, account, watch, at, { ...deps, giveUpAfterMs });
  const { word, provider } = await askCarrier(call, account, deps);
  const action = decideUnfinished(word, { linkedAt: watch.linked_at ?? watch.since, at, giveUpAfterMs });
  if (action.action === 'recheck') {
    await rearm(watch, at);
    return false;
  }
  let result: TransitionResult | undefined;
  if (action.action === 'apply') {
    for (const status of action.statuses) {
      const r = await applyOutboundStatus(call, status, action.durationSeconds, at, callMinutesLedgerItems);
      if (r?.ended) result = r;
    }
    logger.warn('carrier final status never called back: applied from the carrier', {
      tenant_id: call.tenant_id,
      call_id: call.id,
      statuses: action.statuses.map((s) => s.CallStatus),
    });
  }
  const after = await getCall(call.tenant_id, call.id);
  if (after && !isTerminal(after.state)) {
    // The carrier could not or would not say (or its status changed nothing): close it.
    if (action.action === 'close' && action.hangUp && provider) await provider.hangUp(call.provider_call_sid).catch(() => undefined);
    result = await applyCallTransition(call.tenant_id, call.id, (c) => outboundChange(c, onCarrierUnreported(c.state)), undefined, at);
    logger.warn('call closed as carrier_unreported', { tenant_id: call.tenant_id, call_id: call.id, carrier: word.kind, linked_at: watch.linked_at });
  }
  await dropWatch(watch); // the transition deleted the call's current watch; this one too if it was another
  if (result?.ended) await callEnded(call);
  return Boolean(result?.ended);
}

/**
 * A campaign attempt that ended while its leg still played (`machine`) and whose final
 * callback never came: the carrier's final status frees the slot as the callback would;
 * without one, the slot is freed at the give-up bound (the leg cannot outlive it).
 */
async function freeHeldSlot(
  call: CallRecord,
  account: TelephonyAccountRecord | undefined,
  watch: WatchItem,
  at: Date,
  deps: UnfinishedDeps & { giveUpAfterMs: number },
): Promise<boolean> {
  const { word } = await askCarrier(call, account, deps);
  const action = decideUnfinished(word, { linkedAt: watch.linked_at ?? watch.since, at, giveUpAfterMs: deps.giveUpAfterMs });
  if (action.action === 'recheck') {
    await rearm(watch, at);
    return false;
  }
  let freed = false;
  if (action.action === 'apply')
    for (const status of action.statuses)
      freed = Boolean((await applyOutboundStatus(call, status, action.durationSeconds, at, callMinutesLedgerItems))?.slotFreed) || freed;
  if (!freed)
    freed = Boolean(
      (
        await applyCallTransition(
          call.tenant_id,
          call.id,
          () => null,
          () => ({ sets: [], values: {}, releaseHeldSlot: true }),
          at,
        )
      )?.slotFreed,
    );
  await dropWatch(watch);
  if (freed) await campaignSlotFreed(call);
  return false;
}

async function askCarrier(
  call: CallRecord,
  account: TelephonyAccountRecord | undefined,
  deps: UnfinishedDeps,
): Promise<{ word: CarrierWord; provider: TelephonyProvider | null }> {
  if (!account) return { word: { kind: 'unknown' }, provider: null };
  let provider: TelephonyProvider;
  try {
    provider = await (deps.provider ?? providerFor)(account);
  } catch {
    return { word: { kind: 'unavailable' }, provider: null };
  }
  try {
    return { word: { kind: 'status', ...(await provider.fetchCall(call.provider_call_sid)) }, provider };
  } catch (err) {
    return { word: err instanceof CarrierRefused ? { kind: 'unknown' } : { kind: 'unavailable' }, provider };
  }
}

/** Ask again after another bound: the watch moves to `at` (the call's unfinished_watch_at with it, conditionally), keeping linked_at. */
async function rearm(watch: WatchItem, at: Date): Promise<void> {
  const next = at.toISOString();
  await rearmWatch(watch, next, {
    field: 'unfinished_watch_at',
    remove: unfinishedWatchDelete(watch.tenant_id, watch.call_id, watch.since),
    put: unfinishedWatchPut({ tenant_id: watch.tenant_id, id: watch.call_id }, next, watch.linked_at ?? watch.since),
  });
}
