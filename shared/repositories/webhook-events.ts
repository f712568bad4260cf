/**
 * The delivery ledger. Each committed event (`TENANT#<t>#EVENTS` / `EVENT#<evt>`, written by
 * the outbox with its state change) carries its delivery state: `delivery_status`
 * (pending → delivered | failed | skipped), `attempt_count`, `next_attempt_at`, and while an
 * attempt is under way a lease (`lease_id`, `lease_until`). Every attempt is a row of its own
 * (`ATTEMPT#<evt>#<nnnn>`), written in the same transaction as the event's new state, under a
 * condition on the lease and the attempt count: an attempt is recorded once, and two workers
 * holding the same message can never both POST the same attempt.
 */
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetMany } from '../db/batch-get.js';
import { db, tableName } from '../db/client.js';
import { outboxKeys, webhookKeys } from '../db/keys.js';
import { queryCollection, queryPages } from '../db/query.js';
import { type TransactItem, transactWrite, transactWriteEach } from '../db/transact-write.js';
import type { OutboxEvent } from '../events/outbox.js';
import { isId } from '../ids.js';
import type { FilterCondition } from '../pagination/filters.js';
import { queryPage } from '../pagination/page.js';
import { envelopeOf } from '../policy/webhooks/envelope.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

export interface WebhookEventRecord {
  event: OutboxEvent;
  event_type: string;
  created_at: string;
  delivery_status?: DeliveryStatus;
  skip_reason?: string | null;
  attempt_count?: number;
  next_attempt_at?: string | null;
  last_attempt_at?: string | null;
  delivered_at?: string | null;
  lease_id?: string;
  lease_until?: string;
  dead_lettered_at?: string;
}

export interface AttemptRecord {
  attempt: number;
  at: string;
  trigger: 'automatic' | 'manual';
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  detail: string;
}

export async function getWebhookEvent(tenantId: string, eventId: string): Promise<WebhookEventRecord | undefined> {
  if (!isId(eventId) || !eventId.startsWith('evt_')) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: outboxKeys.event(tenantId, eventId), ConsistentRead: true }));
  return out.Item as WebhookEventRecord | undefined;
}

export async function webhookEventAttempts(tenantId: string, eventId: string): Promise<AttemptRecord[]> {
  const items = await queryCollection({ pk: outboxKeys.eventsPartition(tenantId), prefix: webhookKeys.attemptsPrefix(eventId) }, { ConsistentRead: true });
  return items.map(presentAttempt);
}

const presentAttempt = (item: Record<string, unknown>): AttemptRecord => ({
  attempt: item.attempt as number,
  at: item.at as string,
  trigger: item.trigger as AttemptRecord['trigger'],
  status_code: (item.status_code as number | null) ?? null,
  duration_ms: item.duration_ms as number,
  error: (item.error as string | null) ?? null,
  detail: item.detail as string,
});

export function presentWebhookEvent(item: Record<string, unknown>) {
  const rec = item as unknown as WebhookEventRecord;
  return {
    ...envelopeOf(rec.event),
    delivery_status: rec.delivery_status ?? 'pending',
    skip_reason: rec.delivery_status === 'skipped' ? (rec.skip_reason ?? null) : null,
    attempt_count: rec.attempt_count ?? 0,
    next_attempt_at: rec.delivery_status === 'pending' || rec.delivery_status === undefined ? (rec.next_attempt_at ?? null) : null,
    last_attempt_at: rec.last_attempt_at ?? null,
    delivered_at: rec.delivered_at ?? null,
  };
}

export function listWebhookEvents(tenantId: string, opts: { limit: number; cursor?: string; filters: FilterCondition[] }) {
  return queryPage({
    tenantId,
    scope: 'webhook_events',
    partition: outboxKeys.eventsPartition(tenantId),
    skPrefix: 'EVENT#',
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters,
    map: presentWebhookEvent,
  });
}

const countIs = (n: number) => (n === 0 ? '(attribute_not_exists(attempt_count) OR attempt_count = :n)' : 'attempt_count = :n');

/**
 * Take the lease for the next attempt: only while the event is in `allowed` states, its
 * attempt count is what was read, and no unexpired lease is held. False when another
 * worker (or a redelivery) holds it or the event moved on.
 */
