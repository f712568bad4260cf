import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { presentWebhookEndpoint } from '../../shared/repositories/webhook-endpoints.js';
import { errorSchema } from '../../shared/schemas/common.js';
import { DEFAULT_OVERLAP_SECONDS, webhookEndpointWithSecret, webhookRotateRequest } from '../../shared/schemas/webhooks.js';
import { rotateSigningSecret } from '../../shared/webhooks/endpoint.js';

/**
 * POST /v1/webhook-endpoint/rotate-secret (admin) — a new signing secret, returned once. Until
 * `overlap_seconds` (default 86,400, at most 7 days) have passed, every delivery carries a `v1`
 * signature for the old secret(s) too, so receivers can switch without losing an event.
 */
export const handler = defineRoute(
  'rotateWebhookSecret',
  bearer,
  { body: webhookRotateRequest, responses: { 200: webhookEndpointWithSecret, 404: errorSchema } },
  async ({ principal, body }) => {
    const at = now();
    const rotated = await rotateSigningSecret(principal.tenantId, body?.overlap_seconds ?? DEFAULT_OVERLAP_SECONDS, at);
    if (!rotated) throw notFound('Webhook endpoint');
    return ok({ ...presentWebhookEndpoint(rotated.endpoint, at), signing_secret: rotated.signingSecret });
  },
);
