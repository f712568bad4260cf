/**
 * The restart sweep for webhook deliveries (resendPendingAfterRestart) on DynamoDB Local and
 * the SQS emulator: every pending event is sent to the delivery queue again, delayed to land
 * when its next attempt is due, or once a lease the dead process held has lapsed; an entry
 * the tick would take as overdue first is re-armed past it; a settled event is left alone.
 * The delays are real: the test reads the queue and notes when each event's message appears.
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '../../shared/db/client.js';
import { outboxKeys } from '../../shared/db/keys.js';
import { outboxItems } from '../../shared/events/outbox.js';
import { newId } from '../../shared/ids.js';
import { claimDueAttempt } from '../../shared/repositories/webhook-events.js';
import { deliverEvent } from '../../shared/webhooks/deliver-event.js';
import { saveWebhookEndpoint } from '../../shared/webhooks/endpoint.js';
import { resendPendingAfterRestart } from '../../shared/webhooks/overdue-sweep.js';
import { type Receiver, startReceiver } from '../e2e/webhook-receiver.js';
import { useTestEnvironment } from '../support/environment.js';

const env = useTestEnvironment({ bucket: false });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** Commits an event as a state change does, without its relay marker (only the sweep reaches the queue). */
async function commit(tenantId: string): Promise<string> {
  const { event, items } = outboxItems(tenantId, 'call.completed', { call_id: newId('cal') }, new Date());
  await db().send(new TransactWriteCommand({ TransactItems: [items[0]!] }));
  return event.id;
}

/** The instant of the event's due-index entry, or undefined when it has none. */
async function dueEntry(tenantId: string, eventId: string): Promise<number | undefined> {
  const item = (await db().send(new GetCommand({ TableName: tableName(), Key: outboxKeys.event(tenantId, eventId), ConsistentRead: true }))).Item;
  return item?.gsi1sk ? Date.parse((item.gsi1sk as string).split('#')[0]!) : undefined;
}

/** Reads the delivery queue until `untilMs`: when (ms after `from`) each event was first seen, and how often. */
async function drain(from: number, untilMs: number): Promise<Map<string, { firstAfterMs: number; times: number }>> {
  const seen = new Map<string, { firstAfterMs: number; times: number }>();
  while (Date.now() - from < untilMs) {
    const out = await env.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: env.queues.webhookDelivery.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 600 }),
    );
    for (const m of out.Messages ?? []) {
      const body = JSON.parse(m.Body!) as { event_id?: string; event_ids?: string[] };
      for (const id of body.event_ids ?? [body.event_id!]) {
        const was = seen.get(id);
        seen.set(id, { firstAfterMs: was?.firstAfterMs ?? Date.now() - from, times: (was?.times ?? 0) + 1 });
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return seen;
}

describe('after a restart every pending webhook event goes back on the queue at its due time', () => {
  it('due now at once, a retry when due, a dead holder’s event once its lease lapses, a far one chained; settled ones not at all', {
    timeout: 30_000,
  }, async () => {
    const tenantId = newId('ten');
    await saveWebhookEndpoint(tenantId, { url: receiver.url, description: null, enabled_events: null }, new Date());
    receiver.answer(() => ({ status: 500 }));
    const fresh = await commit(tenantId); // never attempted: due at its commit
    const soon = await commit(tenantId);
    expect(await deliverEvent(tenantId, soon, { schedule: [0, 2] })).toMatchObject({ kind: 'attempted', status: 'pending', retryInSeconds: 2 });
    const far = await commit(tenantId);
    expect(await deliverEvent(tenantId, far, { schedule: [0, 7200] })).toMatchObject({ kind: 'attempted', status: 'pending', retryInSeconds: 7200 });
    receiver.answer(() => ({ status: 200 }));
    const done = await commit(tenantId);
    expect(await deliverEvent(tenantId, done)).toMatchObject({ kind: 'attempted', status: 'delivered' });
    // The process died mid-attempt: its lease is live for 3 s more.
    const held = await commit(tenantId);
    const at = new Date();
    expect(await claimDueAttempt(tenantId, held, { leaseId: 'dead-process', leaseUntil: new Date(at.getTime() + 3_000), at })).toBeDefined();
    const entries = { soon: await dueEntry(tenantId, soon), far: await dueEntry(tenantId, far) };

    expect(await resendPendingAfterRestart(at)).toBe(4);
    const seen = await drain(at.getTime(), 6_000);

    expect(seen.get(fresh)).toMatchObject({ times: 1 });
    // Sent at once, so ahead of the retry delayed 2 s (a bound on order, not on the machine's speed).
    expect(seen.get(fresh)!.firstAfterMs).toBeLessThan(seen.get(soon)!.firstAfterMs);
    expect(seen.get(soon)).toMatchObject({ times: 1 });
    expect(seen.get(soon)!.firstAfterMs).toBeGreaterThanOrEqual(1_500);
    expect(seen.get(held)).toMatchObject({ times: 1 });
    expect(seen.get(held)!.firstAfterMs).toBeGreaterThanOrEqual(3_500);
    expect(seen.has(far)).toBe(false); // delayed 900 s, SQS's most; the worker chains it on to its due time
    expect(seen.has(done)).toBe(false);

    // Entries the tick would have taken as overdue before their message landed were re-armed past it; the others kept.
    expect(await dueEntry(tenantId, fresh)).toBeGreaterThan(at.getTime() + 5 * 60_000);
    expect(await dueEntry(tenantId, held)).toBeGreaterThan(at.getTime() + 4_000 + 5 * 60_000);
    expect(await dueEntry(tenantId, soon)).toBe(entries.soon);
    expect(await dueEntry(tenantId, far)).toBe(entries.far);
    expect(await dueEntry(tenantId, done)).toBeUndefined();
  });
});
