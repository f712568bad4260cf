/** Queue message bodies. Producers and workers share these so they cannot drift. */
import * as z from 'zod';

const callDispatchMessage = z.object({
  type: z.literal('call.dispatch'),
  tenant_id: z.string().min(1),
  attempt_id: z.string().min(1),
  /** The call to dispatch (`cal_…`): the dispatcher reads it, and does nothing unless it is scheduled and due. */
  call_id: z.string().min(1),
  /**
   * Sent alongside the transaction that creates the call (POST /v1/calls), not after it: the
   * message can outrun the commit, so the dispatcher waits a moment for a call it cannot find yet.
   */
  alongside_commit: z.literal(true).optional(),
});
export type CallDispatchMessage = z.infer<typeof callDispatchMessage>;

/**
 * A campaign's launch step, now (see docs/decisions/campaigns.md): sent after the terminal transition of a running
 * campaign's attempt freed a concurrency slot, so the slot is refilled without waiting for the
 * scheduler tick (shared/campaigns/nudge.ts). Carried by the call-dispatch queue.
 */
const campaignLaunchMessage = z.object({
  type: z.literal('campaign.launch'),
  tenant_id: z.string().min(1),
  campaign_id: z.string().min(1),
});
export type CampaignLaunchMessage = z.infer<typeof campaignLaunchMessage>;

/** What the call-dispatch queue carries. */
export const callDispatchQueueMessage = z.discriminatedUnion('type', [callDispatchMessage, campaignLaunchMessage]);

/** The most events one webhook-delivery message names (the relay packs a tenant's events). */
export const EVENTS_PER_DELIVERY_MESSAGE = 10;

/**
 * An event small enough to travel with its relay message (and in its outbox marker, which the relay
 * reads): ten of them and their ids stay inside CARRIED_BYTES_PER_MESSAGE, so a SendMessageBatch of
 * ten messages stays inside SQS's 256 KiB. A bigger event is named only, and read by the worker.
 */
export const CARRIED_EVENT_MAX_BYTES = 2_048;
/** The carried events' bytes one webhook-delivery message holds at most (ten a batch: under SQS's 262,144). */
export const CARRIED_BYTES_PER_MESSAGE = 24_000;

/**
 * Committed events as the relay read them from their markers (immutable once committed): the
 * worker leases these as first attempts without reading them. A subset of the message's ids.
 */
const carriedEvents = z
  .array(
    z.object({
      id: z.string().min(1),
      type: z.string().min(1),
      tenant_id: z.string().min(1),
      created_at: z.string().min(1),
      data: z.record(z.string(), z.unknown()),
    }),
  )
  .max(EVENTS_PER_DELIVERY_MESSAGE)
  .optional();

/** One event (retries, the dead-letter queue, messages sent before packing), or several of one tenant. */
export const webhookDeliveryMessage = z.union([
  z.object({ type: z.literal('webhook.deliver'), tenant_id: z.string().min(1), event_id: z.string().min(1), events: carriedEvents }),
  z.object({
    type: z.literal('webhook.deliver'),
    tenant_id: z.string().min(1),
    event_ids: z.array(z.string().min(1)).min(1).max(EVENTS_PER_DELIVERY_MESSAGE),
    events: carriedEvents,
  }),
]);

/** One step of a sandbox carrier call or message, due at `due_at` (epoch ms; the record's plan is the authority). */
export const sandboxTimelineMessage = z.object({
  type: z.literal('sandbox.timeline'),
  kind: z.enum(['call', 'message']),
  sid: z.string().regex(/^(CA|SM)[0-9a-f]{32}$/),
  step: z.int().min(0).max(100),
  due_at: z.int().min(0),
});
export type SandboxTimelineMessage = z.infer<typeof sandboxTimelineMessage>;

/** A call reached a terminal state: score it (idempotent: a call already analysed is left as it is). */
export const callAnalysisMessage = z.object({
  type: z.literal('call.analyze'),
  tenant_id: z.string().min(1),
  call_id: z.string().min(1),
});
export type CallAnalysisMessage = z.infer<typeof callAnalysisMessage>;
