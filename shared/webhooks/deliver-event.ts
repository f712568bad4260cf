/**
 * Delivery attempts of committed events, automatic (the delivery worker, a batch at a time)
 * or manual (POST /v1/webhook-events/{id}/redeliver): lease, sign at send time, POST, record.
 *
 * At least once: the event's state lives in the ledger (shared/repositories/webhook-events.ts),
 * the queue message only names it, so a lost, duplicated or late message can do no more than
 * trigger a look at the ledger. An attempt is POSTed only under the lease for its number, so
 * two workers holding the same message never POST the same attempt, and an event already
 * delivered is never POSTed again by the worker. A POST whose ledger write is lost (a crash
 * between the two) is sent again once the lease lapses: receivers dedupe on the event id.
 *
 * The worker's batch costs a handful of DynamoDB calls for up to LEASE_BATCH events of a tenant:
 * one BatchGetItem beside the endpoint's read (none for the events the relay's message carried),
 * one transaction that leases them all, then the
 * POSTs, WAVE in flight, and one ledger transaction per EVENTS_PER_LEDGER_TRANSACTION events,
 * each running beside the next POSTs (a batch of at most SMALL_WAVE events: a conditional
 * update per event that returns it, and no read).
 */
import { randomUUID } from 'node:crypto';
import { now as clockNow } from '../clock.js';
import { conflict, notFound } from '../errors.js';
import type { OutboxEvent } from '../events/outbox.js';
import { logger } from '../observability.js';
import { envelopeBody, envelopeOf } from '../policy/webhooks/envelope.js';
import { endpointTakes, getWebhookEndpoint, liveSigningSecrets, type WebhookEndpointRecord } from '../repositories/webhook-endpoints.js';
import {
  type AttemptRecord,
  claimAttempt,
  claimDueAttempt,
  claimDueAttempts,
  type DeliveryStatus,
  EVENTS_PER_LEDGER_TRANSACTION,
  getWebhookEvent,
  getWebhookEvents,
  markSkipped,
  recordAttempt,
  recordAttempts,
  releaseLeases,
  type WebhookEventRecord,
} from '../repositories/webhook-events.js';
import { deliveryHeaders } from '../schemas/webhook-signature.js';
import { DELIVERY_TIMEOUT_MS, type DeliveryResult, deliverOnce, SOCKETS_PER_ADDRESS } from './deliver.js';
import { nextAttemptDelay, retrySchedule } from './retry-schedule.js';
import { settleAll, startedAside } from './settle-all.js';
import { bookkeeping, type Slots, takeSlot } from './slots.js';
import { webhookUrlPolicy } from './url-policy.js';

/** Longer than one attempt can take, so a lease outlives its POST; a crashed holder's lease lapses. */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;

/** POSTs in flight to one endpoint from one batch (the next starts as one ends); the breaker judges each. */
export const WAVE = 10;
/**
 * Events of a tenant leased by one transaction (DynamoDB's 100 items), then POSTed WAVE at a
 * time: on DynamoDB Local a transaction costs ~5 ms plus ~0.3 ms an item, serialised, so one
 * lease for a batch instead of one a wave is most of a burst's database time saved.
 */
const LEASE_BATCH = 100;
/**
 * A POST is started only while this much of its lease is left: the POST (DELIVERY_TIMEOUT_MS
 * at most) and its ledger write end before the lease lapses; the rest is given back and sent on.
 */
const LEASE_LEFT_TO_POST_MS = DELIVERY_TIMEOUT_MS + 5_000;
/**
 * A POST slower than this, or a timeout or a connection that failed, trips the endpoint's
 * breaker for the rest of the batch: no POST starts after it, the remaining events go back to
 * the queue without an attempt, so a slow or dead endpoint holds a batch (and another tenant's
 * events in it) for one POST deadline at most (the WAVE in flight end within theirs).
 */
const SLOW_WAVE_MS = 2_000;
/**
 * A tenant's batch this small is leased by one conditional update per event that returns the
 * event (one round trip, beside the endpoint's read: the latency a steady trickle sees, a few
 * events a relay run); a bigger one by one read for the batch and a transaction per wave (two
 * calls for up to WAVE events: the cost a burst sees).
 */
