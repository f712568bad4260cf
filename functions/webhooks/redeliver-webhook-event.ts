import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { presentWebhookEvent, webhookEventAttempts } from '../../shared/repositories/webhook-events.js';
import { webhookEventDetail, webhookEventPath } from '../../shared/schemas/webhooks.js';
import { redeliverEvent } from '../../shared/webhooks/deliver-event.js';

/**
 * POST /v1/webhook-events/{event_id}/redeliver — one more attempt, now, recorded in the ledger
 * like the others (`trigger: "manual"`). For an event delivered, failed or skipped; a pending
 * one is still on its retry schedule (409 delivery_pending).
 */
export const handler = defineRoute(
  'redeliverWebhookEvent',
  bearer,
  { path: webhookEventPath, responses: { 200: webhookEventDetail } },
  async ({ principal, path }) => {
    const record = await redeliverEvent(principal.tenantId, path.event_id);
    const attempts = await webhookEventAttempts(principal.tenantId, path.event_id);
    return ok({ ...presentWebhookEvent(record as unknown as Record<string, unknown>), attempts });
  },
);
