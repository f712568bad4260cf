import { now } from '../../shared/clock.js';
import type { OutboxEvent } from '../../shared/events/outbox.js';
import { logger } from '../../shared/observability.js';
import { markDeadLettered } from '../../shared/repositories/webhook-events.js';
import { webhookDeliveryMessage } from '../../shared/schemas/queue-bodies.js';
import { type AutomaticOutcome, deliverEvents } from '../../shared/webhooks/deliver-event.js';
import { deadLetter, enqueueDeliveries } from '../../shared/webhooks/delivery-queue.js';
import { defineBatchWorker } from '../../shared/workers/define-batch-worker.js';

/**
 * Webhook-delivery worker: the batch's events, per tenant, in waves (shared/webhooks/deliver-event.ts),
 * tenants in parallel. An event with retries left, not yet due, or held back by its endpoint's
 * breaker is sent on again (delayed to its next attempt); an event whose schedule ran out is
 * dead-lettered. A message naming an event whose step threw (or could not be sent on) is
 * reported failed: SQS retries it (the ledger makes that safe) and dead-letters it after
 * maxReceiveCount receives.
 */
export const handler = defineBatchWorker('webhook-delivery', webhookDeliveryMessage, async (messages) => {
  const byTenant = new Map<string, Set<string>>();
  const namedBy = new Map<string, string[]>();
  const carried = new Map<string, Map<string, OutboxEvent>>();
  for (const { message, record } of messages) {
    const ids = 'event_ids' in message ? message.event_ids : [message.event_id];
    for (const event of message.events ?? []) {
      if (event.tenant_id !== message.tenant_id || !ids.includes(event.id)) continue;
      const tenant = carried.get(message.tenant_id) ?? new Map<string, OutboxEvent>();
      carried.set(message.tenant_id, tenant.set(event.id, event as OutboxEvent));
    }
    for (const id of ids) {
      const tenant = byTenant.get(message.tenant_id) ?? new Set<string>();
      byTenant.set(message.tenant_id, tenant.add(id));
      namedBy.set(`${message.tenant_id}|${id}`, [...(namedBy.get(`${message.tenant_id}|${id}`) ?? []), record.messageId]);
    }
  }
  const failed = new Set<string>();
  const fail = (tenantId: string, eventId: string) => {
    for (const m of namedBy.get(`${tenantId}|${eventId}`) ?? []) failed.add(m);
  };
  const onward: { tenant_id: string; event_id: string; delaySeconds: number }[] = [];

  await Promise.all(
    [...byTenant].map(async ([tenantId, ids]) => {
      let outcomes: Map<string, AutomaticOutcome>;
      try {
        outcomes = await deliverEvents(tenantId, [...ids], { carried: carried.get(tenantId) });
      } catch (err) {
        logger.error('webhook delivery: the batch step failed; its messages are retried', { error: (err as Error)?.name, events: ids.size });
        for (const id of ids) fail(tenantId, id);
        return;
      }
      for (const [eventId, outcome] of outcomes) {
        const again = onwardDelay(outcome);
        if (again !== undefined) onward.push({ tenant_id: tenantId, event_id: eventId, delaySeconds: again });
        else if (
          (outcome.kind === 'attempted' && outcome.status === 'failed') ||
          (outcome.kind === 'settled' && outcome.status === 'failed' && !outcome.deadLettered)
        ) {
          // Recorded failed first, then dead-lettered and marked so: a send that throws fails the
          // message, and its retry finds the event failed but not yet dead-lettered.
          try {
            await deadLetter(tenantId, eventId, outcome.kind === 'attempted' ? outcome.attempt.detail : 'every scheduled attempt failed');
            await markDeadLettered(tenantId, eventId, now());
            logger.warn('webhook event failed: every attempt of its schedule failed; dead-lettered', { event_id: eventId });
          } catch (err) {
            logger.error('webhook delivery: dead-lettering failed; the message is retried', { event_id: eventId, error: (err as Error)?.name });
            fail(tenantId, eventId);
          }
        } else if (outcome.kind === 'missing') logger.warn('webhook delivery: no such event', { event_id: eventId });
      }
    }),
  );

  if (onward.length > 0) {
    let sent = new Set<string>();
    try {
      sent = await enqueueDeliveries(onward);
    } catch (err) {
      logger.error('webhook delivery: sending events on failed; their messages are retried', { error: (err as Error)?.name, events: onward.length });
    }
    for (const e of onward) if (!sent.has(e.event_id)) fail(e.tenant_id, e.event_id);
  }
  return failed;
});

/** When an event's next look is due (seconds), or undefined when it needs none from the queue. */
function onwardDelay(outcome: AutomaticOutcome): number | undefined {
  if (outcome.kind === 'not_due') return outcome.inSeconds;
  if (outcome.kind === 'deferred') return 0;
  if (outcome.kind === 'attempted' && outcome.status === 'pending') return outcome.retryInSeconds ?? 0;
  return undefined;
}