const SMALL_WAVE = 4;

export type AutomaticOutcome =
  | { kind: 'missing' }
  | { kind: 'settled'; status: DeliveryStatus; deadLettered: boolean }
  | { kind: 'not_due'; inSeconds: number }
  | { kind: 'busy' }
  /** Not tried in this batch (its endpoint's breaker tripped): send it on again. */
  | { kind: 'deferred' }
  | { kind: 'skipped'; reason: 'no_endpoint' | 'event_type_not_enabled' }
  | { kind: 'attempted'; attempt: AttemptRecord; status: DeliveryStatus; retryInSeconds: number | null };

/** Sign and POST the event to the endpoint once (the signature's t is the real send time). */
async function postEvent(record: WebhookEventRecord, endpoint: WebhookEndpointRecord, secrets: readonly string[]) {
  const envelope = envelopeOf(record.event);
  const body = envelopeBody(envelope);
  // Verifiers compare t with their own clock: it is the wall clock, never a test offset.
  return deliverOnce({ url: endpoint.url, body, headers: deliveryHeaders(envelope, body, [...secrets], new Date()), policy: webhookUrlPolicy() });
}

/** Why an event read from the ledger gets no automatic attempt now, or undefined when one is due. */
function notDue(record: WebhookEventRecord, at: Date): AutomaticOutcome | undefined {
  const status = record.delivery_status ?? 'pending';
  if (status !== 'pending') return { kind: 'settled', status, deadLettered: Boolean(record.dead_lettered_at) };
  if (record.next_attempt_at && Date.parse(record.next_attempt_at) > at.getTime()) {
    return { kind: 'not_due', inSeconds: Math.ceil((Date.parse(record.next_attempt_at) - at.getTime()) / 1000) };
  }
  if (record.lease_until && Date.parse(record.lease_until) >= at.getTime()) return { kind: 'busy' };
  return undefined;
}

/** The delivery worker's step for one event (a batch of one). */
export async function deliverEvent(tenantId: string, eventId: string, opts: { at?: Date; schedule?: readonly number[] } = {}): Promise<AutomaticOutcome> {
  return (await deliverEvents(tenantId, [eventId], opts)).get(eventId)!;
}

/**
 * The delivery worker's step for a tenant's events of one batch. The endpoint is read beside the
 * batch's events (those the relay's message did not carry) and their lease; up to LEASE_BATCH of
 * them are leased in one transaction and POSTed WAVE at a time, and their ledger transactions run
 * while the next ones are POSTed (every one is awaited before the answer). Answers each event's outcome.
 */
export async function deliverEvents(
  tenantId: string,
  eventIds: readonly string[],
  opts: { at?: Date; schedule?: readonly number[]; carried?: ReadonlyMap<string, OutboxEvent> } = {},
): Promise<Map<string, AutomaticOutcome>> {
  const ids = [...new Set(eventIds)];
  const outcomes = new Map<string, AutomaticOutcome>();
  // The endpoint is read beside the events and the lease: the lease's conditions do not depend on
  // it, only what is done with a leased event does. A small batch is leased by updates that return
  // the events, so nothing is read first; a big one's carried events are not read either.
  const endpointRead = startedAside(getWebhookEndpoint(tenantId));
  let secrets: Promise<string[]> | undefined;
  const writes: Promise<void>[] = [];
  try {
    const records = ids.length > SMALL_WAVE ? await batchRecords(tenantId, ids, opts.carried) : undefined;
    for (let i = 0; i < ids.length; i += LEASE_BATCH) {
      const leased = await leaseBatch(tenantId, ids.slice(i, i + LEASE_BATCH), records, endpointRead, opts.at ?? clockNow(), outcomes);
      if (!leased) continue;
      const endpoint = (await endpointRead)!;
      const openSecrets = (at: Date) => (secrets ??= liveSigningSecrets(endpoint, at));
      const tripped = await postLeased(tenantId, leased, endpoint, openSecrets, { at: opts.at, schedule: opts.schedule ?? retrySchedule() }, outcomes, writes);
      if (tripped) {
        for (const id of ids.slice(i + LEASE_BATCH)) outcomes.set(id, { kind: 'deferred' });
        break;
      }
    }
  } catch (err) {
    await Promise.allSettled([...writes, endpointRead]);
    throw err;
  }
  // Every ledger write is over before the batch answers (a failed one fails the batch).
  await settleAll(writes);
  return outcomes;
}