export async function claimAttempt(
  tenantId: string,
  eventId: string,
  claim: { expectedCount: number; allowed: readonly DeliveryStatus[]; leaseId: string; leaseUntil: Date; at: Date },
): Promise<boolean> {
  const statuses = Object.fromEntries(claim.allowed.map((s, i) => [`:s${i}`, s]));
  // Events committed before the ledger existed carry no delivery fields: they read as pending, 0.
  const status = `(delivery_status IN (${Object.keys(statuses).join(', ')})${claim.allowed.includes('pending') ? ' OR attribute_not_exists(delivery_status)' : ''})`;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: outboxKeys.event(tenantId, eventId),
        UpdateExpression: 'SET lease_id = :lease, lease_until = :until',
        ConditionExpression: `attribute_exists(pk) AND ${status} AND ${countIs(claim.expectedCount)} AND (attribute_not_exists(lease_until) OR lease_until < :at)`,
        ExpressionAttributeValues: {
          ':lease': claim.leaseId,
          ':until': claim.leaseUntil.toISOString(),
          ':n': claim.expectedCount,
          ':at': claim.at.toISOString(),
          ...statuses,
        },
      }),
    );
    return true;
  } catch (err) {
    if ((err as { name?: string })?.name === 'ConditionalCheckFailedException') return false;
    throw err;
  }
}

/** What an attempt's POST came to, as the ledger keeps it (the delivery module's result has these fields). */
interface AttemptResult {
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  detail: string;
}

type AttemptOutcome = {
  leaseId: string;
  result: AttemptResult;
  at: Date;
  trigger: AttemptRecord['trigger'];
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  endpointId: string;
};

