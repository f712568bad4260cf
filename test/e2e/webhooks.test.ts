/**
 * Webhooks on the running local stack, against a real HTTP receiver on 127.0.0.1: the
 * endpoint and its secrets, the test send, the relay and the delivery worker with retries and
 * a ledger, redelivery, the dead-letter queue, URL refusals in a deployed configuration, and
 * receptionist action targets. Signatures are checked by the `stripe` package's verifier and
 * by an independent implementation.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { ScanCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../shared/canonical-json.js';
import { now } from '../../shared/clock.js';
import { db, tableName } from '../../shared/db/client.js';
import { outboxKeys } from '../../shared/db/keys.js';
import { type EventType, outboxItems } from '../../shared/events/outbox.js';
import { sqs } from '../../shared/queues/client.js';
import { getWebhookEvent } from '../../shared/repositories/webhook-events.js';
import { deliverEvent, STALLED_AFTER_MS } from '../../shared/webhooks/deliver-event.js';
import { enqueueDelivery } from '../../shared/webhooks/delivery-queue.js';
import { OVERDUE_GRACE_MS, runWebhookOverdueSweep } from '../../shared/webhooks/overdue-sweep.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { ALLOWED_AT, callWorld, newContact, queue, resetClock, setClock } from './call-fixtures.js';
import { client, newTenant } from './client.js';
import { type Receiver, startReceiver } from './webhook-receiver.js';

const stack = useTestStack({ workers: true, schedulerTickMs: 200, relayTickMs: 100 });
const stripe = new Stripe('sk_test_not_used');

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  process.env.WEBHOOK_RETRY_SCHEDULE_S = '0,1,1';
});
afterAll(async () => {
  delete process.env.WEBHOOK_RETRY_SCHEDULE_S;
  await receiver.close();
});
afterEach(() => {
  resetClock();
  receiver.answer(() => ({ status: 200 }));
  process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP = 'true';
});

type Api = ReturnType<typeof client>;
async function tenantWithEndpoint(url = receiver.url, extra: Record<string, unknown> = {}) {
  const t = await newTenant('Hooks');
  const api = client(stack, t.token);
  const put = await api('PUT', '/v1/webhook-endpoint', { body: { url, ...extra } });
  expect(put.status).toBe(201);
  return { ...t, api, secret: put.body.signing_secret as string, endpoint: put.body };
}

/** Commit an event exactly as a state change does (the outbox items in a transaction). */
async function commitEvent(tenantId: string, type: EventType, data: Record<string, unknown> = {}) {
  const { event, items } = outboxItems(tenantId, type, { call_id: 'cal_x', ...data }, new Date());
  await db().send(new TransactWriteCommand({ TransactItems: items }));
  return event;
}

/** Parses t and every v1 of Service-Signature and checks one against `secret` (not Stripe's code). */
function independentlyVerified(body: string, header: string, secret: string, toleranceS = 300): boolean {
  const parts = header.split(',').map((p) => p.split('=') as [string, string]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceS) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest();
  return parts
    .filter(([k]) => k === 'v1')
    .some(([, v]) => {
      const got = Buffer.from(v, 'hex');
      return got.length === expected.length && timingSafeEqual(got, expected);
    });
}

const v1Count = (header: string) => header.split(',').filter((p) => p.startsWith('v1=')).length;
const tableItemCount = async () => (await db().send(new ScanCommand({ TableName: tableName(), Select: 'COUNT', ConsistentRead: true }))).Count ?? 0;

