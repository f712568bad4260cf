/**
 * The deferral scheduler and the dispatch reconciler, run together once a minute on AWS
 * (EventBridge → functions/workers/call-scheduler.ts) and every SCHEDULER_TICK_MS locally
 * (infra/local/stack.ts, while workers run), with the unfinished-call reconciler
 * (unfinished-calls.ts), the analysis re-send (analysis-resend.ts) and the sending
 * reconciler for texts (shared/messages/send-reconciler.ts).
 *
 * runScheduler(at): every due item with an instant ≤ at, per shard, whose call is still
 * scheduled and due becomes a dispatch message; the item is then re-armed DUE_RECHECK_MS
 * later (so a lost or dead-lettered message is sent again, and every scheduled call is
 * eventually dialled, disposed or rescheduled), and deleted by whoever moves the call on.
 * Stale items (the call moved on) are deleted. A send that happens twice is harmless: the
 * dispatcher acts only on a call still `scheduled` and due, through a conditional transition.
 *
 * runReconciler(at): every dialing watch older than DISPATCH_UNKNOWN_AFTER_MS (default
 * 120 s, far beyond a carrier's answer to a Calls create) whose call is still `dialing`
 * with no carrier call id → `failed`, end_reason dispatch_unknown (onDispatchUnknown),
 * final call.completed, watch deleted, analysis watch put — one transaction. Never redialled: a call that may
 * have rung once is never rung again. A watch whose call moved on is just deleted.
 */
import { callEnded } from './call-ended.js';
import { transactWrite } from '../db/transact-write.js';
import { DISPATCH_SHARDS, dispatchKeys } from '../db/keys.js';
import { logger } from '../observability.js';
import { onDispatchUnknown } from '../policy/call-state/machine.js';
import { getCall } from '../repositories/calls.js';
import { dropWatch, endOfCallWatches, sweepWatches, watchesOlderThan as olderThan } from '../repositories/call-watches.js';
import { callTransition, dialingWatchDelete, dueInstantOf, failedConditionIndex, moveDueItem, type OutboundCallRecord } from '../repositories/outbound-calls.js';
import { completedEvent } from './call-outbox-events.js';
import { sendDispatch } from './dispatch-queue.js';
import { runAnalysisResend } from './analysis-resend.js';
import { runUnfinishedReconciler } from './unfinished-calls.js';
import { runMessageSendReconciler } from '../messages/send-reconciler.js';
import { dropLeasesAfterRestart, runCampaigns } from '../campaigns/driver.js';
import { resendPendingAfterRestart, runWebhookOverdueSweep } from '../webhooks/overdue-sweep.js';

const DEFAULT_DISPATCH_UNKNOWN_AFTER_MS = 120_000;
const dispatchUnknownAfterMs = (): number => {
  const v = Number(process.env.DISPATCH_UNKNOWN_AFTER_MS);
  return Number.isFinite(v) && v > 0 ? v : DEFAULT_DISPATCH_UNKNOWN_AFTER_MS;
};
/** After a send, the due item comes back this much later: a lost or dead-lettered message is sent again. */
export const DUE_RECHECK_MS = 10 * 60_000;

export async function runScheduler(at: Date): Promise<number> {
  // sk = `<instant>#…`: every sk with an instant ≤ at sorts before `<at>#~`.
  const bound = `${at.toISOString()}#~`;
  return sweepWatches(dispatchKeys.duePartition, bound, (item) => fireDue(item, at), 'scheduler: due call');
}

/**
 * One due item: a call still scheduled and due → a dispatch message, then the item re-armed
 * DUE_RECHECK_MS later (the call's `due_at` moved with it, conditionally). Anything else — the
 * call moved on, was rescheduled, or another item is its current one — the item is deleted.
 */
async function fireDue(item: Record<string, unknown>, at: Date, onlyDue = false): Promise<boolean> {
  const tenantId = item.tenant_id as string;
  const callId = item.call_id as string;
  const instant = item.scheduled_for as string;
  const drop = () => dropWatch({ pk: item.pk as string, sk: item.sk as string });
  const call = (await getCall(tenantId, callId)) as unknown as OutboundCallRecord | undefined;
  const isDue = call?.state === 'scheduled' && !(call.scheduled_for && Date.parse(call.scheduled_for) > at.getTime());
  if (!isDue && onlyDue) return false; // a later item of a call not due yet: left for its instant
  if (!call || !isDue) {
    await drop();
    return false;
  }
  await sendDispatch({ tenant_id: tenantId, attempt_id: call.attempt_id, call_id: callId });
  if (dueInstantOf(call) !== instant) {
    await drop(); // an extra item (a busy hand-back): the call's own item stays armed
    return true;
  }
  const next = new Date(at.getTime() + DUE_RECHECK_MS).toISOString();
  if (!(await moveDueItem(call, instant, next))) await drop(); // the call moved on meanwhile (dialled, disposed, rescheduled)
  return true;
}

