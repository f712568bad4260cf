/**
 * The webhook retry safety net, run by the scheduler tick (shared/calls/scheduler.ts): an
 * event still pending well past its next attempt lost its queue message (a crash between an
 * attempt and its delayed retry, a purge, a message that exhausted its receives). Such events
 * are found through the due index (`PLATFORM#WEBHOOK_DUE#<shard>` on gsi1, which a pending
 * event carries from its commit and a settled one drops) and sent to the delivery queue again,
 * so delivery is at least once by itself.
 *
 * Idempotent: the entry is first re-armed OVERDUE_RECHECK_MS later under a condition (one
 * sweep of two wins), and the worker POSTs only under the delivery lease for that attempt, so
 * a re-enqueued event whose original message turns up after all is still POSTed once.
 * Bounded: at most SWEEP_LIMIT_PER_SHARD events a shard a run; the next run takes the rest.
 */
import { OUTBOX_SHARDS } from '../db/keys.js';
import { logger } from '../observability.js';
import { overdueWebhookEvents, rearmOverdue } from '../repositories/webhook-events.js';
import { enqueueDelivery } from './delivery-queue.js';

/** A due message normally lands within seconds of its instant: only this much later is it counted as lost. */
export const OVERDUE_GRACE_MS = 2 * 60_000;
/** After a re-enqueue the entry comes back this much later, in case that message is lost too. */
const OVERDUE_RECHECK_MS = 10 * 60_000;
const SWEEP_LIMIT_PER_SHARD = 50;

/** Re-enqueue the overdue pending events (due ≤ at − grace) not leased by a live attempt; answers how many. */
export async function runWebhookOverdueSweep(at: Date, limitPerShard = SWEEP_LIMIT_PER_SHARD, graceMs = OVERDUE_GRACE_MS): Promise<number> {
  const bound = new Date(at.getTime() - graceMs).toISOString();
  let sent = 0;
  for (let shard = 0; shard < OUTBOX_SHARDS; shard++) {
    for (const due of await overdueWebhookEvents(shard, bound, limitPerShard)) {
      // A live lease means an attempt is under way; its outcome moves the entry.
      if (due.lease_until && Date.parse(due.lease_until) > at.getTime()) continue;
      if (!(await rearmOverdue(due, new Date(at.getTime() + OVERDUE_RECHECK_MS)))) continue;
      await enqueueDelivery(due.tenant_id, due.event_id);
      sent++;
      logger.warn('webhook event overdue: re-enqueued', { tenant_id: due.tenant_id, event_id: due.event_id, attempt_count: due.attempt_count });
    }
  }
  return sent;
}