describe('the webhook endpoint', () => {
  it('is created once with a whsec_ secret, read without it, replaced without a new one; members may not manage it', async () => {
    const t = await tenantWithEndpoint(receiver.url, { description: 'ops', enabled_events: ['call.completed'] });
    expect(t.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43,}$/);
    expect(t.endpoint).toMatchObject({ url: receiver.url, description: 'ops', enabled_events: ['call.completed'], status: 'enabled' });
    const got = (await t.api('GET', '/v1/webhook-endpoint')).body;
    expect(got.secrets).toEqual([{ id: expect.stringMatching(/^whs_/), created_at: expect.any(String), expires_at: null }]);
    expect(JSON.stringify(got)).not.toContain(t.secret.slice(6));
    const replaced = await t.api('PUT', '/v1/webhook-endpoint', { body: { url: `${receiver.url}/v2` } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.signing_secret).toBeUndefined();
    expect(replaced.body).toMatchObject({ id: t.endpoint.id, url: `${receiver.url}/v2`, enabled_events: null, description: null });
    expect(replaced.body.secrets.map((s: { id: string }) => s.id)).toEqual(got.secrets.map((s: { id: string }) => s.id));

    const member = await client(stack, t.token)('POST', '/v1/api-keys', { body: { name: 'm', role: 'member' } });
    const m = client(stack, member.body.secret);
    expect((await m('PUT', '/v1/webhook-endpoint', { body: { url: receiver.url } })).status).toBe(403);
    expect((await m('GET', '/v1/webhook-endpoint')).status).toBe(403);
    expect((await m('POST', '/v1/webhook-endpoint/rotate-secret')).status).toBe(403);

    expect((await t.api('DELETE', '/v1/webhook-endpoint')).body).toEqual({ id: t.endpoint.id, deleted: true });
    expect((await t.api('GET', '/v1/webhook-endpoint')).status).toBe(404);
    expect((await t.api('DELETE', '/v1/webhook-endpoint')).status).toBe(404);
  });

  it('refuses private, loopback, link-local and metadata addresses (deployed configuration) with 422 url_not_allowed', async () => {
    const t = await newTenant('Ssrf');
    const api = client(stack, t.token);
    process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP = 'false';
    for (const url of [
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://localhost/hook',
      `${receiver.url}`,
      'https://192.168.1.10/x',
      'ftp://example.com/x',
      'not a url',
    ]) {
      const res = await api('PUT', '/v1/webhook-endpoint', { body: { url } });
      expect(res.status, url).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'url_not_allowed' });
    }
    expect((await api('GET', '/v1/webhook-endpoint')).status).toBe(404);
  });

  it('refuses unknown keys, unknown event types and an overlap beyond 7 days', async () => {
    const t = await tenantWithEndpoint();
    const bad = await t.api('PUT', '/v1/webhook-endpoint', { body: { url: receiver.url, secret: 'mine', enabled_events: ['call.exploded'] } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'secret'],
        ['body', 'enabled_events', 0],
      ]),
    );
    const rot = await t.api('POST', '/v1/webhook-endpoint/rotate-secret', { body: { overlap_seconds: 7 * 86_400 + 1 } });
    expect(rot.status).toBe(422);
    expect(rot.body.detail[0].loc).toEqual(['body', 'overlap_seconds']);
  });
});

describe('POST /v1/webhook-endpoint/test', () => {
  it('sends one signed sample that Stripe and an independent verifier accept, and writes nothing', async () => {
    const t = await tenantWithEndpoint();
    const before = await tableItemCount();
    const sent = receiver.received.length;
    const res = await t.api('POST', '/v1/webhook-endpoint/test');
    expect(res.body).toMatchObject({ delivered: true, status_code: 200, event_type: 'webhook.test' });
    const got = receiver.received.slice(sent);
    expect(got).toHaveLength(1);
    const { body, headers } = got[0]!;
    const header = headers['service-signature'] as string;
    const event = stripe.webhooks.constructEvent(body, header, t.secret) as unknown as Record<string, any>;
    expect(event).toMatchObject({ type: 'webhook.test', api_version: '0.1.0', data: { test: true } });
    expect(body).toBe(canonicalJson(JSON.parse(body)));
    expect(independentlyVerified(body, header, t.secret)).toBe(true);
    expect(headers['service-event-id']).toBe(event.id);
    expect(headers['service-event-type']).toBe('webhook.test');
    expect(headers['content-type']).toBe('application/json');
    expect(await tableItemCount()).toBe(before);
    expect((await t.api('GET', '/v1/webhook-events')).body.data).toEqual([]);
  });

  it('reports a refusal, a missing endpoint and an unreachable one in words', async () => {
    const t = await tenantWithEndpoint();
    receiver.answer(() => ({ status: 500 }));
    expect((await t.api('POST', '/v1/webhook-endpoint/test')).body).toMatchObject({
      delivered: false,
      status_code: 500,
      detail: expect.stringContaining('500'),
    });
    await t.api('PUT', '/v1/webhook-endpoint', { body: { url: 'http://127.0.0.1:9/hooks' } });
    const down = (await t.api('POST', '/v1/webhook-endpoint/test')).body;
    expect(down).toMatchObject({ delivered: false, status_code: null });
    expect(down.detail.length).toBeGreaterThan(10);
    await t.api('DELETE', '/v1/webhook-endpoint');
    const none = await t.api('POST', '/v1/webhook-endpoint/test');
    expect(none.status).toBe(409);
    expect(none.body.code).toBe('webhook_endpoint_not_configured');
  });

  it('counts a receiver slower than 10 seconds as not delivered', async () => {
    const t = await tenantWithEndpoint();
    receiver.answer(() => ({ status: 200, delayMs: 11_000 }));
    const started = Date.now();
    const res = (await t.api('POST', '/v1/webhook-endpoint/test')).body;
    expect(res).toMatchObject({ delivered: false, status_code: null });
    expect(res.detail).toMatch(/10 seconds/);
    expect(Date.now() - started).toBeLessThan(10_900);
  }, 20_000);
});

