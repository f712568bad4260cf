import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getWebhookEvent, presentWebhookEvent, webhookEventAttempts } from '../../shared/repositories/webhook-events.js';
import { webhookEventDetail, webhookEventPath } from '../../shared/schemas/webhooks.js';

/** GET /v1/webhook-events/{event_id} — the envelope as delivered, its delivery state and every attempt of the ledger. */
export const handler = defineRoute(
  'getWebhookEvent',
  bearer,
  { path: webhookEventPath, responses: { 200: webhookEventDetail } },
  async ({ principal, path }) => {
    const record = await getWebhookEvent(principal.tenantId, path.event_id);
    if (!record) throw notFound('Event');
    const attempts = await webhookEventAttempts(principal.tenantId, path.event_id);
    return ok({ ...presentWebhookEvent(record as unknown as Record<string, unknown>), attempts });
  },
);
