import { EVENT_TYPES } from '../../shared/events/outbox.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { defineListRoute } from '../../shared/http/list-route.js';
import { ok } from '../../shared/http/responses.js';
import { listWebhookEvents } from '../../shared/repositories/webhook-events.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { DELIVERY_STATUSES, webhookEventResource } from '../../shared/schemas/webhooks.js';

/** GET /v1/webhook-events — the tenant's committed events with their delivery state, newest first. */
export const handler = defineListRoute(
  'listWebhookEvents',
  bearer,
  {
    query: pageQuery,
    filters: {
      type: { kind: 'enum', values: EVENT_TYPES, attribute: 'event_type' },
      delivery_status: { kind: 'enum', values: DELIVERY_STATUSES },
      created_at: { kind: 'datetime' },
    },
    responses: { 200: cursorPage(webhookEventResource) },
  },
  async ({ principal, query, filters }) => ok(await listWebhookEvents(principal.tenantId, { ...query, filters })),
);
