import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getWebhookEndpoint, presentWebhookEndpoint } from '../../shared/repositories/webhook-endpoints.js';
import { errorSchema } from '../../shared/schemas/common.js';
import { webhookEndpointResource } from '../../shared/schemas/webhooks.js';

/** GET /v1/webhook-endpoint — the endpoint and its live secrets' ids, creation and overlap expiry; never a secret. 404 when none. */
export const handler = defineRoute('getWebhookEndpoint', bearer, { responses: { 200: webhookEndpointResource, 404: errorSchema } }, async ({ principal }) => {
  const endpoint = await getWebhookEndpoint(principal.tenantId);
  if (!endpoint) throw notFound('Webhook endpoint');
  return ok(presentWebhookEndpoint(endpoint, now()));
});
