/**
 * Messages to the webhook-delivery queue, naming events (the ledger holds their state; the relay's
 * may also carry a committed event's immutable payload, never its state): a
 * tenant's events sent together share a message (up to EVENTS_PER_DELIVERY_MESSAGE), ten
 * messages a SendMessageBatch. SQS delays a message at most 900 s, so a longer wait is a chain
 * of delayed messages: the worker sees the event not yet due and sends it on again.
 */
import { SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { env } from '../config.js';
import type { OutboxEvent } from '../events/outbox.js';
import { sqs } from '../queues/client.js';
import { queues } from '../queues/definitions.js';
import { CARRIED_BYTES_PER_MESSAGE, EVENTS_PER_DELIVERY_MESSAGE } from '../schemas/queue-bodies.js';

const MAX_SQS_DELAY_SECONDS = 900;

const body = (tenantId: string, eventIds: readonly string[], carried: readonly OutboxEvent[] = []) =>
  JSON.stringify({
    type: 'webhook.deliver',
    tenant_id: tenantId,
    ...(eventIds.length === 1 ? { event_id: eventIds[0] } : { event_ids: eventIds }),
    ...(carried.length > 0 ? { events: carried } : {}),
  });

/** The events of `ids` that ride in their message: those given, in order, while the message's budget lasts. */
function carriedIn(ids: readonly string[], events: ReadonlyMap<string, OutboxEvent>): OutboxEvent[] {
  const carried: OutboxEvent[] = [];
  let bytes = 0;
  for (const id of ids) {
    const event = events.get(id);
    if (!event) continue;
    const size = Buffer.byteLength(JSON.stringify(event));
    if (bytes + size > CARRIED_BYTES_PER_MESSAGE) continue;
    bytes += size;
    carried.push(event);
  }
  return carried;
}

const delay = (seconds = 0) => Math.max(0, Math.min(MAX_SQS_DELAY_SECONDS, Math.ceil(seconds)));

export async function enqueueDelivery(tenantId: string, eventId: string, delaySeconds = 0): Promise<void> {
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: env.queueUrl(queues.webhookDelivery.envVar),
      MessageBody: body(tenantId, [eventId]),
      DelaySeconds: delay(delaySeconds),
    }),
  );
}

/**
 * Sends every event on (each after its delay, default none); answers the event ids SQS took. An
 * `event` given (the relay's, read from its committed marker) rides in the message as well.
 */
export async function enqueueDeliveries(
  events: readonly { tenant_id: string; event_id: string; delaySeconds?: number; event?: OutboxEvent }[],
): Promise<Set<string>> {
  const payloads = new Map<string, OutboxEvent>();
  for (const e of events) if (e.event && e.event.id === e.event_id && e.event.tenant_id === e.tenant_id) payloads.set(e.event_id, e.event);
  const groups = new Map<string, { tenantId: string; delaySeconds: number; ids: string[] }>();
  for (const e of events) {
    const key = `${e.tenant_id}|${delay(e.delaySeconds)}`;
    const group = groups.get(key) ?? { tenantId: e.tenant_id, delaySeconds: delay(e.delaySeconds), ids: [] };
    if (!group.ids.includes(e.event_id)) group.ids.push(e.event_id);
    groups.set(key, group);
  }
  const messages = [...groups.values()].flatMap((g) =>
    Array.from({ length: Math.ceil(g.ids.length / EVENTS_PER_DELIVERY_MESSAGE) }, (_, i) => ({
      ...g,
      ids: g.ids.slice(i * EVENTS_PER_DELIVERY_MESSAGE, (i + 1) * EVENTS_PER_DELIVERY_MESSAGE),
    })),
  );
  const sent = new Set<string>();
  for (let i = 0; i < messages.length; i += 10) {
    const batch = messages.slice(i, i + 10);
    const out = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: env.queueUrl(queues.webhookDelivery.envVar),
        Entries: batch.map((m, j) => ({ Id: String(j), MessageBody: body(m.tenantId, m.ids, carriedIn(m.ids, payloads)), DelaySeconds: m.delaySeconds })),
      }),
    );
    for (const ok of out.Successful ?? []) for (const id of batch[Number(ok.Id)]!.ids) sent.add(id);
  }
  return sent;
}

/** An event whose schedule ran out goes to the dead-letter queue, for operators to see and replay. */
export async function deadLetter(tenantId: string, eventId: string, reason: string): Promise<void> {
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: env.queueUrl(queues.webhookDelivery.dlqEnvVar),
      MessageBody: body(tenantId, [eventId]),
      MessageAttributes: { reason: { DataType: 'String', StringValue: reason.slice(0, 256) } },
    }),
  );
}