/**
 * The batch's events as the lease will judge them: an event the relay carried (read from its
 * committed marker) stands as a first attempt — pending, attempt 0 — without a read, the rest are
 * read. Only the lease's conditions decide: if the event moved on (attempted, settled, leased, or
 * gone), the lease on attempt 0 is refused and the refusal is read (whyNotClaimed), as for a stale read.
 */
async function batchRecords(
  tenantId: string,
  ids: readonly string[],
  carried: ReadonlyMap<string, OutboxEvent> = new Map(),
): Promise<Map<string, WebhookEventRecord>> {
  const records = new Map<string, WebhookEventRecord>();
  for (const id of ids) {
    const event = carried.get(id);
    if (event?.id === id && event.tenant_id === tenantId)
      records.set(id, { event, event_type: event.type, created_at: event.created_at, delivery_status: 'pending', attempt_count: 0 });
  }
  const unread = ids.filter((id) => !records.has(id));
  if (unread.length > 0) for (const [id, record] of await getWebhookEvents(tenantId, unread)) records.set(id, record);
  return records;
}

interface LeasedBatch {
  leaseId: string;
  at: Date;
  /** performance.now() when the lease was asked for: its LEASE_MS runs from no later than this. */
  leasedAt: number;
  /** Leased and to be POSTed (the endpoint takes them), in batch order. */
  mine: WebhookEventRecord[];
}

/** Lease the due events of `ids` (each outcome that is not an attempt is set); undefined when there is nothing to POST. */
async function leaseBatch(
  tenantId: string,
  ids: readonly string[],
  records: Map<string, WebhookEventRecord> | undefined,
  endpointRead: Promise<WebhookEndpointRecord | undefined>,
  at: Date,
  outcomes: Map<string, AutomaticOutcome>,
): Promise<LeasedBatch | undefined> {
  const leaseId = randomUUID();
  const claim = { leaseId, leaseUntil: new Date(at.getTime() + LEASE_MS), at };
  const leasedAt = performance.now();
  const due: WebhookEventRecord[] = [];
  // Refused leases, read once together below to learn why.
  const refused: string[] = [];
  let leased: Set<string>;
  if (!records) {
    const claimed = await Promise.all(ids.map((id) => claimDueAttempt(tenantId, id, claim)));
    leased = new Set();
    for (const [k, id] of ids.entries()) {
      const record = claimed[k];
      if (record) {
        due.push(record);
        leased.add(id);
      } else refused.push(id);
    }
  } else {
    // Read with the batch: the lease's conditions judge it afresh.
    for (const id of ids) {
      const record = records.get(id);
      const why = record ? notDue(record, at) : { kind: 'missing' as const };
      if (why) outcomes.set(id, why);
      else due.push(record!);
    }
    leased = due.length > 0 ? await claimDueAttempts(tenantId, due, claim) : new Set();
  }
  let endpoint: WebhookEndpointRecord | undefined;
  try {
    endpoint = await endpointRead;
  } catch (err) {
    // Leased beside a read that failed: the leases go back, so the message's retry finds the events free.
    if (leased.size > 0) await releaseLeases(tenantId, [...leased], leaseId).catch(() => {});
    throw err;
  }
  const mine: WebhookEventRecord[] = [];
  const skips: Promise<void>[] = [];
  for (const record of due) {
    const id = record.event.id;
    if (!leased.has(id)) refused.push(id);
    else {
      const skip = !endpoint ? 'no_endpoint' : !endpointTakes(endpoint, record.event_type) ? 'event_type_not_enabled' : null;
      if (!skip) mine.push(record);
      else {
        skips.push(markSkipped(tenantId, id, skip, at, leaseId));
        outcomes.set(id, { kind: 'skipped', reason: skip });
      }
    }
  }
  await settleAll([...skips, ...(refused.length > 0 ? [whyNotClaimed(tenantId, refused, at, outcomes)] : [])]);
  return mine.length > 0 ? { leaseId, at, leasedAt, mine } : undefined;
}

