/**
 * The outbox relay on DynamoDB Local and the SQS emulator: committed events reach the
 * webhook-delivery queue; an event whose enqueue failed keeps its marker and is relayed by
 * the next run (never lost); the table-stream trigger relays the shards its records name; a
 * small event rides in its message, a big one is named only; a marker that sits in another shard
 * than its id hashes to is relayed once and deleted, not relayed again every run; a shard's
 * marker deletes go one at a time; the events of a tenant without an endpoint (or of a type its
 * endpoint does not enable) are settled skipped by the relay, with no message and no lease.
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { handler as relayHandler } from '../../functions/workers/outbox-relay.js';
import { db, tableName } from '../../shared/db/client.js';
import { OUTBOX_SHARDS, outboxKeys } from '../../shared/db/keys.js';
import { outboxItems } from '../../shared/events/outbox.js';
import { newId } from '../../shared/ids.js';
import { pendingEvents } from '../../shared/repositories/outbox-events.js';
import { getWebhookEvent } from '../../shared/repositories/webhook-events.js';
import { CARRIED_EVENT_MAX_BYTES } from '../../shared/schemas/queue-bodies.js';
import { saveWebhookEndpoint } from '../../shared/webhooks/endpoint.js';
import { relayOutbox } from '../../shared/webhooks/relay.js';
import { useTestEnvironment } from '../support/environment.js';

const env = useTestEnvironment({ bucket: false });

async function commit(tenantId: string, n: number) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { event, items } = outboxItems(tenantId, 'call.completed', { call_id: `cal_${i}` }, new Date());
    await db().send(new TransactWriteCommand({ TransactItems: items }));
    ids.push(event.id);
  }
  return ids;
}

/** A tenant whose endpoint takes `enabledEvents` (null: every type): the relay sends its events. */
async function tenantWithEndpoint(enabledEvents: string[] | null = null) {
  const tenantId = newId('ten');
  await saveWebhookEndpoint(tenantId, { url: 'https://hooks.example.com/in', description: null, enabled_events: enabledEvents }, new Date());
  return tenantId;
}

const pendingIds = async () => (await Promise.all(Array.from({ length: OUTBOX_SHARDS }, (_, s) => pendingEvents(s, 1000)))).flat().map((p) => p.event_id);

async function drainQueue(): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const out = await env.sqs.send(new ReceiveMessageCommand({ QueueUrl: env.queues.webhookDelivery.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!out.Messages?.length) return ids;
    // A message names one event or several of one tenant.
    ids.push(
      ...out.Messages.flatMap((m) => {
        const body = JSON.parse(m.Body!) as { event_id?: string; event_ids?: string[] };
        return body.event_ids ?? [body.event_id!];
      }),
    );
  }
}

