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
import { forEachPendingWebhookEvent, overdueWebhookEvents, rearmOverdue } from '../repositories/webhook-events.js';
import { enqueueDeliveries, enqueueDelivery } from './delivery-queue.js';

/** A due message normally lands within seconds of its instant: only this much later is it counted as lost. */
export const OVERDUE_GRACE_MS = 2 * 60_000;
/** After a re-enqueue the entry comes back this much later, in case that message is lost too. */
const OVERDUE_RECHECK_MS = 10 * 60_000;
const SWEEP_LIMIT_PER_SHARD = 50;

/** Re-enqueue the overdue pending events (due ≤ at − grace) not leased by a live attempt; answers how many. */
export async function runWebhookOverdueSweep(at: Date, limitPerShard = SWEEP_LIMIT_PER_SHARD): Promise<number> {
  const bound = new Date(at.getTime() - OVERDUE_GRACE_MS).toISOString();
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

/** A lease the dead process held is waited out by this much more (the worker claims only once it has lapsed). */
const LAPSED_LEASE_MARGIN_MS = 1_000;
const RESTART_PAGE = 100;

/**
 * After a restart of the local stack, whose queue kept its messages in memory, no pending
 * event has one: every pending event in the due index is sent again, delayed to land when its
 * next attempt is due (SQS delays 900 s at most: a later one is chained on by the worker, as
 * any long retry is), or once a lease the dead process held has lapsed. An entry the tick
 * would take as overdue before that message lands (already due, or held) is first re-armed
 * past it under the sweep's condition; one due later stays where it is, the tick's safety
 * net should this message be lost too. The worker's lease keeps each attempt to one POST
 * whatever else reaches the queue (a marker the relay had not sent yet). Answers how many.
 */
export async function resendPendingAfterRestart(at: Date): Promise<number> {
  let sent = 0;
  for (let shard = 0; shard < OUTBOX_SHARDS; shard++) {
    // A re-armed entry moves later in the shard, where a later page would meet it again.
    const seen = new Set<string>();
    await forEachPendingWebhookEvent(shard, RESTART_PAGE, async (page) => {
      const onward: { tenant_id: string; event_id: string; delaySeconds: number }[] = [];
      for (const due of page) {
        if (seen.has(due.event_id)) continue;
        seen.add(due.event_id);
        // Its next attempt, not before now, nor before a lease the dead process held has lapsed.
        const dueAt = Date.parse(due.due_at);
        const sendAt = Math.max(at.getTime(), dueAt, due.lease_until ? Date.parse(due.lease_until) + LAPSED_LEASE_MARGIN_MS : 0);
        if (sendAt > dueAt && !(await rearmOverdue(due, new Date(sendAt + OVERDUE_RECHECK_MS)))) continue;
        onward.push({ tenant_id: due.tenant_id, event_id: due.event_id, delaySeconds: (sendAt - at.getTime()) / 1000 });
      }
      if (onward.length > 0) sent += (await enqueueDeliveries(onward)).size;
    });
  }
  return sent;
}
