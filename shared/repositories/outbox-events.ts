/**
 * The outbox's reads and its relay bookkeeping: a tenant's committed events, the pending
 * markers of a shard, and removing a marker once its event was handed to the delivery
 * queue. The items themselves are built by shared/events/outbox.ts, inside the
 * transactions that commit the state changes they report.
 */
import { DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { deleteKeys } from '../db/batch-write.js';
import { db, tableName } from '../db/client.js';
import { outboxKeys } from '../db/keys.js';
import { collectionPages } from '../db/query.js';
import type { OutboxEvent } from '../events/outbox.js';

/** A tenant's committed events, oldest first (tests, and the webhook ledger's reads). */
export async function listTenantEvents(tenantId: string, opts: { limit?: number } = {}): Promise<OutboxEvent[]> {
  const out: OutboxEvent[] = [];
  for await (const page of collectionPages({ pk: outboxKeys.eventsPartition(tenantId), prefix: 'EVENT#' }, { ConsistentRead: true })) {
    for (const item of page.Items ?? []) out.push(item.event as OutboxEvent);
    if (opts.limit !== undefined && out.length >= opts.limit) break;
  }
  return opts.limit === undefined ? out : out.slice(0, opts.limit);
}

/** A pending marker: its event's id, and the event itself when it was small enough to ride in the marker. */
export interface PendingMarker {
  tenant_id: string;
  event_id: string;
  event?: OutboxEvent;
}

/**
 * A marker's key as read from its shard's partition. The relay pages and deletes by it rather than by
 * the key recomputed from the event id: a marker that sits in another shard than its id hashes to
 * (copied or replayed with a fresh id) would otherwise never be deleted, and be relayed every run.
 */
const markerIn = (shard: number, eventId: string) => ({ pk: outboxKeys.pendingPartition(shard), sk: eventId });

/** Pending markers of one shard, oldest first (after the marker of event `after`, if given): what the relay moves next. */
export async function pendingEvents(shard: number, limit = 100, after?: string): Promise<PendingMarker[]> {
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': outboxKeys.pendingPartition(shard) },
      Limit: limit,
      ...(after ? { ExclusiveStartKey: markerIn(shard, after) } : {}),
    }),
  );
  return (page.Items ?? []).map((i) => ({
    tenant_id: i.tenant_id as string,
    event_id: i.event_id as string,
    ...(i.event ? { event: i.event as OutboxEvent } : {}),
  }));
}

export async function getEvent(tenantId: string, eventId: string): Promise<OutboxEvent | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: outboxKeys.event(tenantId, eventId), ConsistentRead: true }));
  return out.Item?.event as OutboxEvent | undefined;
}

/** The relay handed the event to the delivery queue: its marker goes (the event stays). */
export async function markRelayed(eventId: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: outboxKeys.pending(eventId) }));
}

/** markRelayed for many markers of one shard, as pendingEvents read them; 25 to a BatchWriteItem (unprocessed ones retried). */
export async function markManyRelayed(shard: number, eventIds: readonly string[]): Promise<void> {
  await deleteKeys(eventIds.map((id) => markerIn(shard, id)));
}
