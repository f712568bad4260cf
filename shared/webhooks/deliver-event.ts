/**
 * One delivery attempt of a committed event, automatic (the delivery worker) or manual
 * (POST /v1/webhook-events/{id}/redeliver): lease, sign at send time, POST once, record.
 *
 * At least once: the event's state lives in the ledger (shared/repositories/webhook-events.ts),
 * the queue message only names it, so a lost, duplicated or late message can do no more than
 * trigger a look at the ledger. An attempt is POSTed only under the lease for its number, so a
 * duplicated message never POSTs twice, and an event already delivered is never POSTed again
 * by the worker.
 */
import { randomUUID } from 'node:crypto';
import { now as clockNow } from '../clock.js';
import { conflict, notFound } from '../http/errors.js';
import { logger } from '../observability.js';
import { endpointTakes, getWebhookEndpoint, liveSigningSecrets, type WebhookEndpointRecord } from '../repositories/webhook-endpoints.js';
import { claimAttempt, claimDueAttempt, getWebhookEvent, markSkipped, recordAttempt, type AttemptRecord, type DeliveryStatus, type WebhookEventRecord } from '../repositories/webhook-events.js';
import { deliverOnce, DELIVERY_TIMEOUT_MS } from './deliver.js';
import { envelopeBody, envelopeOf } from './envelope.js';
import { nextAttemptDelay, retrySchedule } from './retry-schedule.js';
import { deliveryHeaders } from './signature.js';
import { webhookUrlPolicy } from './url-policy.js';

/** Longer than one attempt can take, so a lease outlives its POST; a crashed holder's lease lapses. */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;

export type AutomaticOutcome =
  | { kind: 'missing' }
  | { kind: 'settled'; status: DeliveryStatus; deadLettered: boolean }
  | { kind: 'not_due'; inSeconds: number }
  | { kind: 'busy' }
  | { kind: 'skipped'; reason: 'no_endpoint' | 'event_type_not_enabled' }
  | { kind: 'attempted'; attempt: AttemptRecord; status: DeliveryStatus; retryInSeconds: number | null };

/** Sign and POST the event to the endpoint once (the signature's t is the real send time). */
async function postEvent(record: WebhookEventRecord, endpoint: WebhookEndpointRecord, at: Date) {
  const envelope = envelopeOf(record.event);
  const body = envelopeBody(envelope);
  const secrets = await liveSigningSecrets(endpoint, at);
  // Verifiers compare t with their own clock: it is the wall clock, never a test offset.
  return deliverOnce({ url: endpoint.url, body, headers: deliveryHeaders(envelope, body, secrets, new Date()), policy: webhookUrlPolicy() });
}

/**
 * The delivery worker's step for one queue message. Hot path: the lease (which returns the
 * event) and the endpoint are read in parallel, then one POST and one transaction; the event
 * is read separately only when the lease was refused, to say why.
 */
export async function deliverEvent(tenantId: string, eventId: string, opts: { at?: Date; schedule?: readonly number[] } = {}): Promise<AutomaticOutcome> {
  const at = opts.at ?? clockNow();
  const leaseId = randomUUID();
  const [record, endpoint] = await Promise.all([claimDueAttempt(tenantId, eventId, { leaseId, leaseUntil: new Date(at.getTime() + LEASE_MS), at }), getWebhookEndpoint(tenantId)]);
  if (!record) return whyNotClaimed(tenantId, eventId, at);
  const skip = !endpoint ? 'no_endpoint' : !endpointTakes(endpoint, record.event_type) ? 'event_type_not_enabled' : null;
  if (skip) {
    await markSkipped(tenantId, eventId, skip, at, leaseId);
    return { kind: 'skipped', reason: skip };
  }
  const count = record.attempt_count ?? 0;

  const result = await postEvent(record, endpoint!, at);
  const retryInSeconds = result.delivered ? null : nextAttemptDelay(opts.schedule ?? retrySchedule(), count + 1);
  const next: DeliveryStatus = result.delivered ? 'delivered' : retryInSeconds === null ? 'failed' : 'pending';
  const attempt = await recordAttempt(tenantId, record, {
    leaseId,
    result,
    at,
    trigger: 'automatic',
    status: next,
    nextAttemptAt: retryInSeconds === null ? null : new Date(at.getTime() + retryInSeconds * 1000),
    endpointId: endpoint!.id,
  });
  logger.info('webhook attempt', { event_id: eventId, event_type: record.event_type, attempt: attempt.attempt, status_code: result.status_code, error: result.error, delivery_status: next });
  return { kind: 'attempted', attempt, status: next, retryInSeconds };
}

