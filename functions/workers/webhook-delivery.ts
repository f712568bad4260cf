import { now } from '../../shared/clock.js';
import { logger } from '../../shared/observability.js';
import { markDeadLettered } from '../../shared/repositories/webhook-events.js';
import { webhookDeliveryMessage } from '../../shared/schemas/messages.js';
import { deadLetter, enqueueDelivery } from '../../shared/webhooks/delivery-queue.js';
import { deliverEvent } from '../../shared/webhooks/deliver-event.js';
import { defineWorker } from '../../shared/workers/define-worker.js';

/**
 * Webhook-delivery worker: one attempt per message (shared/webhooks/deliver-event.ts). A
 * failed attempt with retries left sends the event on again, delayed to its next attempt; an
 * event whose schedule ran out is dead-lettered. A message that throws is retried by SQS
 * (its ledger state makes the retry safe) and reaches the DLQ after maxReceiveCount receives.
 */
export const handler = defineWorker('webhook-delivery', webhookDeliveryMessage, async (message) => {
  const outcome = await deliverEvent(message.tenant_id, message.event_id);
  if (outcome.kind === 'not_due') await enqueueDelivery(message.tenant_id, message.event_id, outcome.inSeconds);
  else if (outcome.kind === 'attempted' && outcome.status === 'pending') await enqueueDelivery(message.tenant_id, message.event_id, outcome.retryInSeconds ?? 0);
  else if ((outcome.kind === 'attempted' && outcome.status === 'failed') || (outcome.kind === 'settled' && outcome.status === 'failed' && !outcome.deadLettered)) {
    // Recorded failed first, then dead-lettered and marked so: a send that throws fails the
    // message, and its retry finds the event failed but not yet dead-lettered.
    await deadLetter(message.tenant_id, message.event_id, outcome.kind === 'attempted' ? outcome.attempt.detail : 'every scheduled attempt failed');
    await markDeadLettered(message.tenant_id, message.event_id, now());
    logger.warn('webhook event failed: every attempt of its schedule failed; dead-lettered', { event_id: message.event_id });
  } else if (outcome.kind === 'missing') logger.warn('webhook delivery: no such event', { event_id: message.event_id });
});