describe('secret rotation', () => {
  it('signs with both secrets during the overlap, then only with the new one', async () => {
    const t = await tenantWithEndpoint();
    const rot = await t.api('POST', '/v1/webhook-endpoint/rotate-secret', { body: { overlap_seconds: 3600 } });
    expect(rot.status).toBe(200);
    const fresh = rot.body.signing_secret as string;
    expect(fresh).not.toBe(t.secret);
    expect(rot.body.secrets).toHaveLength(2);
    expect(rot.body.secrets[1].expires_at).toEqual(expect.any(String));

    const n = receiver.received.length;
    await t.api('POST', '/v1/webhook-endpoint/test');
    const during = receiver.received[n]!;
    const header = during.headers['service-signature'] as string;
    expect(v1Count(header)).toBe(2);
    for (const secret of [t.secret, fresh]) {
      expect(() => stripe.webhooks.constructEvent(during.body, header, secret)).not.toThrow();
      expect(independentlyVerified(during.body, header, secret)).toBe(true);
    }

    setClock(Date.now() + 3601_000);
    await t.api('POST', '/v1/webhook-endpoint/test');
    const after = receiver.received[n + 1]!;
    const afterHeader = after.headers['service-signature'] as string;
    expect(v1Count(afterHeader)).toBe(1);
    expect(() => stripe.webhooks.constructEvent(after.body, afterHeader, fresh)).not.toThrow();
    expect(() => stripe.webhooks.constructEvent(after.body, afterHeader, t.secret)).toThrow();
    expect(independentlyVerified(after.body, afterHeader, t.secret)).toBe(false);
    expect((await t.api('GET', '/v1/webhook-endpoint')).body.secrets).toHaveLength(1);
  });
});

