/**
 * Webhook endpoint, event and test-send shapes (the contract; the endpoint's management is
 * ours: docs/decisions/webhooks.md). Secrets appear in exactly two responses — creating the endpoint and
 * rotating its secret — and nowhere else.
 */
import * as z from 'zod';
import { EVENT_TYPES, type EventType } from '../events/outbox.js';
import { timestamp } from './common.js';
import { multiLineText, singleLineText } from './text.js';

const WEBHOOK_URL_MAX = 2048;
const MAX_OVERLAP_SECONDS = 7 * 86_400;
export const DEFAULT_OVERLAP_SECONDS = 86_400;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;
/** The sample event POST /v1/webhook-endpoint/test sends. */
export const TEST_EVENT_TYPE = 'webhook.test';

export const webhookEndpointPutRequest = z.strictObject({
  url: singleLineText({ min: 1, max: WEBHOOK_URL_MAX, trim: true }),
  description: multiLineText({ max: 500 }).nullable().optional(),
  /** Absent or null: every event type. */
  enabled_events: z
    .array(z.enum(EVENT_TYPES))
    .min(1)
    .max(EVENT_TYPES.length)
    .refine((a) => new Set(a).size === a.length, { message: 'Each event type may be listed once', params: { type: 'duplicate_event_type' } })
    .nullable()
    .optional(),
});

/** The body is optional: no body = the default overlap. */
export const webhookRotateRequest = z
  .strictObject({
    overlap_seconds: z.int().min(0).max(MAX_OVERLAP_SECONDS).optional(),
  })
  .optional();

const secretSummary = z.strictObject({
  id: z.string(),
  created_at: timestamp,
  /** null while it is the current secret; set when a rotation began its overlap. */
  expires_at: timestamp.nullable(),
});

export const webhookEndpointResource = z
  .strictObject({
    id: z.string(),
    url: z.string(),
    description: z.string().nullable(),
    enabled_events: z.array(z.string()).nullable(),
    status: z.literal('enabled'),
    secrets: z.array(secretSummary),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });

export const webhookEndpointWithSecret = webhookEndpointResource
  .extend({ signing_secret: z.string().describe('Shown once: store it now') })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const webhookTestResult = z
  .strictObject({ delivered: z.boolean(), status_code: z.int().nullable(), event_type: z.string(), detail: z.string() })
  .meta({ id: 'WebhookTestResult' });

const webhookAttempt = z.strictObject({
  attempt: z.int(),
  at: timestamp,
  trigger: z.enum(['automatic', 'manual']),
  status_code: z.int().nullable(),
  duration_ms: z.int(),
  error: z.string().nullable(),
  detail: z.string(),
});

export const webhookEventResource = z
  .strictObject({
    id: z.string(),
    type: z.string(),
    created_at: timestamp,
    api_version: z.string(),
    data: z.record(z.string(), z.unknown()),
    delivery_status: z.enum(DELIVERY_STATUSES),
    skip_reason: z.string().nullable(),
    attempt_count: z.int(),
    next_attempt_at: timestamp.nullable(),
    last_attempt_at: timestamp.nullable(),
    delivered_at: timestamp.nullable(),
  })
  .meta({ id: 'WebhookEvent' });

export const webhookEventDetail = webhookEventResource.extend({ attempts: z.array(webhookAttempt) }).meta({ id: 'WebhookEventDetail' });

// Malformed ids are a 404 like unknown ones (the repository checks them), as on every by-id route.
export const webhookEventPath = z.object({ event_id: z.string().min(1).max(64) });

export const receptionistActionTarget = z
  .strictObject({
    id: z.string(),
    outcome_type: z.string(),
    event_type: z.string(),
    endpoint_id: z.string(),
    endpoint_url: z.string(),
    endpoint_status: z.string(),
    delivery_count: z.int(),
    signing_secret_source: z.literal('webhook_endpoint_create_or_rotate'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'ReceptionistActionTargetSummary' });

/**
 * The fixed catalog of native receptionist outcomes (the contract): the tool an agent
 * used during a call and the event type its use is delivered as. Tenants bind them to their
 * one webhook endpoint; they cannot define commands, schemas or secrets of their own.
 */
export interface ReceptionistTarget {
  id: string;
  outcome_type: string;
  event_type: EventType;
}

export const RECEPTIONIST_TARGETS: readonly ReceptionistTarget[] = [
  { id: 'rat_take_message', outcome_type: 'take_message', event_type: 'receptionist.message_taken' },
  { id: 'rat_open_ticket', outcome_type: 'open_ticket', event_type: 'receptionist.ticket_opened' },
  { id: 'rat_schedule_callback', outcome_type: 'schedule_callback', event_type: 'receptionist.callback_scheduled' },
  { id: 'rat_transfer_to_human', outcome_type: 'transfer_to_human', event_type: 'receptionist.transfer_requested' },
];

/** The event a conversation action of this tool commits, if it is a receptionist outcome. */
export const receptionistEventFor = (tool: string): EventType | undefined => RECEPTIONIST_TARGETS.find((t) => t.outcome_type === tool)?.event_type;
