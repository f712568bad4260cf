import * as z from 'zod';
import { verifyProviderEvent } from '../../shared/billing/webhook-signature.js';
import { now } from '../../shared/clock.js';
import { DomainError } from '../../shared/errors.js';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { rawBody } from '../../shared/http/body.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { applyProviderInvoiceEvent } from '../../shared/repositories/invoices.js';
import { appSecrets } from '../../shared/secrets.js';

const received = z
  .object({ received: z.literal(true), outcome: z.enum(['applied', 'duplicate', 'ignored', 'unknown_invoice']) })
  .meta({ id: 'PaymentWebhookReceipt' });

/**
 * POST /provider/stripe/webhooks — the payment provider's invoice events (Stripe's shape;
 * the sandbox provider posts the same). The raw body is verified as Stripe signs it
 * (`Stripe-Signature: t=…,v1=…`, HMAC-SHA256 with the webhook secret, 5-minute tolerance,
 * shared/billing/webhook-signature.ts) before anything is read: a bad or stale signature is 400 and
 * writes nothing. A verified event moves our invoice monotonically and once per event id.
 */
export const handler = defineRoute(
  'paymentProviderWebhook',
  handlerChecked,
  {
    responses: { 200: received },
    description:
      'Signed like Stripe webhooks: the Stripe-Signature header over the exact body. Answers 200 to every verified event (applied, duplicate, ignored, unknown_invoice), 400 to a bad signature.',
  },
  async ({ event }) => {
    const { payments } = await appSecrets();
    if (!payments) throw new DomainError('unavailable', 'payments_unconfigured', 'Payment webhooks are not configured on this deployment');
    const signature = event.headers?.['stripe-signature'];
    let verified: ReturnType<typeof verifyProviderEvent>;
    try {
      if (!signature) throw new Error('missing');
      verified = verifyProviderEvent(rawBody(event), signature, payments.webhookSecret, now());
    } catch {
      throw new DomainError('bad_request', 'invalid_signature', 'The Stripe-Signature header does not verify this body');
    }
    const object = (verified.data?.object ?? {}) as { id?: unknown; object?: unknown };
    if (!verified.type.startsWith('invoice.') || object.object !== 'invoice' || typeof object.id !== 'string')
      return ok({ received: true, outcome: 'ignored' });
    const result = await applyProviderInvoiceEvent(verified.id, verified.type, object.id, now());
    return ok({ received: true, outcome: result.outcome });
  },
);
