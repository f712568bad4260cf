/**
 * The payment provider's webhook signature, checked as Stripe specifies it: the header
 * `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, each v1 an HMAC-SHA256 of
 * `<t>.<raw body>` with the endpoint's webhook secret, compared in constant time, and the
 * timestamp no older than the tolerance (5 minutes, Stripe's default). Written here rather
 * than taken from the `stripe` library: its client (~250 KB bundled) is the only way the
 * library offers the check, and the webhook function needs nothing else of it. A test checks
 * this against headers the library's own signer makes. The instant is an argument.
 */
import { timingSafeEqual } from 'node:crypto';
import { signatureHeader } from '../schemas/webhook-signature.js';

export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The provider event's envelope (Stripe's shape; the webhook route reads only these). */
export interface ProviderEvent {
  id: string;
  type: string;
  data?: { object?: unknown };
}

/** Verifies `rawBody` against the header and returns the parsed event; throws on a bad or stale signature. */
export function verifyProviderEvent(rawBody: string, header: string, secret: string, at: Date): ProviderEvent {
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    const [key, value] = [item.slice(0, eq).trim(), item.slice(eq + 1).trim()];
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === undefined || signatures.length === 0) throw new Error('no timestamp or v1 signature in the header');
  // Our own deliveries are signed with the same scheme: sign the body as they are, with this secret.
  const expected = Buffer.from(signatureHeader(rawBody, [secret], timestamp).slice(`t=${timestamp},v1=`.length), 'hex');
  if (!signatures.some((s) => timingSafeEqual(s, expected))) throw new Error('no signature matches the body');
  if (Math.floor(at.getTime() / 1000) - timestamp > SIGNATURE_TOLERANCE_SECONDS) throw new Error('the signature is older than the tolerance');
  const event = JSON.parse(rawBody) as Partial<ProviderEvent>;
  if (typeof event.id !== 'string' || typeof event.type !== 'string') throw new Error('not an event');
  return event as ProviderEvent;
}
