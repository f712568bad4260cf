import { now } from '../../shared/clock.js';
import { ValidationError } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { created, ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { presentWebhookEndpoint } from '../../shared/repositories/webhook-endpoints.js';
import { webhookEndpointPutRequest, webhookEndpointResource, webhookEndpointWithSecret } from '../../shared/schemas/webhooks.js';
import { saveWebhookEndpoint } from '../../shared/webhooks/endpoint.js';
import { checkWebhookUrl, webhookUrlPolicy } from '../../shared/webhooks/url-policy.js';

/**
 * PUT /v1/webhook-endpoint (admin) — creates the tenant's single endpoint (201, with its
 * `signing_secret`, shown this once) or replaces its settings (200; the secrets stay, so
 * receivers keep verifying). The URL is checked now — https, and every address it resolves
 * to public — and again before every delivery.
 */
export const handler = defineRoute(
  'putWebhookEndpoint',
  bearer,
  { body: webhookEndpointPutRequest, responses: { 200: webhookEndpointResource, 201: webhookEndpointWithSecret } },
  async ({ principal, body }) => {
    const check = await checkWebhookUrl(body.url, webhookUrlPolicy());
    if (!check.ok) throw new ValidationError([{ loc: ['body', 'url'], msg: check.reason, type: 'url_not_allowed', input: body.url }]);
    const at = now();
    const { endpoint, signingSecret } = await saveWebhookEndpoint(
      principal.tenantId,
      { url: body.url, description: body.description ?? null, enabled_events: body.enabled_events ?? null },
      at,
    );
    const resource = presentWebhookEndpoint(endpoint, at);
    return signingSecret ? created({ ...resource, signing_secret: signingSecret }) : ok(resource);
  },
);
