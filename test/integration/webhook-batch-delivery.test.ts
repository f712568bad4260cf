/**
 * The webhook-delivery worker's batch paths on DynamoDB Local and the SQS emulator, with real
 * HTTP receivers on 127.0.0.1 and the worker handler called with SQS batches as Lambda would:
 * one failing endpoint (or one failing event) leaves the rest delivered and ledgered; a batch
 * redelivered (also while the first copy is still running) neither POSTs nor ledgers twice; a
 * slow endpoint's breaker sends the rest of its events back to the queue without an attempt;
 * batches sharing an endpoint wait for its sockets before their POSTs' clocks start; events
 * carried by their message are not read, and the lease still refuses one that moved on (the
 * refusals read back in one BatchGetItem, not a GetItem each); a malformed message fails alone.
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler } from '../../functions/workers/webhook-delivery.js';
import { db } from '../../shared/db/client.js';
import { type OutboxEvent, outboxItems } from '../../shared/events/outbox.js';
import { newId } from '../../shared/ids.js';
import { deliveredCounts, getWebhookEvent, webhookEventAttempts } from '../../shared/repositories/webhook-events.js';
import { deliverEvents, WAVE } from '../../shared/webhooks/deliver-event.js';
import { saveWebhookEndpoint } from '../../shared/webhooks/endpoint.js';
import { type Receiver, startReceiver } from '../e2e/webhook-receiver.js';
import { useTestEnvironment } from '../support/environment.js';

const env = useTestEnvironment({ bucket: false });
const receivers: Receiver[] = [];
beforeAll(() => {
  // Every retry is due at once, so a failed attempt is sent on visibly (no SQS delay).
  process.env.WEBHOOK_RETRY_SCHEDULE_S = '0,0,0';
});
afterAll(async () => {
  delete process.env.WEBHOOK_RETRY_SCHEDULE_S;
  await Promise.all(receivers.map((r) => r.close()));
});

async function tenantReceiving() {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const tenantId = newId('ten');
  const { endpoint } = await saveWebhookEndpoint(tenantId, { url: receiver.url, description: null, enabled_events: null }, new Date());
  return { tenantId, receiver, endpointId: endpoint.id };
}

/** Commits n events as a state change does, without relay markers (the test hands the worker its messages). */
async function commit(tenantId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { event, items } = outboxItems(tenantId, 'call.completed', { call_id: newId('cal') }, new Date());
    await db().send(new TransactWriteCommand({ TransactItems: [items[0]!] }));
    ids.push(event.id);
  }
  return ids;
}

let seq = 0;
const sqsEvent = (...bodies: unknown[]): SQSEvent =>
  ({
    Records: bodies.map((b) => ({
      messageId: `m${++seq}`,
      receiptHandle: 'r',
      body: typeof b === 'string' ? b : JSON.stringify(b),
      attributes: { ApproximateReceiveCount: '1' },
    })),
  }) as unknown as SQSEvent;
const packed = (tenantId: string, ids: string[]) => ({ type: 'webhook.deliver', tenant_id: tenantId, event_ids: ids });
const single = (tenantId: string, id: string) => ({ type: 'webhook.deliver', tenant_id: tenantId, event_id: id });
const context = { functionName: 'webhookDeliveryWorker', awsRequestId: 'r1', getRemainingTimeInMillis: () => 60_000 };
const run = (event: SQSEvent) =>
  (handler as unknown as (e: SQSEvent, c: unknown) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>)(event, context);

/** Every event id named by the messages on the delivery queue now (the queue is drained). */
async function queued(): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const out = await env.sqs.send(new ReceiveMessageCommand({ QueueUrl: env.queues.webhookDelivery.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!out.Messages?.length) return ids;
    for (const m of out.Messages) {
      const body = JSON.parse(m.Body!) as { event_id?: string; event_ids?: string[] };
      ids.push(...(body.event_ids ?? [body.event_id!]));
    }
  }
}

const eventIdOf = (body: string) => (JSON.parse(body) as { id: string }).id;