async function whyNotClaimed(tenantId: string, eventId: string, at: Date): Promise<AutomaticOutcome> {
  const record = await getWebhookEvent(tenantId, eventId);
  if (!record) return { kind: 'missing' };
  const status = record.delivery_status ?? 'pending';
  if (status !== 'pending') return { kind: 'settled', status, deadLettered: Boolean(record.dead_lettered_at) };
  if (record.next_attempt_at && Date.parse(record.next_attempt_at) > at.getTime()) {
    return { kind: 'not_due', inSeconds: Math.ceil((Date.parse(record.next_attempt_at) - at.getTime()) / 1000) };
  }
  return { kind: 'busy' };
}

/**
 * A pending event nobody is working on: its next attempt is STALLED_AFTER_MS overdue and no
 * lease is live (its queue messages were lost or exhausted SQS's receives, e.g. through an
 * outage). Such an event may be redelivered by hand.
 */
export const STALLED_AFTER_MS = 15 * 60_000;
const isStalled = (record: WebhookEventRecord, at: Date) => {
  const due = Date.parse(record.next_attempt_at ?? record.created_at);
  const leased = record.lease_until !== undefined && Date.parse(record.lease_until) > at.getTime();
  return !leased && due < at.getTime() - STALLED_AFTER_MS;
};

/**
 * One more attempt, now, on request (recorded like the others). For an event whose automatic
 * schedule is over (delivered, failed, or skipped) or stalled (pending, nobody working on it,
 * its next attempt long overdue); a pending event still on its schedule → 409
 * delivery_pending. The endpoint must take the event's type. A success marks it delivered; a
 * failure leaves a delivered event delivered and makes any other failed.
 */
export async function redeliverEvent(tenantId: string, eventId: string, at = clockNow()): Promise<WebhookEventRecord> {
  const record = await getWebhookEvent(tenantId, eventId);
  if (!record) throw notFound('Event');
  const status = record.delivery_status ?? 'pending';
  if (status === 'pending' && !isStalled(record, at)) throw conflict('delivery_pending', 'The event is still being delivered on its retry schedule; redeliver it once it is delivered or failed');
  const endpoint = await getWebhookEndpoint(tenantId);
  if (!endpoint) throw conflict('webhook_endpoint_not_configured', 'No webhook endpoint is configured: PUT /v1/webhook-endpoint first');
  if (!endpointTakes(endpoint, record.event_type)) throw conflict('event_type_not_enabled', `The endpoint does not take ${record.event_type} events (enabled_events); add the type to redeliver it`);
  const leaseId = randomUUID();
  const claimed = await claimAttempt(tenantId, eventId, { expectedCount: record.attempt_count ?? 0, allowed: [status], leaseId, leaseUntil: new Date(at.getTime() + LEASE_MS), at });
  if (!claimed) throw conflict('delivery_in_progress', 'Another delivery attempt of this event is under way; try again in a few seconds');
  const result = await postEvent(record, endpoint, at);
  const next: DeliveryStatus = result.delivered ? 'delivered' : status === 'delivered' ? 'delivered' : 'failed';
  await recordAttempt(tenantId, record, { leaseId, result, at, trigger: 'manual', status: next, nextAttemptAt: null, endpointId: endpoint.id });
  return (await getWebhookEvent(tenantId, eventId))!;
}
