import { now } from '../../shared/clock.js';
import { conflict } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { newId } from '../../shared/ids.js';
import { envelopeBody, envelopeOf } from '../../shared/policy/webhooks/envelope.js';
import { getWebhookEndpoint, liveSigningSecrets } from '../../shared/repositories/webhook-endpoints.js';
import { deliveryHeaders } from '../../shared/schemas/webhook-signature.js';
import { TEST_EVENT_TYPE, webhookTestResult } from '../../shared/schemas/webhooks.js';
import { deliverOnce } from '../../shared/webhooks/deliver.js';
import { webhookUrlPolicy } from '../../shared/webhooks/url-policy.js';

/**
 * POST /v1/webhook-endpoint/test — one sample event (`data.test = true`), sent now with the
 * production mechanics: the same envelope and serialization, signed with every live secret
 * (both during a rotation overlap), the same URL checks and 10-second rule. Nothing durable
 * is written: no event, no outbox row, no ledger row.
 */
export const handler = defineRoute('testWebhookEndpoint', bearer, { responses: { 200: webhookTestResult } }, async ({ principal }) => {
  const endpoint = await getWebhookEndpoint(principal.tenantId);
  if (!endpoint) throw conflict('webhook_endpoint_not_configured', 'No webhook endpoint is configured: PUT /v1/webhook-endpoint first');
  const at = now();
  const envelope = envelopeOf({ id: newId('evt'), type: TEST_EVENT_TYPE, created_at: at.toISOString(), data: { test: true, endpoint_id: endpoint.id } });
  const body = envelopeBody(envelope);
  const secrets = await liveSigningSecrets(endpoint, at);
  const result = await deliverOnce({ url: endpoint.url, body, headers: deliveryHeaders(envelope, body, secrets, new Date()), policy: webhookUrlPolicy() });
  return ok({ delivered: result.delivered, status_code: result.status_code, event_type: TEST_EVENT_TYPE, detail: result.detail });
});
