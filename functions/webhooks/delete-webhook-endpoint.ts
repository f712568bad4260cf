import * as z from 'zod';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { deleteWebhookEndpoint, getWebhookEndpoint } from '../../shared/repositories/webhook-endpoints.js';
import { errorSchema } from '../../shared/schemas/common.js';

/**
 * DELETE /v1/webhook-endpoint (admin) — removes the endpoint and its secrets. Events committed
 * from then on are recorded as `skipped` (`no_endpoint`); the event log stays readable.
 */
export const handler = defineRoute(
  'deleteWebhookEndpoint',
  bearer,
  { responses: { 200: z.strictObject({ id: z.string(), deleted: z.literal(true) }), 404: errorSchema } },
  async ({ principal }) => {
    const endpoint = await getWebhookEndpoint(principal.tenantId);
    if (!endpoint || !(await deleteWebhookEndpoint(principal.tenantId))) throw notFound('Webhook endpoint');
    return ok({ id: endpoint.id, deleted: true as const });
  },
);
