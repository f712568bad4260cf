/**
 * One tenant's slow webhook endpoint does not hold up another tenant's events, on the running
 * local stack (relay, pollers, the delivery worker) with two real receivers: the fast tenant's
 * events all arrive while the slow tenant's first POST is still unanswered, and the slow
 * tenant's events are delivered too, each once.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../shared/db/client.js';
import { outboxItems } from '../../shared/events/outbox.js';
import { newId } from '../../shared/ids.js';
import { getWebhookEvent } from '../../shared/repositories/webhook-events.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { client, newTenant } from './client.js';
import { type Receiver, startReceiver } from './webhook-receiver.js';

const stack = useTestStack({ workers: true, schedulerTickMs: 60_000, relayTickMs: 100 });

let slowReceiver: Receiver;
let fastReceiver: Receiver;
beforeAll(async () => {
  [slowReceiver, fastReceiver] = await Promise.all([startReceiver(), startReceiver()]);
});
afterAll(async () => {
  await Promise.all([slowReceiver.close(), fastReceiver.close()]);
});

async function tenantWithEndpoint(url: string) {
  const t = await newTenant('Isolation');
  const put = await client(stack, t.token)('PUT', '/v1/webhook-endpoint', { body: { url } });
  expect(put.status).toBe(201);
  return t;
}

/** Commits n events as a state change does (the outbox items in a transaction); the relay picks them up. */
async function commit(tenantId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { event, items } = outboxItems(tenantId, 'call.completed', { call_id: newId('cal') }, new Date());
    await db().send(new TransactWriteCommand({ TransactItems: items }));
    ids.push(event.id);
  }
  return ids;
}

describe('webhook delivery across tenants', () => {
  it("a tenant whose endpoint takes 9 s does not hold up another tenant's events", async () => {
    slowReceiver.answer(() => ({ status: 200, delayMs: 9_000 }));
    const slow = await tenantWithEndpoint(slowReceiver.url);
    const fast = await tenantWithEndpoint(fastReceiver.url);

    const slowIds = await commit(slow.tenantId, 3);
    const firstSlowPost = await waitFor(() => slowReceiver.received[0], { message: "the slow tenant's first POST", timeoutMs: 8_000 });
    const fastIds = await commit(fast.tenantId, 20);
    await waitFor(() => fastIds.every((id) => fastReceiver.forEvent(id).length > 0), { message: "every fast tenant's event received", timeoutMs: 8_000 });
    // Ordering, not timing: all of them arrived before the slow endpoint answered its first POST.
    expect(firstSlowPost.answeredAt).toBeUndefined();
    for (const id of fastIds) expect(fastReceiver.forEvent(id)).toHaveLength(1);

    // The slow tenant's events are delivered as well, once each.
    for (const id of slowIds) {
      await waitFor(async () => (await getWebhookEvent(slow.tenantId, id))?.delivery_status === 'delivered', {
        message: `slow event ${id} delivered`,
        timeoutMs: 30_000,
      });
      expect(slowReceiver.forEvent(id)).toHaveLength(1);
    }
  }, 60_000);
});