type SentCalls = [{ constructor: { name: string }; input: unknown }, ...unknown[]][];
/** The event ids each BatchGetItem sent asked for, in order. */
const batchGetKeys = (calls: SentCalls) =>
  calls
    .filter(([c]) => c.constructor.name === 'BatchGetCommand')
    .map(([c]) =>
      Object.values((c.input as { RequestItems: Record<string, { Keys: { sk: string }[] }> }).RequestItems).flatMap((t) =>
        t.Keys.map((k) => k.sk.replace(/^EVENT#/, '')),
      ),
    );
/** GetItems of an event (not the endpoint's, nor anything else's). */
const eventGets = (calls: SentCalls) =>
  calls.filter(([c]) => c.constructor.name === 'GetCommand' && String((c.input as { Key: { sk: string } }).Key.sk).startsWith('EVENT#')).length;

describe('the webhook-delivery worker, a batch at a time', () => {
  it('a batch where one endpoint and one event fail: the others are delivered and ledgered, the failures ledgered and sent on', async () => {
    const a = await tenantReceiving();
    const b = await tenantReceiving();
    const aIds = await commit(a.tenantId, 4);
    const bIds = await commit(b.tenantId, 2);
    a.receiver.answer((r) => ({ status: eventIdOf(r.body) === aIds[1] ? 500 : 200 }));
    b.receiver.answer(() => ({ status: 503 }));
    await queued();

    const out = await run(sqsEvent(packed(a.tenantId, aIds.slice(0, 3)), single(a.tenantId, aIds[3]!), ...bIds.map((id) => single(b.tenantId, id))));
    expect(out.batchItemFailures).toEqual([]);

    for (const id of aIds) {
      const expected = id === aIds[1] ? { delivery_status: 'pending', attempt_count: 1 } : { delivery_status: 'delivered', attempt_count: 1 };
      expect(await getWebhookEvent(a.tenantId, id)).toMatchObject(expected);
      expect(await webhookEventAttempts(a.tenantId, id)).toEqual([
        expect.objectContaining({ attempt: 1, trigger: 'automatic', status_code: id === aIds[1] ? 500 : 200 }),
      ]);
      expect(a.receiver.forEvent(id)).toHaveLength(1);
    }
    for (const id of bIds) {
      expect(await getWebhookEvent(b.tenantId, id)).toMatchObject({ delivery_status: 'pending', attempt_count: 1 });
      expect(await webhookEventAttempts(b.tenantId, id)).toEqual([expect.objectContaining({ attempt: 1, status_code: 503, error: 'http_status' })]);
    }
    expect((await deliveredCounts(a.tenantId, a.endpointId, ['call.completed'])).get('call.completed')).toBe(3);
    // The failed events go back to the queue for their next attempt; the delivered ones do not.
    expect((await queued()).sort()).toEqual([aIds[1]!, ...bIds].sort());
  });

  it('a redelivered batch (also one still running) neither POSTs nor ledgers an event twice', async () => {
    const a = await tenantReceiving();
    a.receiver.answer(() => ({ status: 200, delayMs: 150 }));
    const ids = await commit(a.tenantId, 12);
    const batch = () => sqsEvent(packed(a.tenantId, ids.slice(0, 10)), packed(a.tenantId, ids.slice(10)), single(a.tenantId, ids[0]!));
    const results = await Promise.all([run(batch()), run(batch())]);
    expect(results.flatMap((r) => r.batchItemFailures)).toEqual([]);
    expect((await run(batch())).batchItemFailures).toEqual([]);

    for (const id of ids) {
      expect(a.receiver.forEvent(id), id).toHaveLength(1);
      expect(await webhookEventAttempts(a.tenantId, id)).toHaveLength(1);
      expect(await getWebhookEvent(a.tenantId, id)).toMatchObject({ delivery_status: 'delivered', attempt_count: 1 });
    }
    expect((await deliveredCounts(a.tenantId, a.endpointId, ['call.completed'])).get('call.completed')).toBe(12);
  });

  it('a message that comes back once its events are delivered reads the refused leases in one BatchGetItem and POSTs nothing', async () => {
    const a = await tenantReceiving();
    const ids = await commit(a.tenantId, 3);
    expect((await run(sqsEvent(packed(a.tenantId, ids)))).batchItemFailures).toEqual([]);
    await queued();
    const send = vi.spyOn(db(), 'send');
    try {
      const outcomes = await deliverEvents(a.tenantId, ids);
      expect([...outcomes.values()]).toEqual(ids.map(() => ({ kind: 'settled', status: 'delivered', deadLettered: false })));
      expect(batchGetKeys(send.mock.calls as SentCalls)).toEqual([ids]);
      expect(eventGets(send.mock.calls as SentCalls)).toBe(0);
    } finally {
      send.mockRestore();
    }
    for (const id of ids) expect(a.receiver.forEvent(id)).toHaveLength(1);
  });

  it("a slow endpoint trips its breaker after one wave: the rest go back to the queue untried, the other tenant's events are delivered", async () => {
    const slow = await tenantReceiving();
    const fast = await tenantReceiving();
    slow.receiver.answer(() => ({ status: 200, delayMs: 2_500 }));
    const slowIds = await commit(slow.tenantId, WAVE + 5);
    const fastIds = await commit(fast.tenantId, 3);
    await queued();

    const out = await run(sqsEvent(packed(slow.tenantId, slowIds.slice(0, 10)), packed(slow.tenantId, slowIds.slice(10)), packed(fast.tenantId, fastIds)));
    expect(out.batchItemFailures).toEqual([]);
    const tried = slowIds.filter((id) => slow.receiver.forEvent(id).length === 1);
    expect(tried).toEqual(slowIds.slice(0, WAVE));
    for (const id of slowIds.slice(WAVE)) expect(await getWebhookEvent(slow.tenantId, id)).toMatchObject({ delivery_status: 'pending', attempt_count: 0 });
    expect((await queued()).sort()).toEqual(slowIds.slice(WAVE).sort());
    for (const id of fastIds) expect(await getWebhookEvent(fast.tenantId, id)).toMatchObject({ delivery_status: 'delivered' });

    // The deferred events were left untouched: the next batch delivers them.
    slow.receiver.answer(() => ({ status: 200 }));
    const again = await deliverEvents(slow.tenantId, slowIds.slice(WAVE));
    expect([...again.values()].map((o) => o.kind)).toEqual(slowIds.slice(WAVE).map(() => 'attempted'));
  });

  it("batches POSTing to one endpoint together share its connection pool's sockets: a POST waiting for one does not trip the breaker", async () => {
    const t = await tenantReceiving();
    // 1.3 s an answer: three batches' windows (30 POSTs) on the pool's 20 sockets would leave 10 waiting ~2.6 s, past the breaker's 2 s.
    t.receiver.answer(() => ({ status: 200, delayMs: 1_300 }));
    const ids = await commit(t.tenantId, 3 * 2 * WAVE);
    const batches = [0, 1, 2].map((k) => ids.slice(k * 2 * WAVE, (k + 1) * 2 * WAVE));
    const outcomes = await Promise.all(batches.map((batch) => deliverEvents(t.tenantId, batch)));
    expect(outcomes.flatMap((o) => [...o.values()].map((x) => x.kind))).toEqual(ids.map(() => 'attempted'));
    for (const id of ids) expect(t.receiver.forEvent(id)).toHaveLength(1);
  });

  it('events carried by their relay message are leased without a read; one already attempted is refused by the lease, not POSTed again', async () => {
    const a = await tenantReceiving();
    const events: OutboxEvent[] = [];
    for (let i = 0; i < 12; i++) {
      const { event, items } = outboxItems(a.tenantId, 'call.completed', { call_id: newId('cal') }, new Date());
      await db().send(new TransactWriteCommand({ TransactItems: [items[0]!] }));
      events.push(event);
    }
    const ids = events.map((e) => e.id);
    // Two already delivered (a marker relayed twice): the carried copy still says attempt 0.
    await deliverEvents(a.tenantId, ids.slice(0, 2));
    // Another tenant's event smuggled into the message is not taken as this tenant's.
    const stranger = { ...events[2]!, tenant_id: newId('ten') };
    const send = vi.spyOn(db(), 'send');
    try {
      const out = await run(
        sqsEvent(
          { ...packed(a.tenantId, ids.slice(0, 10)), events: [...events.slice(0, 2), stranger, ...events.slice(3, 10)] },
          { ...packed(a.tenantId, ids.slice(10)), events: events.slice(10) },
        ),
      );
      expect(out.batchItemFailures).toEqual([]);
      // Only the event whose carried copy was refused (ids[2]) is read in the batch read; the two
      // leases refused (already delivered) are read back together once, never one GetItem each.
      expect(batchGetKeys(send.mock.calls as SentCalls)).toEqual([[ids[2]], [ids[0], ids[1]]]);
      expect(eventGets(send.mock.calls as SentCalls)).toBe(0);
    } finally {
      send.mockRestore();
    }
    for (const id of ids) {
      expect(a.receiver.forEvent(id), id).toHaveLength(1);
      expect(await webhookEventAttempts(a.tenantId, id)).toHaveLength(1);
      expect(await getWebhookEvent(a.tenantId, id)).toMatchObject({ delivery_status: 'delivered', attempt_count: 1 });
    }
    // The body POSTed is the committed event's, signed as ever.
    expect(JSON.parse(a.receiver.forEvent(ids[5]!)[0]!.body)).toMatchObject({ id: ids[5], type: 'call.completed', data: events[5]!.data });
  });

  it('an endpoint read that fails after the lease (taken beside it) gives the leases back: the retry delivers at once', async () => {
    const a = await tenantReceiving();
    const events: OutboxEvent[] = [];
    for (let i = 0; i < 6; i++) {
      const { event, items } = outboxItems(a.tenantId, 'call.completed', { call_id: newId('cal') }, new Date());
      await db().send(new TransactWriteCommand({ TransactItems: [items[0]!] }));
      events.push(event);
    }
    const ids = events.map((e) => e.id);
    const client = db();
    const original = client.send.bind(client) as (c: unknown) => Promise<unknown>;
    let leased = false;
    const send = vi.spyOn(client, 'send').mockImplementation((async (command: { constructor: { name: string } }) => {
      if (command.constructor.name === 'TransactWriteCommand') leased = true;
      if (command.constructor.name !== 'GetCommand') return original(command);
      // The endpoint's read fails once the lease went through.
      const deadline = Date.now() + 5_000;
      while (!leased && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      throw Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' });
    }) as never);
    let out: { batchItemFailures: { itemIdentifier: string }[] };
    const batch = sqsEvent({ ...packed(a.tenantId, ids), events });
    try {
      out = await run(batch);
    } finally {
      send.mockRestore();
    }
    expect(leased).toBe(true);
    expect(out.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([batch.Records[0]!.messageId]);
    for (const id of ids) {
      const record = await getWebhookEvent(a.tenantId, id);
      expect(record).toMatchObject({ delivery_status: 'pending', attempt_count: 0 });
      expect(record?.lease_until).toBeUndefined();
    }
    expect((await run(sqsEvent({ ...packed(a.tenantId, ids), events }))).batchItemFailures).toEqual([]);
    for (const id of ids) expect(a.receiver.forEvent(id)).toHaveLength(1);
  });

  it('a malformed message fails alone; the rest of its batch is delivered', async () => {
    const a = await tenantReceiving();
    const [id] = await commit(a.tenantId, 1);
    const event = sqsEvent('not json', { type: 'webhook.deliver', tenant_id: a.tenantId, event_ids: [] }, single(a.tenantId, id!));
    const out = await run(event);
    expect(out.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual([event.Records[0]!.messageId, event.Records[1]!.messageId].sort());
    expect(await getWebhookEvent(a.tenantId, id!)).toMatchObject({ delivery_status: 'delivered' });
  });
});