/**
 * POST a leased batch, WAVE at a time: a POST starts as soon as one of the WAVE in flight ends
 * (a window, not waves that each wait for their slowest POST). The attempts are recorded a ledger
 * transaction's worth at a time, each write started (pushed on `writes`) and not awaited. A POST
 * that trips the breaker, or a lease too short for another POST, leaves the rest untried: their
 * leases are given back and they are deferred (sent on). Answers whether the breaker tripped.
 */
async function postLeased(
  tenantId: string,
  batch: LeasedBatch,
  endpoint: WebhookEndpointRecord,
  openSecrets: (at: Date) => Promise<string[]>,
  opts: { at: Date | undefined; schedule: readonly number[] },
  outcomes: Map<string, AutomaticOutcome>,
  writes: Promise<void>[],
): Promise<boolean> {
  const { leaseId, mine } = batch;
  const secrets = await openSecrets(batch.at);
  let planned: Planned[] = [];
  const record = () => {
    if (planned.length > 0) writes.push(startedAside(recordPlanned(tenantId, planned, outcomes)));
    planned = [];
  };
  let tripped = false;
  const inFlight = new Set<Promise<void>>();
  let next = 0;
  while (next < mine.length && !tripped) {
    if (inFlight.size >= WAVE) {
      await Promise.race(inFlight);
      continue;
    }
    const free = await endpointSlot(endpoint.url);
    // Judged after the wait for a slot: a trip or a lease grown too short meanwhile starts nothing.
    if (tripped || performance.now() - batch.leasedAt > LEASE_MS - LEASE_LEFT_TO_POST_MS) {
      free();
      break;
    }
    const event = mine[next++]!;
    // The ledger dates each attempt (and its next one) from its own POST, not from the batch's lease.
    const at = opts.at ?? clockNow();
    const post: Promise<void> = postEvent(event, endpoint, secrets)
      .finally(free)
      .then((result) => {
        planned.push(plan(event, result, { leaseId, at, endpointId: endpoint.id, schedule: opts.schedule }));
        if (planned.length >= EVENTS_PER_LEDGER_TRANSACTION) record();
        // Judged on the POSTs alone: a slow database is not the endpoint's fault.
        if (result.error === 'timeout' || result.error === 'connection_error' || result.duration_ms > SLOW_WAVE_MS) tripped = true;
      })
      .finally(() => inFlight.delete(post));
    inFlight.add(post);
  }
  // The POSTs already under way end (each within its deadline); none starts after a trip.
  await Promise.all(inFlight);
  record();
  const untried = mine.slice(next);
  if (untried.length > 0) {
    writes.push(
      startedAside(
        releaseLeases(
          tenantId,
          untried.map((r) => r.event.id),
          leaseId,
        ),
      ),
    );
    for (const r of untried) outcomes.set(r.event.id, { kind: 'deferred' });
  }
  return tripped;
}

/**
 * POSTs in flight from this process to one endpoint URL, every batch's together: no more than its
 * connection pool keeps open, so a POST never waits for a socket once started — its duration, which
 * the breaker judges, is the endpoint's, not this process's queue (batches in flight × WAVE would
 * otherwise queue in the pool and trip the breaker on a fast endpoint).
 */
const endpointSlots: Slots = new Map();
const endpointSlot = (url: string) => takeSlot(endpointSlots, url, SOCKETS_PER_ADDRESS);

type Planned = ReturnType<typeof plan>;