describe('delivery', () => {
  const detail = (api: Api, id: string) => api('GET', `/v1/webhook-events/${id}`);

  it('delivers a committed event once, signed, with a ledger row; a later duplicate message does not POST again', async () => {
    const t = await tenantWithEndpoint();
    const event = await commitEvent(t.tenantId, 'call.completed', { state: 'completed', disposition: 'completed_goal' });
    const d = await waitFor(
      async () => {
        const x = (await detail(t.api, event.id)).body;
        return x.delivery_status === 'delivered' ? x : undefined;
      },
      { message: 'delivered', timeoutMs: 15_000 },
    );
    expect(d.attempts).toEqual([
      { attempt: 1, at: expect.any(String), trigger: 'automatic', status_code: 200, duration_ms: expect.any(Number), error: null, detail: expect.any(String) },
    ]);
    expect(d).toMatchObject({
      id: event.id,
      type: 'call.completed',
      api_version: '0.1.0',
      attempt_count: 1,
      delivered_at: expect.any(String),
      data: { state: 'completed' },
    });
    const got = receiver.forEvent(event.id);
    expect(got).toHaveLength(1);
    expect(stripe.webhooks.constructEvent(got[0]!.body, got[0]!.headers['service-signature'] as string, t.secret)).toMatchObject({ id: event.id });

    // A redelivered or duplicated queue message after the success: the ledger says delivered, no POST.
    await enqueueDelivery(t.tenantId, event.id);
    expect(await deliverEvent(t.tenantId, event.id)).toEqual({ kind: 'settled', status: 'delivered', deadLettered: false });
    expect(receiver.forEvent(event.id)).toHaveLength(1);
    expect((await detail(t.api, event.id)).body.attempts).toHaveLength(1);
  });

  it('five workers racing on one event (and the stack’s own worker) POST it once', async () => {
    const t = await tenantWithEndpoint();
    receiver.answer(() => ({ status: 200, delayMs: 200 }));
    const event = await commitEvent(t.tenantId, 'call.dialing', { state: 'dialing' });
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => deliverEvent(t.tenantId, event.id)));
    expect(outcomes.filter((o) => o.kind === 'attempted').length).toBeLessThanOrEqual(1);
    await waitFor(async () => (await detail(t.api, event.id)).body.delivery_status === 'delivered', { message: 'delivered' });
    expect(receiver.forEvent(event.id)).toHaveLength(1);
    expect((await detail(t.api, event.id)).body.attempts).toHaveLength(1);
  });

  it('retries a 500: delivered on the second attempt, two ledger rows, each signed at its own send time', async () => {
    const t = await tenantWithEndpoint();
    const seen = new Map<string, number>();
    receiver.answer((r) => {
      const id = (JSON.parse(r.body) as { id: string }).id;
      seen.set(id, (seen.get(id) ?? 0) + 1);
      return { status: seen.get(id) === 1 ? 500 : 200 };
    });
    const event = await commitEvent(t.tenantId, 'call.answered', { state: 'answered' });
    const d = await waitFor(
      async () => {
        const x = (await detail(t.api, event.id)).body;
        return x.delivery_status === 'delivered' ? x : undefined;
      },
      { message: 'delivered on retry', timeoutMs: 20_000 },
    );
    expect(d.attempts.map((a: { status_code: number; error: string | null }) => [a.status_code, a.error])).toEqual([
      [500, 'http_status'],
      [200, null],
    ]);
    const [first, second] = receiver.forEvent(event.id);
    const ts = [first, second].map((r) => Number(/t=(\d+)/.exec(r!.headers['service-signature'] as string)![1]));
    // The second attempt waits at least the schedule's 1 s, so a fresh t is a later second.
    expect(ts[1]).toBeGreaterThan(ts[0]!);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(900);
  });

  it('fails an event whose every scheduled attempt failed (the receiver down: nothing listens), dead-letters it, lists it as failed; redeliver succeeds later', async () => {
    const t = await tenantWithEndpoint('http://127.0.0.1:9/hooks');
    const event = await commitEvent(t.tenantId, 'call.scheduled', { state: 'scheduled' });
    const d = await waitFor(
      async () => {
        const x = (await detail(t.api, event.id)).body;
        return x.delivery_status === 'failed' ? x : undefined;
      },
      { message: 'failed', timeoutMs: 25_000 },
    );
    expect(d.attempts).toHaveLength(3);
    expect(d.attempts.every((a: { error: string; status_code: number | null }) => a.error === 'connection_error' && a.status_code === null)).toBe(true);
    expect(d.next_attempt_at).toBeNull();
    const failed = (await t.api('GET', '/v1/webhook-events?delivery_status=failed')).body.data.map((e: { id: string }) => e.id);
    expect(failed).toContain(event.id);
    const dlq = await waitFor(
      async () => {
        const out = await sqs().send(
          new ReceiveMessageCommand({
            QueueUrl: process.env.WEBHOOK_DELIVERY_DLQ_URL!,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            MessageAttributeNames: ['All'],
          }),
        );
        return (out.Messages ?? []).find((m) => m.Body?.includes(event.id));
      },
      { message: 'the event in the dead-letter queue', timeoutMs: 10_000 },
    );
    expect(JSON.parse(dlq.Body!)).toEqual({ type: 'webhook.deliver', tenant_id: t.tenantId, event_id: event.id });

    await waitFor(async () => (await getWebhookEvent(t.tenantId, event.id))?.dead_lettered_at, { message: 'marked dead-lettered' });
    await t.api('PUT', '/v1/webhook-endpoint', { body: { url: receiver.url } });
    const again = await t.api('POST', `/v1/webhook-events/${event.id}/redeliver`);
    expect(again.status).toBe(200);
    expect(again.body.delivery_status).toBe('delivered');
    expect(again.body.attempts.at(-1)).toMatchObject({ attempt: 4, trigger: 'manual', status_code: 200 });
  }, 40_000);

  it('counts a receiver slower than 10 seconds as a timed-out attempt in the ledger, then delivers on the retry', async () => {
    const t = await tenantWithEndpoint();
    const seen = new Map<string, number>();
    receiver.answer((r) => {
      const id = (JSON.parse(r.body) as { id: string }).id;
      seen.set(id, (seen.get(id) ?? 0) + 1);
      return seen.get(id) === 1 ? { status: 200, delayMs: 11_000 } : { status: 200 };
    });
    const event = await commitEvent(t.tenantId, 'call.completed', { state: 'completed' });
    const d = await waitFor(
      async () => {
        const x = (await detail(t.api, event.id)).body;
        return x.delivery_status === 'delivered' ? x : undefined;
      },
      { message: 'delivered after a timeout', timeoutMs: 25_000 },
    );
    expect(d.attempts.map((a: { error: string | null; status_code: number | null }) => [a.error, a.status_code])).toEqual([
      ['timeout', null],
      [null, 200],
    ]);
    expect(d.attempts[0].duration_ms).toBeGreaterThanOrEqual(9_900);
  }, 40_000);

  it('the worker dead-letters a failed event it had not dead-lettered yet (a send that threw), once', async () => {
    const t = await tenantWithEndpoint();
    const { event, items } = outboxItems(t.tenantId, 'call.completed', { call_id: 'cal_x' }, new Date());
    await db().send(new TransactWriteCommand({ TransactItems: [items[0]!] })); // the event without its relay marker
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: outboxKeys.event(t.tenantId, event.id),
        UpdateExpression: 'SET delivery_status = :f',
        ExpressionAttributeValues: { ':f': 'failed' },
      }),
    );
    const message = {
      messageId: 'm1',
      body: JSON.stringify({ type: 'webhook.deliver', tenant_id: t.tenantId, event_id: event.id }),
      attributes: { ApproximateReceiveCount: '2' },
    };
    const worker = (await import('../../functions/workers/webhook-delivery.js')).handler as unknown as (
      e: unknown,
      c: unknown,
    ) => Promise<{ batchItemFailures: unknown[] }>;
    const context = { functionName: 'webhookDeliveryWorker', awsRequestId: 'r1', getRemainingTimeInMillis: () => 60_000 };
    expect((await worker({ Records: [message] }, context)).batchItemFailures).toEqual([]);
    expect((await getWebhookEvent(t.tenantId, event.id))!.dead_lettered_at).toEqual(expect.any(String));
    expect((await worker({ Records: [{ ...message, messageId: 'm2' }] }, context)).batchItemFailures).toEqual([]);
    const mine: string[] = [];
    await waitFor(
      async () => {
        const out = await sqs().send(
          new ReceiveMessageCommand({ QueueUrl: process.env.WEBHOOK_DELIVERY_DLQ_URL!, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        mine.push(...(out.Messages ?? []).filter((m) => m.Body?.includes(event.id)).map((m) => m.MessageId!));
        return out.Messages?.length ? undefined : true; // drained
      },
      { message: 'the DLQ drained', timeoutMs: 10_000 },
    );
    expect(mine).toHaveLength(1);
    expect(receiver.forEvent(event.id)).toHaveLength(0);
  });

  it('a pending event nobody works on (its messages lost) can be redelivered by hand once it has stalled', async () => {
    const t = await tenantWithEndpoint();
    const { event, items } = outboxItems(t.tenantId, 'call.completed', { call_id: 'cal_x' }, new Date());
    // Committed before the due index existed (no gsi1 entry, so the overdue sweep never sees it), and no marker reaches the relay.
    const { gsi1pk: _pk, gsi1sk: _sk, ...legacy } = items[0]!.Put!.Item as Record<string, unknown>;
    await db().send(new TransactWriteCommand({ TransactItems: [{ Put: { ...items[0]!.Put!, Item: legacy } }] }));
    expect((await t.api('POST', `/v1/webhook-events/${event.id}/redeliver`)).body.code).toBe('delivery_pending');
    setClock(Date.now() + STALLED_AFTER_MS + 60_000);
    const again = await t.api('POST', `/v1/webhook-events/${event.id}/redeliver`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ delivery_status: 'delivered', attempt_count: 1 });
    expect(again.body.attempts).toEqual([expect.objectContaining({ attempt: 1, trigger: 'manual', status_code: 200 })]);
    expect(receiver.forEvent(event.id)).toHaveLength(1);
  });

  it('an attempt whose retry message was lost is re-enqueued by the scheduler tick once overdue, and POSTed once', async () => {
    const t = await tenantWithEndpoint();
    receiver.answer(() => ({ status: 500 }));
    const { event, items } = outboxItems(t.tenantId, 'call.completed', { call_id: 'cal_x' }, now());
    await db().send(new TransactWriteCommand({ TransactItems: [items[0]!] })); // no marker: only the attempts below reach the queue
    // Attempt 1 fails and schedules attempt 2 six minutes on; the process "crashes" before sending that message.
    const first = await deliverEvent(t.tenantId, event.id, { schedule: [0, 360, 900] });
    expect(first).toMatchObject({ kind: 'attempted', status: 'pending', retryInSeconds: 360 });
    const due = Date.parse((await getWebhookEvent(t.tenantId, event.id))!.next_attempt_at!);
    receiver.answer(() => ({ status: 200 }));

    // Due but inside the grace: nothing is re-enqueued, the ledger stays as it was.
    setClock(due + OVERDUE_GRACE_MS - 5_000);
    await runWebhookOverdueSweep(now());
    expect(await getWebhookEvent(t.tenantId, event.id)).toMatchObject({ delivery_status: 'pending', attempt_count: 1 });
    expect(receiver.forEvent(event.id)).toHaveLength(1);

    // Past it: the stack's own scheduler tick finds it through the due index and the worker delivers it.
    setClock(due + OVERDUE_GRACE_MS + 1_000);
    // Sweeps racing with the tick re-enqueue it at most once between them (the conditional re-arm).
    const raced = await Promise.all([runWebhookOverdueSweep(now()), runWebhookOverdueSweep(now())]);
    expect(raced[0]! + raced[1]!).toBeLessThanOrEqual(1);
    const d = await waitFor(
      async () => {
        const x = (await detail(t.api, event.id)).body;
        return x.delivery_status === 'delivered' ? x : undefined;
      },
      { message: 'delivered by the overdue sweep', timeoutMs: 20_000 },
    );
    expect(d.attempts.map((a: { attempt: number; trigger: string; status_code: number }) => [a.attempt, a.trigger, a.status_code])).toEqual([
      [1, 'automatic', 500],
      [2, 'automatic', 200],
    ]);
    expect(receiver.forEvent(event.id)).toHaveLength(2);
    // Delivered: it left the due index, so later sweeps and a duplicate message POST nothing more.
    expect(await runWebhookOverdueSweep(new Date(now().getTime() + 3600_000))).toBe(0);
    expect(await deliverEvent(t.tenantId, event.id)).toMatchObject({ kind: 'settled', status: 'delivered' });
    expect(receiver.forEvent(event.id)).toHaveLength(2);
  });

  it('skips events no endpoint takes; a pending event cannot be redelivered; unknown and other tenants’ events are 404', async () => {
    const t = await tenantWithEndpoint(receiver.url, { enabled_events: ['call.completed'] });
    const other = await commitEvent(t.tenantId, 'call.dialing', { state: 'dialing' });
    const skipped = await waitFor(
      async () => {
        const x = (await detail(t.api, other.id)).body;
        return x.delivery_status === 'skipped' ? x : undefined;
      },
      { message: 'skipped' },
    );
    expect(skipped).toMatchObject({ skip_reason: 'event_type_not_enabled', attempt_count: 0 });
    expect(receiver.forEvent(other.id)).toHaveLength(0);
    // Redelivered by hand only once the endpoint takes its type.
    expect((await t.api('POST', `/v1/webhook-events/${other.id}/redeliver`)).body.code).toBe('event_type_not_enabled');
    expect(receiver.forEvent(other.id)).toHaveLength(0);

    const none = await newTenant('NoEndpoint');
    const noneEvent = await commitEvent(none.tenantId, 'call.completed');
    const api = client(stack, none.token);
    await waitFor(async () => (await detail(api, noneEvent.id)).body.skip_reason === 'no_endpoint', { message: 'skipped for want of an endpoint' });
    expect((await api('POST', `/v1/webhook-events/${noneEvent.id}/redeliver`)).body.code).toBe('webhook_endpoint_not_configured');

    expect((await detail(api, other.id)).status).toBe(404);
    expect((await api('POST', `/v1/webhook-events/${other.id}/redeliver`)).status).toBe(404);
    expect((await detail(t.api, 'evt_nope')).status).toBe(404);
    const byType = (await t.api('GET', '/v1/webhook-events?type=call.dialing')).body.data;
    expect(byType.map((e: { id: string }) => e.id)).toEqual([other.id]);
  });

  it('delivers every event of a full sandbox call exactly as committed, each once', async () => {
    const t = await tenantWithEndpoint();
    const w = await callWorld(t.api, t.tenantId);
    setClock(ALLOWED_AT);
    const contact = await newContact(t.api, '+12125550101');
    const attempt = (await queue(t.api, { agent_id: w.agentId, contact_id: contact.id })).body;
    const types = ['call.queued', 'call.scheduled', 'call.dialing', 'call.answered', 'call.completed', 'call.analysis_ready'];
    const committed = await waitFor(
      async () => {
        const page = (await t.api('GET', '/v1/webhook-events?limit=200')).body.data as {
          id: string;
          type: string;
          data: { call_id?: string };
          delivery_status: string;
        }[];
        const mine = page.filter((e) => e.data.call_id === attempt.call_id);
        return types.every((ty) => mine.some((e) => e.type === ty && e.delivery_status === 'delivered')) ? mine : undefined;
      },
      { message: 'every event of the call delivered', timeoutMs: 60_000 },
    );
    for (const e of committed) {
      const got = receiver.forEvent(e.id);
      expect(got, e.type).toHaveLength(1);
      const { id, type, created_at, api_version, data } = (await detail(t.api, e.id)).body;
      expect(got[0]!.body).toBe(canonicalJson({ id, type, created_at, api_version, data }));
      expect(data).toMatchObject({ call_id: attempt.call_id, attempt_id: attempt.id, contact_id: contact.id });
    }
    expect(committed.filter((e) => e.type === 'call.completed')).toHaveLength(1);
  }, 90_000);
});

