/**
 * The transactional outbox (the design): an event is committed in the same transaction as
 * the state change it reports, or not at all. Each event is two items:
 *
 * - the tenant's event, `TENANT#<t>#EVENTS` / `EVENT#<evt_id>` — the durable log a webhook
 *   delivery (and a future events API) reads, newest last by ULID;
 * - a pending marker, `PLATFORM#OUTBOX#<shard>` / `<evt_id>`, which the relay reads to move
 *   the event to the webhook-delivery queue and then deletes. Markers spread over a few
 *   shards so a burst of calls does not make one hot partition.
 *
 * Only item builders here (callers put them in their own transaction); the reads the relay
 * and tests need are the outbox store's (shared/repositories/outbox-events.ts). Delivery,
 * signing and retries belong to the webhook worker.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { tableName } from '../db/client.js';
import { outboxKeys, webhookKeys } from '../db/keys.js';
import { newId } from '../ids.js';
import { CARRIED_EVENT_MAX_BYTES } from '../schemas/queue-bodies.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The event types the call path emits (see docs/decisions/dispatch-and-carrier.md); each area adds its own below. */
export const EVENT_TYPES = [
  'call.queued',
  'call.scheduled',
  'call.blocked',
  'call.dialing',
  'call.answered',
  'call.completed',
  'call.analysis_ready',
  'contact.opted_out',
  // Text messages (see docs/decisions/messaging.md).
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.received',
  // Receptionist outcomes (the fixed catalog in shared/schemas/webhooks.ts).
  'receptionist.message_taken',
  'receptionist.ticket_opened',
  'receptionist.callback_scheduled',
  'receptionist.transfer_requested',
  // Campaign status changes (see docs/decisions/campaigns.md).
  'campaign.scrubbing',
  'campaign.ready',
  'campaign.running',
  'campaign.paused',
  'campaign.completed',
  'campaign.cancelled',
  // Account deletion (see docs/decisions/auth-and-sessions.md).
  'account.deletion_requested',
  'account.deletion_cancelled',
  // What calls produce (see docs/decisions/call-analysis-and-outcomes.md).
  'survey_response.created',
  'fit_review.created',
  'handoff.created',
  'handoff.confirmed',
  'handoff.booked',
  // Invoices (see docs/decisions/billing.md): built at period close, then moved by the payment provider's webhooks.
  'invoice.created',
  'invoice.finalized',
  'invoice.paid',
  'invoice.voided',
  'invoice.marked_uncollectible',
  // Receptionist purchases (see docs/decisions/billing.md).
  'subscription.receptionist_purchased',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The envelope as stored and as delivered (compact, keys sorted at delivery). */
export interface OutboxEvent {
  id: string;
  type: EventType;
  tenant_id: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** The two items that commit `type` with `data` at `at`; put them in the state change's transaction. */
export function outboxItems(tenantId: string, type: EventType, data: Record<string, unknown>, at: Date): { event: OutboxEvent; items: TransactItem[] } {
  const event: OutboxEvent = { id: newId('evt'), type, tenant_id: tenantId, created_at: at.toISOString(), data };
  return {
    event,
    items: [
      // event_type / created_at / delivery_status at the top level: the webhook-events list filters on them.
      {
        Put: {
          TableName: tableName(),
          // In the webhook due index from the start: a first attempt whose message is lost is found too.
          Item: {
            ...outboxKeys.event(tenantId, event.id),
            ...webhookKeys.dueIndex(event.created_at, tenantId, event.id),
            type: 'event',
            event,
            event_type: type,
            created_at: event.created_at,
            delivery_status: 'pending',
            attempt_count: 0,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: tableName(),
          // A small event rides in its marker too, so the relay can hand it to the worker with the
          // message and the worker lease it without reading it back (an event never changes once committed).
          Item: {
            ...outboxKeys.pending(event.id),
            type: 'outbox_pending',
            tenant_id: tenantId,
            event_id: event.id,
            created_at: event.created_at,
            ...(Buffer.byteLength(JSON.stringify(event)) <= CARRIED_EVENT_MAX_BYTES ? { event } : {}),
          },
        },
      },
    ],
  };
}