describe('the outbox relay', () => {
  it('carries each small committed event in its message, and names a big one only (the worker reads it)', async () => {
    const tenantId = await tenantWithEndpoint();
    await drainQueue();
    const small = outboxItems(tenantId, 'call.completed', { call_id: 'cal_small' }, new Date());
    const big = outboxItems(tenantId, 'call.completed', { call_id: 'cal_big', notes: 'x'.repeat(CARRIED_EVENT_MAX_BYTES) }, new Date());
    for (const c of [small, big]) await db().send(new TransactWriteCommand({ TransactItems: c.items }));
    await relayOutbox();
    const bodies: { event_id?: string; event_ids?: string[]; events?: unknown[] }[] = [];
    for (;;) {
      const out = await env.sqs.send(new ReceiveMessageCommand({ QueueUrl: env.queues.webhookDelivery.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
      if (!out.Messages?.length) break;
      bodies.push(...out.Messages.map((m) => JSON.parse(m.Body!)));
    }
    // The relay may name the two in one message or in two (its pages decide); each is named once.
    const naming = (id: string) => bodies.filter((b) => (b.event_ids ?? [b.event_id]).includes(id));
    expect(naming(small.event.id)).toHaveLength(1);
    expect(naming(big.event.id)).toHaveLength(1);
    const carried = (b: { events?: unknown[] }) => (b.events ?? []).map((e) => (e as { id: string }).id);
    expect(naming(small.event.id)[0]!.events).toContainEqual(small.event);
    expect(carried(naming(big.event.id)[0]!)).not.toContain(big.event.id);
  });

  it('keeps the markers of events it could not enqueue and relays them on the next run', async () => {
    const tenantId = await tenantWithEndpoint();
    const ids = await commit(tenantId, 12);
    const url = process.env.WEBHOOK_DELIVERY_QUEUE_URL!;
    process.env.WEBHOOK_DELIVERY_QUEUE_URL = `${url}-missing`;
    try {
      const failed = await relayOutbox();
      expect(failed).toEqual({ relayed: 0, failed: 12 });
    } finally {
      process.env.WEBHOOK_DELIVERY_QUEUE_URL = url;
    }
    expect((await pendingIds()).sort()).toEqual([...ids].sort());
    expect(await relayOutbox()).toEqual({ relayed: 12, failed: 0 });
    expect(await pendingIds()).toEqual([]);
    const queued = await drainQueue();
    expect(queued.sort()).toEqual([...ids].sort());
  });

  it('deletes a marker under the key it was read by, so one in another shard than its id hashes to is relayed once', async () => {
    // A marker copied with a fresh event id (a replayed transaction) keeps the shard it was written in.
    const tenantId = await tenantWithEndpoint();
    await drainQueue();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { event, items } = outboxItems(tenantId, 'call.completed', { call_id: `cal_${i}` }, new Date());
      const marker = items[1]!.Put!.Item!;
      const home = Number(String(marker.pk).split('#').at(-1));
      marker.pk = outboxKeys.pendingPartition((home + 1) % OUTBOX_SHARDS);
      await db().send(new TransactWriteCommand({ TransactItems: items }));
      ids.push(event.id);
    }
    // One marker a page: the second page starts after the first's foreign key.
    expect(await relayOutbox({ perShard: 1 })).toEqual({ relayed: 2, failed: 0 });
    expect(await pendingIds()).toEqual([]);
    expect(await relayOutbox()).toEqual({ relayed: 0, failed: 0 });
    expect((await drainQueue()).sort()).toEqual([...ids].sort());
  });

  it("deletes a shard's markers one BatchWriteItem at a time, every one of them", async () => {
    const ids = await commit(await tenantWithEndpoint(), 40);
    await drainQueue();
    const client = db();
    const original = client.send.bind(client) as (c: unknown) => Promise<unknown>;
    const inFlight = new Map<string, number>();
    let most = 0;
    const send = vi.spyOn(client, 'send').mockImplementation((async (command: { constructor: { name: string }; input: unknown }) => {
      if (command.constructor.name !== 'BatchWriteCommand') return original(command);
      const requests = Object.values((command.input as { RequestItems: Record<string, { DeleteRequest: { Key: { pk: string } } }[]> }).RequestItems)[0]!;
      const shard = requests[0]!.DeleteRequest.Key.pk;
      inFlight.set(shard, (inFlight.get(shard) ?? 0) + 1);
      most = Math.max(most, inFlight.get(shard)!);
      try {
        return await original(command);
      } finally {
        inFlight.set(shard, inFlight.get(shard)! - 1);
      }
    }) as never);
    try {
      // Pages of 3: several pages, so several deletes, per shard.
      expect(await relayOutbox({ perShard: 3 })).toEqual({ relayed: 40, failed: 0 });
    } finally {
      send.mockRestore();
    }
    expect(most).toBe(1);
    expect(await pendingIds()).toEqual([]);
    expect((await drainQueue()).sort()).toEqual([...ids].sort());
  });

  it('on the table stream, relays only the shards its INSERT records name', async () => {
    const tenantId = await tenantWithEndpoint();
    const ids = await commit(tenantId, 16);
    const shardOf = (id: string) => Number(outboxKeys.pending(id).pk.split('#').at(-1));
    const shard = shardOf(ids[0]!);
    const record = { eventName: 'INSERT', dynamodb: { Keys: { pk: { S: outboxKeys.pending(ids[0]!).pk }, sk: { S: ids[0]! } } } };
    const result = await relayHandler({ Records: [record, record] } as unknown as DynamoDBStreamEvent);
    const inShard = ids.filter((id) => shardOf(id) === shard);
    expect(result).toEqual({ relayed: inShard.length, failed: 0 });
    expect((await pendingIds()).sort()).toEqual(ids.filter((id) => shardOf(id) !== shard).sort());
    expect((await drainQueue()).sort()).toEqual([...inShard].sort());
    // The schedule's run (no records) takes every shard.
    await relayHandler();
    expect(await pendingIds()).toEqual([]);
    await drainQueue();
  });

  it('settles skipped the events of a tenant without an endpoint: no message, no lease, their markers deleted', async () => {
    const tenantId = newId('ten');
    await drainQueue();
    const ids = await commit(tenantId, 5);
    const client = db();
    const original = client.send.bind(client) as (c: unknown) => Promise<unknown>;
    const leases: unknown[] = [];
    const send = vi.spyOn(client, 'send').mockImplementation((async (command: { input: unknown }) => {
      if (JSON.stringify(command.input).includes('SET lease_id')) leases.push(command.input);
      return original(command);
    }) as never);
    try {
      expect(await relayOutbox()).toEqual({ relayed: 5, failed: 0 });
    } finally {
      send.mockRestore();
    }
    expect(leases).toEqual([]);
    expect(await pendingIds()).toEqual([]);
    expect(await drainQueue()).toEqual([]);
    for (const id of ids) {
      const record = (await getWebhookEvent(tenantId, id))!;
      expect(record).toMatchObject({ delivery_status: 'skipped', skip_reason: 'no_endpoint', attempt_count: 0 });
      // Out of the webhook due index: the overdue sweep never sends it.
      expect(record).not.toHaveProperty('gsi1pk');
    }
  });

  it("skips a carried event whose type the endpoint does not enable, and sends the endpoint's types", async () => {
    const tenantId = await tenantWithEndpoint(['call.completed']);
    await drainQueue();
    const taken = outboxItems(tenantId, 'call.completed', { call_id: 'cal_1' }, new Date());
    const filtered = outboxItems(tenantId, 'call.answered', { call_id: 'cal_1' }, new Date());
    for (const c of [taken, filtered]) await db().send(new TransactWriteCommand({ TransactItems: c.items }));
    expect(await relayOutbox()).toEqual({ relayed: 2, failed: 0 });
    expect(await drainQueue()).toEqual([taken.event.id]);
    expect(await getWebhookEvent(tenantId, filtered.event.id)).toMatchObject({ delivery_status: 'skipped', skip_reason: 'event_type_not_enabled' });
    expect(await getWebhookEvent(tenantId, taken.event.id)).toMatchObject({ delivery_status: 'pending' });
  });

  it('leaves an event a worker holds to it (a marker relayed twice), deleting the marker all the same', async () => {
    const tenantId = newId('ten');
    await drainQueue();
    const [id] = await commit(tenantId, 1);
    const at = new Date();
    // A worker leased it from an earlier message of the same marker.
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: outboxKeys.event(tenantId, id!),
              UpdateExpression: 'SET lease_id = :l, lease_until = :u',
              ExpressionAttributeValues: { ':l': 'lease-1', ':u': new Date(at.getTime() + 30_000).toISOString() },
            },
          },
        ],
      }),
    );
    expect(await relayOutbox({ at })).toEqual({ relayed: 1, failed: 0 });
    expect(await pendingIds()).toEqual([]);
    expect(await getWebhookEvent(tenantId, id!)).toMatchObject({ delivery_status: 'pending', lease_id: 'lease-1' });
  });
});