/** One attempt's items (the event's new state under the lease, the attempt row) and whether it is the event's first delivery. */
function attemptItems(
  tenantId: string,
  record: WebhookEventRecord,
  outcome: AttemptOutcome,
): { attempt: AttemptRecord; items: TransactItem[]; firstDelivery: boolean } {
  const n = (record.attempt_count ?? 0) + 1;
  const attempt: AttemptRecord = {
    attempt: n,
    at: outcome.at.toISOString(),
    trigger: outcome.trigger,
    status_code: outcome.result.status_code,
    duration_ms: Math.round(outcome.result.duration_ms),
    error: outcome.result.error,
    detail: outcome.result.detail,
  };
  const firstDelivery = outcome.status === 'delivered' && record.delivery_status !== 'delivered';
  const values: Record<string, unknown> = {
    ':lease': outcome.leaseId,
    ':n': n - 1,
    ':n1': n,
    ':status': outcome.status,
    ':at': attempt.at,
    ':next': outcome.nextAttemptAt?.toISOString() ?? null,
    ':endpoint': outcome.endpointId,
  };
  const sets = ['attempt_count = :n1', 'delivery_status = :status', 'last_attempt_at = :at', 'next_attempt_at = :next', 'endpoint_id = :endpoint'];
  if (firstDelivery) sets.push('delivered_at = :at');
  // The due index follows the next attempt; a settled event leaves it.
  const removes = ['lease_id', 'lease_until'];
  if (outcome.status === 'pending' && outcome.nextAttemptAt) {
    const due = webhookKeys.dueIndex(outcome.nextAttemptAt.toISOString(), tenantId, record.event.id);
    sets.push('gsi1pk = :duepk', 'gsi1sk = :duesk');
    Object.assign(values, { ':duepk': due.gsi1pk, ':duesk': due.gsi1sk });
  } else removes.push('gsi1pk', 'gsi1sk');
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName(),
        Key: outboxKeys.event(tenantId, record.event.id),
        UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removes.join(', ')}`,
        ConditionExpression: `lease_id = :lease AND ${countIs(n - 1)}`,
        ExpressionAttributeValues: values,
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...webhookKeys.attempt(tenantId, record.event.id, n),
          type: 'webhook_attempt',
          event_id: record.event.id,
          event_type: record.event_type,
          ...attempt,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  return { attempt, items, firstDelivery };
}

/** Adds `count` first deliveries of `eventType` to the endpoint's delivered count. */
const deliveredCountItem = (tenantId: string, endpointId: string, eventType: string, count: number, at: string): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: webhookKeys.deliveredCount(tenantId, endpointId, eventType),
    UpdateExpression: 'SET #type = :type, event_type = :et, updated_at = :at ADD delivered :k',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: { ':type': 'webhook_delivered_count', ':et': eventType, ':at': at, ':k': count },
  },
});

/**
 * Record one attempt and the event's new delivery state in one transaction, under the lease:
 * the attempt row, the event (count + 1, status, next attempt, lease released) and, the first
 * time an event is delivered, its type's delivered count.
 */
export async function recordAttempt(tenantId: string, record: WebhookEventRecord, outcome: AttemptOutcome): Promise<AttemptRecord> {
  const { attempt, items, firstDelivery } = attemptItems(tenantId, record, outcome);
  if (firstDelivery) items.push(deliveredCountItem(tenantId, outcome.endpointId, record.event_type, 1, attempt.at));
  await transactWrite(items);
  return attempt;
}

/** A transaction's items at most (DynamoDB's limit). */
const TRANSACTION_ITEMS = 100;
/**
 * Events a ledger transaction takes at most: two items each plus one delivered count per event
 * type (one type: 49 events, 99 items). Events of many types take fewer (recordAttempts packs
 * them by items): on DynamoDB Local a transaction costs a fixed ~5 ms plus its items, so full
 * ones are the cheapest.
 */
export const EVENTS_PER_LEDGER_TRANSACTION = 49;

/**
 * recordAttempt for many events of one tenant (the worker's batch): as many events a transaction
 * as fit in its 100 items (two each, one delivered count per endpoint and event type, summed). An event
 * whose lease was lost (its condition failed) is left out and the rest committed; answers the
 * attempts recorded, by event id.
 */
export async function recordAttempts(
  tenantId: string,
  outcomes: readonly { record: WebhookEventRecord; outcome: AttemptOutcome }[],
): Promise<Map<string, AttemptRecord>> {
  const recorded = new Map<string, AttemptRecord>();
  const built = outcomes.map((o) => ({ id: o.record.event.id, o, ...attemptItems(tenantId, o.record, o.outcome) }));
  const counted = (kept: readonly (typeof built)[number][]) => {
    const counts = new Map<string, { endpointId: string; eventType: string; n: number; at: string }>();
    for (const b of kept.filter((x) => x.firstDelivery)) {
      const key = `${b.o.outcome.endpointId}|${b.o.record.event_type}`;
      const c = counts.get(key) ?? { endpointId: b.o.outcome.endpointId, eventType: b.o.record.event_type, n: 0, at: b.attempt.at };
      counts.set(key, { ...c, n: c.n + 1 });
    }
    return [...counts.values()].map((c) => deliveredCountItem(tenantId, c.endpointId, c.eventType, c.n, c.at));
  };
  // A count per endpoint and type in the chunk, whether or not its events turn out first deliveries: an upper bound.
  const chunks: (typeof built)[] = [];
  let types = new Set<string>();
  for (const b of built) {
    const type = `${b.o.outcome.endpointId}|${b.o.record.event_type}`;
    const chunk = chunks.at(-1);
    const items = (chunk?.length ?? 0) * 2 + 2 + types.size + (types.has(type) ? 0 : 1);
    if (!chunk || items > TRANSACTION_ITEMS || chunk.length >= EVENTS_PER_LEDGER_TRANSACTION) {
      chunks.push([b]);
      types = new Set([type]);
    } else {
      chunk.push(b);
      types.add(type);
    }
  }
  for (const chunk of chunks) {
    const written = await transactWriteEach(chunk, (b) => b.items, counted);
    for (const b of written) recorded.set(b.id, b.attempt);
  }
  return recorded;
}

/** Many events of one tenant, read strongly consistently, 100 keys a BatchGetItem (unprocessed keys retried). */
export async function getWebhookEvents(tenantId: string, eventIds: readonly string[]): Promise<Map<string, WebhookEventRecord>> {
  const valid = eventIds.filter((id) => isId(id) && id.startsWith('evt_'));
  const items = await batchGetMany(valid.map((id) => outboxKeys.event(tenantId, id)));
  const records = [...items.values()] as unknown as WebhookEventRecord[];
  return new Map(records.map((record) => [record.event.id, record]));
}

type LeaseClaim = { leaseId: string; leaseUntil: Date; at: Date };

/** An automatic attempt may be leased only while its event is pending, due and holds no live lease. */
const LEASABLE =
  'attribute_exists(pk) AND (delivery_status = :pending OR attribute_not_exists(delivery_status)) AND (attribute_not_exists(next_attempt_at) OR next_attempt_at = :null OR next_attempt_at <= :at) AND (attribute_not_exists(lease_until) OR lease_until < :at)';
const leaseValues = (claim: LeaseClaim) => ({
  ':lease': claim.leaseId,
  ':until': claim.leaseUntil.toISOString(),
  ':pending': 'pending',
  ':null': null,
  ':at': claim.at.toISOString(),
});

/**
 * The worker's batch: take the leases for several events' next automatic attempts in one
 * transaction per 100 — each only while it is pending, due, its attempt count is what was read
 * and no live lease is held. An event whose condition fails (another worker got there first,
 * or it moved on) is left out and the rest leased; answers the event ids leased.
 */
export async function claimDueAttempts(tenantId: string, records: readonly WebhookEventRecord[], claim: LeaseClaim): Promise<Set<string>> {
  const leased = new Set<string>();
  for (let i = 0; i < records.length; i += 100) {
    const written = await transactWriteEach(records.slice(i, i + 100), (r) => [
      {
        Update: {
          TableName: tableName(),
          Key: outboxKeys.event(tenantId, r.event.id),
          UpdateExpression: 'SET lease_id = :lease, lease_until = :until',
          ConditionExpression: `${LEASABLE} AND ${countIs(r.attempt_count ?? 0)}`,
          ExpressionAttributeValues: { ...leaseValues(claim), ':n': r.attempt_count ?? 0 },
        },
      },
    ]);
    for (const r of written) leased.add(r.event.id);
  }
  return leased;
}

/**
 * Give back leases taken but not used (events left untried: their endpoint's breaker tripped,
 * or too little of the lease was left to POST them), so the message that sends them on finds
 * them free at once; 100 a transaction. An event whose lease is no longer this one is left alone.
 */
export async function releaseLeases(tenantId: string, eventIds: readonly string[], leaseId: string): Promise<void> {
  for (let i = 0; i < eventIds.length; i += 100) {
    await transactWriteEach(eventIds.slice(i, i + 100), (id) => [
      {
        Update: {
          TableName: tableName(),
          Key: outboxKeys.event(tenantId, id),
          UpdateExpression: 'REMOVE lease_id, lease_until',
          ConditionExpression: 'lease_id = :lease',
          ExpressionAttributeValues: { ':lease': leaseId },
        },
      },
    ]);
  }
}

/**
 * A small wave's lease: take the lease for one event's next automatic attempt in ONE write —
 * only when it is pending, due, and no live lease is held — and get the event back, so no read
 * precedes it (one round trip, where a batch needs a read and a transaction). Undefined when
 * the condition fails (the caller reads to learn why).
 */
export async function claimDueAttempt(tenantId: string, eventId: string, claim: LeaseClaim): Promise<WebhookEventRecord | undefined> {
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: outboxKeys.event(tenantId, eventId),
        UpdateExpression: 'SET lease_id = :lease, lease_until = :until',
        ConditionExpression: LEASABLE,
        ExpressionAttributeValues: leaseValues(claim),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as WebhookEventRecord;
  } catch (err) {
    if ((err as { name?: string })?.name === 'ConditionalCheckFailedException') return undefined;
    throw err;
  }
}

/** What `skipped` writes, whoever settles it (the worker under its lease, the relay before any lease). */
const SKIP_SET = 'SET delivery_status = :skipped, skip_reason = :reason, last_attempt_at = if_not_exists(last_attempt_at, :null), skipped_at = :at';
const skipValues = (reason: 'no_endpoint' | 'event_type_not_enabled', at: Date) => ({
  ':skipped': 'skipped',
  ':reason': reason,
  ':pending': 'pending',
  ':at': at.toISOString(),
  ':null': null,
});

/** No endpoint takes this event (none configured, or its type is not enabled): it is never sent. Under the caller's lease. */
export async function markSkipped(
  tenantId: string,
  eventId: string,
  reason: 'no_endpoint' | 'event_type_not_enabled',
  at: Date,
  leaseId: string,
): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: outboxKeys.event(tenantId, eventId),
        UpdateExpression: `${SKIP_SET} REMOVE lease_id, lease_until, gsi1pk, gsi1sk`,
        ConditionExpression: '(delivery_status = :pending OR attribute_not_exists(delivery_status)) AND lease_id = :lease',
        ExpressionAttributeValues: { ...skipValues(reason, at), ':lease': leaseId },
      }),
    );
  } catch (err) {
    if ((err as { name?: string })?.name !== 'ConditionalCheckFailedException') throw err;
  }
}

/**
 * Events no endpoint takes, settled `skipped` before any message or lease (the relay's: the tenant
 * has no endpoint, or it does not enable the type). Each only while it is still a first attempt
 * nobody holds — pending, no attempt made, no live lease — so an event a worker took meanwhile (a
 * marker relayed twice) is left to it; 100 a transaction, a refused one left out. Answers the ids skipped.
 */
export async function skipUnattempted(
  tenantId: string,
  skips: readonly { eventId: string; reason: 'no_endpoint' | 'event_type_not_enabled' }[],
  at: Date,
): Promise<Set<string>> {
  const skipped = new Set<string>();
  for (let i = 0; i < skips.length; i += 100) {
    const written = await transactWriteEach(skips.slice(i, i + 100), (s) => [
      {
        Update: {
          TableName: tableName(),
          Key: outboxKeys.event(tenantId, s.eventId),
          UpdateExpression: `${SKIP_SET} REMOVE gsi1pk, gsi1sk`,
          ConditionExpression: `attribute_exists(pk) AND (delivery_status = :pending OR attribute_not_exists(delivery_status)) AND ${countIs(0)} AND (attribute_not_exists(lease_until) OR lease_until < :at)`,
          ExpressionAttributeValues: { ...skipValues(s.reason, at), ':n': 0 },
        },
      },
    ]);
    for (const s of written) skipped.add(s.eventId);
  }
  return skipped;
}

/** The event's message went to the dead-letter queue (so a retried message does not send it twice). */
export async function markDeadLettered(tenantId: string, eventId: string, at: Date): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: outboxKeys.event(tenantId, eventId),
      UpdateExpression: 'SET dead_lettered_at = if_not_exists(dead_lettered_at, :at)',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': at.toISOString() },
    }),
  );
}

/** How many events of each type reached this endpoint (the ledger's first deliveries to it). */
export async function deliveredCounts(tenantId: string, endpointId: string, eventTypes: readonly string[]): Promise<Map<string, number>> {
  const counts = await Promise.all(
    eventTypes.map(async (t) => {
      const out = await db().send(new GetCommand({ TableName: tableName(), Key: webhookKeys.deliveredCount(tenantId, endpointId, t), ConsistentRead: true }));
      return [t, (out.Item?.delivered as number | undefined) ?? 0] as const;
    }),
  );
  return new Map(counts);
}

/** A pending event as the due index shows it (eventually consistent: the sweep re-checks under a condition). */
export interface DueWebhookEvent {
  tenant_id: string;
  event_id: string;
  due_sk: string;
  attempt_count: number;
  lease_until: string | null;
  /** When the event's next attempt is due (its first: at its commit); the entry may have been re-armed past it. */
  due_at: string;
}

/** Up to `limit` events of one due-index shard whose next attempt is at or before `bound` (an ISO instant), oldest first. */
export async function overdueWebhookEvents(shard: number, bound: string, limit: number): Promise<DueWebhookEvent[]> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk <= :bound',
      ExpressionAttributeValues: { ':pk': webhookKeys.duePartition(shard), ':bound': `${bound}#~` },
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map(dueEntryOf);
}

