/**
 * Messages to the webhook-delivery queue: one per event, naming it (the ledger holds its
 * state). SQS delays a message at most 900 s, so a longer wait is a chain of delayed
 * messages: the worker sees the event not yet due and sends it on again.
 */
import { SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { env } from '../config.js';
import { sqs } from '../queues/client.js';
import { queues } from '../queues/definitions.js';

const MAX_SQS_DELAY_SECONDS = 900;

const body = (tenantId: string, eventId: string) => JSON.stringify({ type: 'webhook.deliver', tenant_id: tenantId, event_id: eventId });

export async function enqueueDelivery(tenantId: string, eventId: string, delaySeconds = 0): Promise<void> {
  await sqs().send(
    new SendMessageCommand({ QueueUrl: env.queueUrl(queues.webhookDelivery.envVar), MessageBody: body(tenantId, eventId), DelaySeconds: Math.max(0, Math.min(MAX_SQS_DELAY_SECONDS, Math.ceil(delaySeconds))) }),
  );
}

/** Up to 10 events in one call; answers the event ids SQS took. */
export async function enqueueDeliveries(events: readonly { tenant_id: string; event_id: string }[]): Promise<Set<string>> {
  const sent = new Set<string>();
  for (let i = 0; i < events.length; i += 10) {
    const batch = events.slice(i, i + 10);
    const out = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: env.queueUrl(queues.webhookDelivery.envVar),
        Entries: batch.map((e, j) => ({ Id: String(j), MessageBody: body(e.tenant_id, e.event_id) })),
      }),
    );
    for (const ok of out.Successful ?? []) sent.add(batch[Number(ok.Id)]!.event_id);
  }
  return sent;
}

/** An event whose schedule ran out goes to the dead-letter queue, for operators to see and replay. */
export async function deadLetter(tenantId: string, eventId: string, reason: string): Promise<void> {
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: env.queueUrl(queues.webhookDelivery.dlqEnvVar),
      MessageBody: body(tenantId, eventId),
      MessageAttributes: { reason: { DataType: 'String', StringValue: reason.slice(0, 256) } },
    }),
  );
}
