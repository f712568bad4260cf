/**
 * The platform's periodic tick and its restart recovery: one run of every safety net, in
 * order. It sits above the rooms it drives (calls, campaigns, messages, webhooks) so none of
 * them imports another for it. Run once a minute on AWS (EventBridge →
 * functions/workers/call-scheduler.ts) and every SCHEDULER_TICK_MS locally (infra/local/stack.ts).
 */
import { runAnalysisResend } from '../calls/analysis-resend.js';
import { runReconciler, runScheduler, sendDueCallsAfterRestart } from '../calls/scheduler.js';
import { runUnfinishedReconciler } from '../calls/unfinished-calls.js';
import { dropLeasesAfterRestart, runCampaigns } from '../campaigns/driver.js';
import { runMessageSendReconciler } from '../messages/send-reconciler.js';
import { resendPendingAfterRestart, runWebhookOverdueSweep } from '../webhooks/overdue-sweep.js';

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
  const sent = await sendDueCallsAfterRestart(at);
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
