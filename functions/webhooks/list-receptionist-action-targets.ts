import * as z from 'zod';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getWebhookEndpoint } from '../../shared/repositories/webhook-endpoints.js';
import { deliveredCounts } from '../../shared/repositories/webhook-events.js';
import { RECEPTIONIST_TARGETS, receptionistActionTarget } from '../../shared/schemas/webhooks.js';

/**
 * GET /v1/receptionist-action-targets — a bare array (not a page): one target per native
 * receptionist outcome, bound to the tenant's endpoint, with `delivery_count` read from the
 * delivery ledger (events of that type delivered at least once to THIS endpoint; a new endpoint
 * starts at 0; not a promise the receiver did the work). No endpoint → [].
 */
export const handler = defineRoute(
  'listReceptionistActionTargets',
  bearer,
  { responses: { 200: z.array(receptionistActionTarget) } },
  async ({ principal }) => {
    const endpoint = await getWebhookEndpoint(principal.tenantId);
    if (!endpoint) return ok([]);
    const counts = await deliveredCounts(
      principal.tenantId,
      endpoint.id,
      RECEPTIONIST_TARGETS.map((t) => t.event_type),
    );
    return ok(
      RECEPTIONIST_TARGETS.map((t) => ({
        id: t.id,
        outcome_type: t.outcome_type,
        event_type: t.event_type,
        endpoint_id: endpoint.id,
        endpoint_url: endpoint.url,
        endpoint_status: endpoint.enabled_events === null || endpoint.enabled_events.includes(t.event_type) ? 'enabled' : 'event_type_not_enabled',
        delivery_count: counts.get(t.event_type) ?? 0,
        signing_secret_source: 'webhook_endpoint_create_or_rotate' as const,
        created_at: endpoint.created_at,
        updated_at: endpoint.updated_at,
      })),
    );
  },
);