export async function runReconciler(at: Date, afterMs = dispatchUnknownAfterMs()): Promise<number> {
  const bound = new Date(at.getTime() - afterMs).toISOString();
  let failed = 0;
  for (let shard = 0; shard < DISPATCH_SHARDS; shard++) {
    for (const watch of await olderThan(dispatchKeys.dialingPartition(shard), bound)) {
      const tenantId = watch.tenant_id as string;
      const callId = watch.call_id as string;
      const dialingAt = watch.dialing_at as string;
      const call = (await getCall(tenantId, callId)) as unknown as OutboundCallRecord | undefined;
      const change = call && !call.provider_call_sid ? onDispatchUnknown(call.state) : null;
      if (!call || !change) {
        await dropWatch(dialingWatchDelete(tenantId, callId, dialingAt).Delete!.Key as { pk: string; sk: string });
        continue;
      }
      const end = { state: change.state, disposition: change.disposition ?? null, disposition_set_by: change.disposition_set_by ?? null, end_reason: change.end_reason ?? null };
      const watches = endOfCallWatches(call, at);
      const sidStillNull = { ...callTransition(call, 'dialing', change, at, watches.fields) };
      const update = sidStillNull.Update!;
      update.ConditionExpression = `${update.ConditionExpression} AND attribute_type(provider_call_sid, :nullType)`;
      update.ExpressionAttributeValues = { ...update.ExpressionAttributeValues, ':nullType': 'NULL' };
      try {
        await transactWrite([sidStillNull, dialingWatchDelete(tenantId, callId, dialingAt), ...watches.items, ...completedEvent(call, end, at)]);
        failed++;
        await callEnded(call);
        logger.warn('dial outcome unknown: failed as dispatch_unknown', { tenant_id: tenantId, call_id: callId, dialing_at: dialingAt });
      } catch (err) {
        if (failedConditionIndex(err) !== 0) throw err; // the call moved on meanwhile: the next run deletes the watch
      }
    }
  }
  return failed;
}

export interface TickResult {
  /** Due calls sent to dispatch. */
  sent: number;
  /** Stuck dials failed as dispatch_unknown. */
  reconciled: number;
  /** Calls the carrier never reported the end of, closed (its final status, or carrier_unreported). */
  unfinished: number;
  /** Ended calls whose analysis request was sent again. */
  reanalysed: number;
  /** Texts left queued without a carrier SID past the bound, failed as send_unknown. */
  messagesUnknown: number;
  /** Campaigns driven (scrub, launch, completion, cancel sweep: shared/campaigns/driver.ts). */
  campaigns: number;
  /** Pending webhook events whose next attempt's message was lost, sent to the delivery queue again. */
  webhooksResent: number;
}

export interface RestartRecovery {
  /** Due calls whose dispatch message died with the queue, sent again. */
  sent: number;
  /** Dials the dead process left without a carrier id, failed as dispatch_unknown. */
  reconciled: number;
  /** Unfinished calls the carrier reported ended meanwhile (or knew nothing of), closed. */
  unfinished: number;
  /** Ended, unscored calls whose analysis request was sent again. */
  reanalysed: number;
  /** Pending webhook events already due, sent to the delivery queue again. */
  webhooksResent: number;
}

/**
 * After a restart of a runtime that is one process over its data (the local stack: its data
 * dir is claimed by one process at a time), nothing that was in flight survived: no queued
 * message, no dial, no worker. So at start-up, before any worker runs, the tick's sweeps run
 * with their time bounds at zero instead of waiting them out:
 *   - every call due and still scheduled is sent to dispatch now (its due item may sit
 *     DUE_RECHECK_MS ahead, re-armed after a send whose message died with the queue);
 *   - every dial left without a carrier id is failed as dispatch_unknown (never redialled);
 *   - every unfinished call is asked about now (its final callback may have hit a dead server);
 *   - every ended, unscored call's analysis request is sent again;
 *   - every campaign's driver lease is dropped (the dead process held it);
 *   - every pending webhook event is re-enqueued, delayed to its next attempt (the delivery lease keeps each attempt to one POST).
 * A duplicate of anything here is harmless, as it is for the tick itself.
 */
export async function recoverAfterRestart(at: Date): Promise<RestartRecovery> {
  const sent = await sweepWatches(dispatchKeys.duePartition, `${new Date(at.getTime() + DUE_RECHECK_MS).toISOString()}#~`, (item) => fireDue(item, at, true), 'restart: due call');
  const reconciled = await runReconciler(at, 0);
  const unfinished = await runUnfinishedReconciler(at, { afterMs: 0 });
  const reanalysed = await runAnalysisResend(at, 0);
  await dropLeasesAfterRestart();
  // Every delivery message died with the queue: each pending event is sent again, to land when it is due.
  const webhooksResent = await resendPendingAfterRestart(at);
  return { sent, reconciled, unfinished, reanalysed, webhooksResent };
}

/** One tick: due calls sent, stuck dials reconciled, unfinished calls closed, lost analysis requests re-sent, stuck texts failed as send_unknown, overdue webhook events re-enqueued. */
export async function runDispatchTick(at: Date): Promise<TickResult> {
  const sent = await runScheduler(at);
  const reconciled = await runReconciler(at);
  const unfinished = await runUnfinishedReconciler(at);
  const reanalysed = await runAnalysisResend(at);
  const messagesUnknown = await runMessageSendReconciler(at);
  const campaigns = await runCampaigns();
  const webhooksResent = await runWebhookOverdueSweep(at);
  return { sent, reconciled, unfinished, reanalysed, messagesUnknown, campaigns, webhooksResent };
}
