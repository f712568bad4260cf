/**
 * Webhook signatures, as a pure module (apart from drawing random secrets).
 *
 * `Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256("<t>.<body>")>` with one `v1` per
 * live secret, so during a rotation overlap a receiver holding either the old or the new
 * secret accepts the delivery. This is byte for byte Stripe's scheme (the HMAC key is the
 * whole `whsec_…` string as UTF-8), so tenants can verify with Stripe's libraries or with
 * ten lines of their own code.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { WebhookEnvelope } from '../policy/webhooks/envelope.js';

export const SIGNATURE_HEADER = 'Service-Signature';
const WEBHOOK_USER_AGENT = 'VoiceControl-Webhooks/0.1';

/** `t=<t>,v1=<hex>[,v1=<hex>…]`: one v1 per secret, in the order given. */
export function signatureHeader(body: string, secrets: readonly string[], t: number): string {
  if (secrets.length === 0) throw new Error('a webhook signature needs at least one secret');
  if (!Number.isSafeInteger(t) || t < 0) throw new Error('the signature timestamp must be whole unix seconds');
  const signed = `${t}.${body}`;
  const v1 = secrets.map((secret) => {
    if (!secret) throw new Error('a webhook signing secret may not be empty');
    return `v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(signed, 'utf8').digest('hex')}`;
  });
  return [`t=${t}`, ...v1].join(',');
}

/** A fresh signing secret: `whsec_` + base64url of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** Every header a delivery carries besides those the HTTP client adds (Host, Content-Length). */
export function deliveryHeaders(envelope: WebhookEnvelope, body: string, secrets: readonly string[], now: Date): Record<string, string> {
  return {
    'content-type': 'application/json',
    [SIGNATURE_HEADER]: signatureHeader(body, secrets, Math.floor(now.getTime() / 1000)),
    'Service-Event-Id': envelope.id,
    'Service-Event-Type': envelope.type,
    'user-agent': WEBHOOK_USER_AGENT,
  };
}
