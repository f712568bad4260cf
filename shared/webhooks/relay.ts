/**
 * The outbox relay: moves committed events to the webhook-delivery queue. It reads the
 * pending markers the outbox wrote with each state change (`PLATFORM#OUTBOX#<shard>`),
 * enqueues them (a tenant's events share a message, ten messages a SendMessageBatch; a small
 * event rides in its marker and so in the message, which spares the worker its read), and
 * deletes a marker only once SQS took its message — so nothing uncommitted is ever sent and nothing committed is lost: a crash
 * between the send and the delete sends the event again, which the ledger makes harmless. An
 * event no endpoint takes (its tenant has none, or a carried event's type is not enabled) is
 * settled `skipped` here instead, its marker deleted after: no message, no lease, no worker.
 *
 * On AWS it runs on the table's stream (an INSERT of a marker; within a second) and on a
 * one-minute schedule (anything the stream path missed); locally on a short interval.
 */
import { now as clockNow } from '../clock.js';
import { OUTBOX_SHARDS } from '../db/keys.js';
import { logger } from '../observability.js';
import { markManyRelayed, type PendingMarker, pendingEvents } from '../repositories/outbox-events.js';
import { endpointTakes, getWebhookEndpoint, type WebhookEndpointRecord } from '../repositories/webhook-endpoints.js';
import { skipUnattempted } from '../repositories/webhook-events.js';
import { enqueueDeliveries } from './delivery-queue.js';
import { settleAll, startedAside } from './settle-all.js';
import { bookkeeping } from './slots.js';

export interface RelayResult {
  relayed: number;
  failed: number;
}

/** Relay the pending markers of `shards` (default: all), up to `perShard` each; `at` judges the skips' lease condition. */
export async function relayOutbox(opts: { shards?: readonly number[]; perShard?: number; at?: Date } = {}): Promise<RelayResult> {
  const shards = opts.shards ?? Array.from({ length: OUTBOX_SHARDS }, (_, i) => i);
  // A tenant's endpoint is read once a run, by the first page that names the tenant (a consistent
  // read: an endpoint saved before the run starts is seen).
  const endpoints = new Map<string, Promise<WebhookEndpointRecord | undefined>>();
  const endpointOf = (tenantId: string) => {
    const read = endpoints.get(tenantId) ?? startedAside(getWebhookEndpoint(tenantId));
    endpoints.set(tenantId, read);
    return read;
  };
  const at = opts.at ?? clockNow();
  const results = await Promise.all(shards.map((shard) => relayShard(shard, opts.perShard ?? 100, endpointOf, at)));
  return results.reduce((a, b) => ({ relayed: a.relayed + b.relayed, failed: a.failed + b.failed }), { relayed: 0, failed: 0 });
}

/** A run drains a shard page by page, up to this many pages (the next run takes the rest). */
const MAX_PAGES_PER_RUN = 20;

async function relayShard(
  shard: number,
  limit: number,
  endpointOf: (tenantId: string) => Promise<WebhookEndpointRecord | undefined>,
  at: Date,
): Promise<RelayResult> {
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
        const { deliverable, skips } = await sortByEndpoint(pending, endpointOf);
        // The skips are written while the rest is sent; a failure of either keeps the whole page's markers.
        const enqueuing = startedAside(enqueueDeliveries(deliverable));
        const skipping = startedAside(settleSkips(skips, at));
        await settleAll([enqueuing, skipping]);
        sent = new Set([...(await enqueuing), ...(await skipping)]);
      } catch (err) {
        logger.error('outbox relay: enqueue failed; the markers stay for the next run', { shard, error: (err as Error).name });
        total.failed += pending.length;
        break;
      }
      const relayed = pending.filter((p) => sent.has(p.event_id)).map((p) => p.event_id);
      for (let i = 0; i < relayed.length; i += 25) {
        const chunk = relayed.slice(i, i + 25);
        // After the one before, whether it failed or not (a failure is reported by settleAll).
        const deleted = startedAside(lastDelete.then(() => bookkeeping(() => markManyRelayed(shard, chunk))));
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

type Skip = { eventId: string; reason: 'no_endpoint' | 'event_type_not_enabled' };

/**
 * The markers whose events no endpoint takes, by tenant: every event of a tenant without an endpoint,
 * and a carried event whose type the endpoint does not enable (an event named only is judged by the
 * worker, which reads it); the rest are to be sent.
 */
async function sortByEndpoint(
  pending: readonly PendingMarker[],
  endpointOf: (tenantId: string) => Promise<WebhookEndpointRecord | undefined>,
): Promise<{ deliverable: PendingMarker[]; skips: Map<string, Skip[]> }> {
  const tenants = [...new Set(pending.map((p) => p.tenant_id))];
  const endpoints = new Map(await Promise.all(tenants.map(async (t) => [t, await endpointOf(t)] as const)));
  const deliverable: PendingMarker[] = [];
  const skips = new Map<string, Skip[]>();
  for (const p of pending) {
    const endpoint = endpoints.get(p.tenant_id);
    const reason = !endpoint ? 'no_endpoint' : p.event && !endpointTakes(endpoint, p.event.type) ? 'event_type_not_enabled' : null;
    if (!reason) deliverable.push(p);
    else skips.set(p.tenant_id, [...(skips.get(p.tenant_id) ?? []), { eventId: p.event_id, reason }]);
  }
  return { deliverable, skips };
}

/**
 * Settles the skips `skipped`; answers every event id done with here — skipped, or no longer a first
 * attempt nobody holds (a worker has it, or it is settled), so its marker may go too.
 */
async function settleSkips(skips: ReadonlyMap<string, Skip[]>, at: Date): Promise<string[]> {
  await Promise.all([...skips].map(([tenantId, list]) => skipUnattempted(tenantId, list, at)));
  return [...skips.values()].flat().map((s) => s.eventId);
}
