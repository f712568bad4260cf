/**
 * The deferral scheduler and the dispatch reconciler, run by the platform's tick
 * (shared/tick/dispatch-tick.ts) with the other safety nets.
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

import { DISPATCH_SHARDS, dispatchKeys } from '../db/keys.js';
import { transactWrite } from '../db/transact-write.js';
import { logger } from '../observability.js';
import { onDispatchUnknown } from '../policy/call-state/machine.js';
import { dropWatch, endOfCallWatches, watchesOlderThan as olderThan, sweepWatches } from '../repositories/call-watches.js';
import { getCall } from '../repositories/calls.js';
import { callTransition } from '../repositories/outbound-call-transitions.js';
import { dialingWatchDelete, dueInstantOf, failedConditionIndex, moveDueItem, type OutboundCallRecord } from '../repositories/outbound-calls.js';
import { attemptEndItems } from './attempt-end.js';
import { callEnded } from './call-ended.js';
import { sendDispatch } from './dispatch-queue.js';

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
      const end = {
        state: change.state,
        disposition: change.disposition ?? null,
        disposition_set_by: change.disposition_set_by ?? null,
        end_reason: change.end_reason ?? null,
      };
      const watches = endOfCallWatches(call, at);
      const sidStillNull = { ...callTransition(call, 'dialing', change, at, watches.fields) };
      const update = sidStillNull.Update!;
      update.ConditionExpression = `${update.ConditionExpression} AND attribute_type(provider_call_sid, :nullType)`;
      update.ExpressionAttributeValues = { ...update.ExpressionAttributeValues, ':nullType': 'NULL' };
      try {
        await transactWrite([sidStillNull, dialingWatchDelete(tenantId, callId, dialingAt), ...watches.items, ...attemptEndItems(call, end, at)]);
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

/** After a restart: every call due and still scheduled is sent to dispatch now (its due item may sit DUE_RECHECK_MS ahead, re-armed after a send whose message died with the queue). */
export function sendDueCallsAfterRestart(at: Date): Promise<number> {
  return sweepWatches(
    dispatchKeys.duePartition,
    `${new Date(at.getTime() + DUE_RECHECK_MS).toISOString()}#~`,
    (item) => fireDue(item, at, true),
    'restart: due call',
  );
}
