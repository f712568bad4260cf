/**
 * Re-sending lost analysis requests (the design: never silently lost), run by the call
 * scheduler's tick. Every transition that ends a call writes an analysis watch in its own
 * transaction; storing the analysis deletes it (shared/repositories/call-watches.ts). A
 * watch older than ANALYSIS_RESEND_AFTER_MS (default 30 min: beyond the longest the first
 * request can legitimately take — its delay, at most 15 min, plus the queue's 5 receives of
 * 3 min) means the request was lost, dead-lettered or failed: the request is sent again and
 * the watch re-armed (the call's analysis_watch_at moves with it, conditionally on no
 * analysis yet), so it is re-sent every bound until the call is scored. A watch whose call
 * is scored, gone or not ended is deleted. A duplicate request is harmless: the worker
 * stores an analysis only when none is stored.
 */
import { dispatchKeys } from '../db/keys.js';
import { logger } from '../observability.js';
import { isTerminal } from '../policy/call-state/machine.js';
import { analysisWatchDelete, analysisWatchPut, dropWatch, rearmWatch, sweepWatches, type WatchItem } from '../repositories/call-watches.js';
import { getCall } from '../repositories/calls.js';
import { requestAnalysis } from './analysis-queue.js';

export const DEFAULT_ANALYSIS_RESEND_AFTER_MS = 30 * 60_000;
const analysisResendAfterMs = (): number => {
  const v = Number(process.env.ANALYSIS_RESEND_AFTER_MS);
  return Number.isFinite(v) && v > 0 ? v : DEFAULT_ANALYSIS_RESEND_AFTER_MS;
};

/** Re-sends the analysis request of every ended, unscored call past the bound; returns how many were sent. */
export async function runAnalysisResend(at: Date, afterMs = analysisResendAfterMs()): Promise<number> {
  const bound = new Date(at.getTime() - afterMs).toISOString();
  return sweepWatches(dispatchKeys.analysisPartition, bound, (item) => resend(item as unknown as WatchItem, at), 'analysis re-send');
}

async function resend(watch: WatchItem, at: Date): Promise<boolean> {
  const call = await getCall(watch.tenant_id, watch.call_id);
  if (!call || call.analysis !== undefined || !isTerminal(call.state)) {
    await dropWatch(watch);
    return false;
  }
  // Re-arm first, then ask: the worker that stores the analysis reads the call after the
  // request and deletes the watch it names — the new one. (Asking first let it delete the old
  // watch while the re-arm wrote a new one behind it, left until the next bound.)
  const next = at.toISOString();
  const rearmed = await rearmWatch(watch, next, {
    field: 'analysis_watch_at',
    andCondition: 'attribute_not_exists(analysis)',
    remove: analysisWatchDelete(watch.tenant_id, watch.call_id, watch.since),
    put: analysisWatchPut({ tenant_id: watch.tenant_id, id: watch.call_id }, next),
  });
  if (!rearmed) return false; // scored meanwhile, or the call names another watch: this one was dropped
  // No delay this time: the call ended long ago, the runtime's last words are in.
  if (!(await requestAnalysis(watch.tenant_id, watch.call_id, 0))) return false; // re-armed: asked again after another bound
  logger.warn('analysis request re-sent', { tenant_id: watch.tenant_id, call_id: watch.call_id, since: watch.since });
  return true;
}
