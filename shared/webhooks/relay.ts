/**
 * The outbox relay: moves committed events to the webhook-delivery queue. It reads the
 * pending markers the outbox wrote with each state change (`PLATFORM#OUTBOX#<shard>`),
 * enqueues them (a tenant's events share a message, ten messages a SendMessageBatch; a small
 * event rides in its marker and so in the message, which spares the worker its read), and
 * deletes a marker only once SQS took its message — so nothing uncommitted is ever sent and nothing committed is lost: a crash
 * between the send and the delete sends the event again, which the ledger makes harmless.
 *
 * On AWS it runs on the table's stream (an INSERT of a marker; within a second) and on a
 * one-minute schedule (anything the stream path missed); locally on a short interval.
 */
import { OUTBOX_SHARDS } from '../db/keys.js';
import { logger } from '../observability.js';
import { markManyRelayed, type PendingMarker, pendingEvents } from '../repositories/outbox-events.js';
import { enqueueDeliveries } from './delivery-queue.js';
import { settleAll, startedAside } from './settle-all.js';

export interface RelayResult {
  relayed: number;
  failed: number;
}

/** Relay the pending markers of `shards` (default: all), up to `perShard` each. */
export async function relayOutbox(opts: { shards?: readonly number[]; perShard?: number } = {}): Promise<RelayResult> {
  const shards = opts.shards ?? Array.from({ length: OUTBOX_SHARDS }, (_, i) => i);
  const results = await Promise.all(shards.map((shard) => relayShard(shard, opts.perShard ?? 100)));
  return results.reduce((a, b) => ({ relayed: a.relayed + b.relayed, failed: a.failed + b.failed }), { relayed: 0, failed: 0 });
}

/** A run drains a shard page by page, up to this many pages (the next run takes the rest). */
const MAX_PAGES_PER_RUN = 20;

async function relayShard(shard: number, limit: number): Promise<RelayResult> {
  const total: RelayResult = { relayed: 0, failed: 0 };
  // A page's marker deletes run while the next page is read and sent, and the next page is read
  // while this one is sent (each read starts after the previous page's last marker, so it never
  // meets markers being deleted or sent); the run awaits them all before it ends. A shard's deletes
  // go one BatchWriteItem after another: their events are on the queue already, and a burst's
  // deletes all at once would queue the worker's leases behind them on the table.
  const deletes: Promise<void>[] = [];
  let lastDelete: Promise<unknown> = Promise.resolve();
  let next: Promise<PendingMarker[]> | undefined;
  try {
    next = pendingEvents(shard, limit);
    for (let page = 0; next; page++) {
      const pending: PendingMarker[] = await next;
      next = undefined;
      if (pending.length === 0) break;
      if (pending.length === limit && page + 1 < MAX_PAGES_PER_RUN) next = startedAside(pendingEvents(shard, limit, pending.at(-1)!.event_id));
      let sent: Set<string>;
      try {
        sent = await enqueueDeliveries(pending);
      } catch (err) {
        logger.error('outbox relay: enqueue failed; the markers stay for the next run', { shard, error: (err as Error).name });
        total.failed += pending.length;
        break;
      }
      const relayed = pending.filter((p) => sent.has(p.event_id)).map((p) => p.event_id);
      for (let i = 0; i < relayed.length; i += 25) {
        const chunk = relayed.slice(i, i + 25);
        // After the one before, whether it failed or not (a failure is reported by settleAll).
        const deleted = startedAside(lastDelete.then(() => markManyRelayed(shard, chunk)));
        lastDelete = deleted.catch(() => {});
        deletes.push(deleted);
      }
      total.relayed += sent.size;
      total.failed += pending.length - sent.size;
      if (sent.size < pending.length) break;
    }
  } catch (err) {
    await Promise.allSettled([...deletes, ...(next ? [next] : [])]);
    throw err;
  }
  // A read started for a page this run will not send (it stopped early) is only waited for.
  await Promise.allSettled(next ? [next] : []);
  await settleAll(deletes);
  return total;
}