/** An attempt's outcome as the ledger will record it: delivered, or failed with its next attempt (or none left). */
function plan(record: WebhookEventRecord, result: DeliveryResult, p: { leaseId: string; at: Date; endpointId: string; schedule: readonly number[] }) {
  const retryInSeconds = result.delivered ? null : nextAttemptDelay(p.schedule, (record.attempt_count ?? 0) + 1);
  const status: DeliveryStatus = result.delivered ? 'delivered' : retryInSeconds === null ? 'failed' : 'pending';
  const nextAttemptAt = retryInSeconds === null ? null : new Date(p.at.getTime() + retryInSeconds * 1000);
  return {
    record,
    retryInSeconds,
    outcome: { leaseId: p.leaseId, result, at: p.at, trigger: 'automatic' as const, status, nextAttemptAt, endpointId: p.endpointId },
  };
}

/** Record planned attempts (one ledger transaction per EVENTS_PER_LEDGER_TRANSACTION) and set their outcomes. */
async function recordPlanned(tenantId: string, planned: readonly Planned[], outcomes: Map<string, AutomaticOutcome>): Promise<void> {
  const recorded = await bookkeeping(() => recordAttempts(tenantId, planned));
  for (const { record, retryInSeconds, outcome } of planned) {
    const attempt = recorded.get(record.event.id);
    if (!attempt) {
      // Its lease lapsed under a POST slower than LEASE_MS and another worker took it: that worker's attempt is the one recorded.
      logger.warn('webhook attempt not recorded: the lease was lost', { event_id: record.event.id });
      outcomes.set(record.event.id, { kind: 'busy' });
      continue;
    }
    logger.info('webhook attempt', {
      event_id: record.event.id,
      event_type: record.event_type,
      attempt: attempt.attempt,
      status_code: outcome.result.status_code,
      error: outcome.result.error,
      delivery_status: outcome.status,
    });
    outcomes.set(record.event.id, { kind: 'attempted', attempt, status: outcome.status, retryInSeconds });
  }
}

/**
 * Why the leases of `eventIds` were refused (each outcome set): the events read back in one BatchGetItem,
 * not one GetItem each. A refused event that is pending, due and unleased by now was leased by another
 * batch meanwhile: busy.
 */
async function whyNotClaimed(tenantId: string, eventIds: readonly string[], at: Date, outcomes: Map<string, AutomaticOutcome>): Promise<void> {
  const records = await getWebhookEvents(tenantId, eventIds);
  for (const id of eventIds) {
    const record = records.get(id);
    outcomes.set(id, record ? (notDue(record, at) ?? { kind: 'busy' }) : { kind: 'missing' });
  }
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
  if (status === 'pending' && !isStalled(record, at))
    throw conflict('delivery_pending', 'The event is still being delivered on its retry schedule; redeliver it once it is delivered or failed');
  const endpoint = await getWebhookEndpoint(tenantId);
  if (!endpoint) throw conflict('webhook_endpoint_not_configured', 'No webhook endpoint is configured: PUT /v1/webhook-endpoint first');
  if (!endpointTakes(endpoint, record.event_type))
    throw conflict('event_type_not_enabled', `The endpoint does not take ${record.event_type} events (enabled_events); add the type to redeliver it`);
  const leaseId = randomUUID();
  const claimed = await claimAttempt(tenantId, eventId, {
    expectedCount: record.attempt_count ?? 0,
    allowed: [status],
    leaseId,
    leaseUntil: new Date(at.getTime() + LEASE_MS),
    at,
  });
  if (!claimed) throw conflict('delivery_in_progress', 'Another delivery attempt of this event is under way; try again in a few seconds');
  const result = await postEvent(record, endpoint, await liveSigningSecrets(endpoint, at));
  const next: DeliveryStatus = result.delivered ? 'delivered' : status === 'delivered' ? 'delivered' : 'failed';
  await recordAttempt(tenantId, record, { leaseId, result, at, trigger: 'manual', status: next, nextAttemptAt: null, endpointId: endpoint.id });
  return (await getWebhookEvent(tenantId, eventId))!;
}