describe('receptionist action targets', () => {
  it('is empty without an endpoint, then one target per native outcome with delivery counts from the ledger', async () => {
    const bare = await newTenant('Bare');
    const res = await client(stack, bare.token)('GET', '/v1/receptionist-action-targets');
    expect(res.body).toEqual([]);

    const t = await tenantWithEndpoint();
    const event = await commitEvent(t.tenantId, 'receptionist.message_taken', { action_id: 'a1', kind: 'take_message' });
    await waitFor(async () => (await t.api('GET', `/v1/webhook-events/${event.id}`)).body.delivery_status === 'delivered', { message: 'delivered' });
    const targets = (await t.api('GET', '/v1/receptionist-action-targets')).body as Record<string, unknown>[];
    expect(targets.map((x) => x.outcome_type)).toEqual(expect.arrayContaining(['take_message', 'open_ticket', 'schedule_callback', 'transfer_to_human']));
    const take = targets.find((x) => x.outcome_type === 'take_message')!;
    expect(take).toMatchObject({
      event_type: 'receptionist.message_taken',
      endpoint_id: t.endpoint.id,
      endpoint_url: receiver.url,
      endpoint_status: 'enabled',
      delivery_count: 1,
      signing_secret_source: 'webhook_endpoint_create_or_rotate',
    });
    expect(targets.find((x) => x.outcome_type === 'open_ticket')!.delivery_count).toBe(0);
    expect(JSON.stringify(targets)).not.toContain(t.secret.slice(6));
    // A new endpoint starts its own counts.
    await t.api('DELETE', '/v1/webhook-endpoint');
    const fresh = (await t.api('PUT', '/v1/webhook-endpoint', { body: { url: receiver.url } })).body;
    const after = (await t.api('GET', '/v1/receptionist-action-targets')).body as Record<string, unknown>[];
    expect(after.find((x) => x.outcome_type === 'take_message')).toMatchObject({ endpoint_id: fresh.id, delivery_count: 0 });
  });
});
