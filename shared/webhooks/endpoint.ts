/**
 * The tenant's webhook endpoint as the API manages it: the store keeps it; here its secrets
 * are drawn and the rule on how many may be live at once is applied.
 */
import { conflict } from '../errors.js';
import { type EndpointSettings, putWebhookEndpoint, rotateWebhookSecret, type WebhookEndpointRecord } from '../repositories/webhook-endpoints.js';
import { newSigningSecret } from '../schemas/webhook-signature.js';

/** More live secrets than this at once means rotations faster than any receiver can follow. */
const MAX_LIVE_SECRETS = 5;

/** Creates the endpoint (its first signing secret answered this once) or replaces its settings (secrets kept; no secret answered). */
export function saveWebhookEndpoint(
  tenantId: string,
  settings: EndpointSettings,
  at: Date,
): Promise<{ endpoint: WebhookEndpointRecord; signingSecret: string | null }> {
  return putWebhookEndpoint(tenantId, settings, at, newSigningSecret());
}

/**
 * A new current signing secret (answered this once); older live ones stay valid for
 * `overlapSeconds`. Undefined without an endpoint; 409 `too_many_signing_secrets` when
 * MAX_LIVE_SECRETS would be live at once.
 */
export async function rotateSigningSecret(
  tenantId: string,
  overlapSeconds: number,
  at: Date,
): Promise<{ endpoint: WebhookEndpointRecord; signingSecret: string } | undefined> {
  const secret = newSigningSecret();
  const out = await rotateWebhookSecret(tenantId, { secret, overlapSeconds, maxLive: MAX_LIVE_SECRETS }, at);
  if (out.kind === 'no_endpoint') return undefined;
  if (out.kind === 'too_many_live') {
    throw conflict(
      'too_many_signing_secrets',
      `The endpoint already has ${out.live} live signing secrets; wait for an overlap to end (or rotate with overlap_seconds 0) before rotating again`,
    );
  }
  return { endpoint: out.endpoint, signingSecret: secret };
}