function dueEntryOf(item: Record<string, unknown>): DueWebhookEvent {
  const rec = item as unknown as WebhookEventRecord & { gsi1sk: string };
  return {
    tenant_id: rec.event.tenant_id,
    event_id: rec.event.id,
    due_sk: rec.gsi1sk,
    attempt_count: rec.attempt_count ?? 0,
    lease_until: rec.lease_until ?? null,
    due_at: rec.next_attempt_at ?? rec.created_at,
  };
}

/**
 * Every event of one due-index shard (each page of the query, `pageSize` at a time, handed to
 * `visit` before the next is read), whatever its next attempt: the restart sweep's read.
 */
export async function forEachPendingWebhookEvent(shard: number, pageSize: number, visit: (page: DueWebhookEvent[]) => Promise<void>): Promise<void> {
  for await (const page of queryPages({
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': webhookKeys.duePartition(shard) },
    Limit: pageSize,
  }))
    await visit((page.Items ?? []).map(dueEntryOf));
}

/**
 * Move a pending event's due-index entry to `nextCheck`, only while it is still pending, at
 * the same attempt and the same entry (so of two sweeps, one re-arms and enqueues). False
 * when the event moved on or another sweep got there first.
 */
export async function rearmOverdue(due: DueWebhookEvent, nextCheck: Date): Promise<boolean> {
  const entry = webhookKeys.dueIndex(nextCheck.toISOString(), due.tenant_id, due.event_id);
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: outboxKeys.event(due.tenant_id, due.event_id),
        UpdateExpression: 'SET gsi1pk = :pk, gsi1sk = :sk',
        ConditionExpression: `attribute_exists(pk) AND (delivery_status = :pending OR attribute_not_exists(delivery_status)) AND ${countIs(due.attempt_count)} AND gsi1sk = :was`,
        ExpressionAttributeValues: { ':pk': entry.gsi1pk, ':sk': entry.gsi1sk, ':pending': 'pending', ':n': due.attempt_count, ':was': due.due_sk },
      }),
    );
    return true;
  } catch (err) {
    if ((err as { name?: string })?.name === 'ConditionalCheckFailedException') return false;
    throw err;
  }
}
