/**
 * The payment provider port (see docs/decisions/billing.md) and its two adapters, Stripe's API shape:
 *   - `stripe`: the `stripe` library against Stripe (a customer per tenant, one invoice item
 *     per line, a `send_invoice` invoice finalized at once; every call carries an idempotency
 *     key derived from our invoice id, so a retried job never bills twice);
 *   - `sandbox`: part of the product like the sandbox carrier — it finalizes at once
 *     (`in_sbx_…`, a hosted URL on the reserved `.invalid` domain) and then posts the signed
 *     `invoice.paid` webhook a test-mode Stripe account would, to our own webhook route,
 *     signed exactly as Stripe signs (`Stripe-Signature`, the library's own signer).
 * The provider moves invoices after finalization only through its signed webhooks
 * (functions/billing/payment-provider-webhook.ts).
 */
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { logger } from '../observability.js';
import type { InvoiceLineItem, ProviderInvoice } from '../policy/billing/invoices.js';
import { appSecrets } from '../secrets.js';
import { publicBaseUrl } from '../telephony/endpoints.js';

interface ProviderInvoiceRequest {
  invoice_id: string;
  tenant_id: string;
  tenant_name: string;
  currency: string;
  period: string;
  total_minor: number;
  line_items: readonly InvoiceLineItem[];
  /** The provider customer already recorded for the tenant, if any. */
  customer_ref: string | null;
  /** The provider's draft invoice already recorded for this invoice (an earlier, failed run), if any. */
  provider_draft_ref?: string | null;
  /**
   * Records what the provider created as soon as it exists (our tenant's customer, this
   * invoice's provider draft), so a retry after the provider's idempotency window (Stripe:
   * 24 h) reuses them instead of creating a second customer or invoice.
   */
  record?: { customer(ref: string): Promise<void>; draft(ref: string): Promise<void> };
}

export interface PaymentProvider {
  readonly name: 'stripe' | 'sandbox';
  /** Creates and finalizes the invoice (idempotent per our invoice id). */
  finalizeInvoice(req: ProviderInvoiceRequest): Promise<ProviderInvoice>;
  /** Called once our invoice is open: the sandbox plays the customer paying; Stripe does nothing (its webhooks come by themselves). */
  afterOpen(req: ProviderInvoiceRequest, invoice: ProviderInvoice): Promise<void>;
}

const WEBHOOK_PATH = '/provider/stripe/webhooks';

const stripeClient = (key: string, apiBase?: URL) =>
  new Stripe(key, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    ...(apiBase ? { host: apiBase.hostname, port: Number(apiBase.port) || undefined, protocol: apiBase.protocol.replace(':', '') as 'http' | 'https' } : {}),
  });

/** `apiBase`: another Stripe-compatible endpoint (tests); Stripe's own by default. */
export function stripeProvider(secretKey: string, apiBase?: URL): PaymentProvider {
  const stripe = stripeClient(secretKey, apiBase);
  return {
    name: 'stripe',
    async finalizeInvoice(req) {
      // Idempotency keys protect a retry within Stripe's 24 h window; what a run created is
      // also recorded on our side at once (req.record), so a retry days later reuses it.
      let customer = req.customer_ref;
      if (!customer) {
        customer = (
          await stripe.customers.create({ name: req.tenant_name, metadata: { tenant_id: req.tenant_id } }, { idempotencyKey: `customer-${req.tenant_id}` })
        ).id;
        await req.record?.customer(customer);
      }
      let draftId = req.provider_draft_ref ?? null;
      const attached = new Set<string>();
      if (draftId) {
        const existing = await stripe.invoices.retrieve(draftId);
        // Finalized by an earlier run whose answer was lost: nothing more to create.
        if (existing.status && existing.status !== 'draft')
          return { provider: 'stripe', customer_ref: customer, external_ref: existing.id!, hosted_invoice_url: existing.hosted_invoice_url ?? null };
        const items = await stripe.invoiceItems.list({ invoice: draftId, limit: 100 });
        for (const item of items.data) if (item.metadata?.line !== undefined) attached.add(item.metadata.line);
      } else {
        const draft = await stripe.invoices.create(
          {
            customer,
            currency: req.currency,
            collection_method: 'send_invoice',
            days_until_due: 14,
            auto_advance: false,
            pending_invoice_items_behavior: 'exclude',
            metadata: { invoice_id: req.invoice_id, tenant_id: req.tenant_id, period: req.period },
          },
          { idempotencyKey: `invoice-${req.invoice_id}` },
        );
        draftId = draft.id!;
        await req.record?.draft(draftId);
      }
      for (const [i, line] of req.line_items.entries()) {
        if (attached.has(String(i))) continue;
        await stripe.invoiceItems.create(
          {
            customer,
            invoice: draftId,
            currency: req.currency,
            amount: line.amount_minor,
            description: line.description,
            metadata: { kind: line.kind, quantity: line.quantity ?? '', line: String(i) },
          },
          { idempotencyKey: `invoice-${req.invoice_id}-line-${i}` },
        );
      }
      const final = await stripe.invoices.finalizeInvoice(draftId, {}, { idempotencyKey: `invoice-${req.invoice_id}-finalize` });
      return { provider: 'stripe', customer_ref: customer, external_ref: final.id!, hosted_invoice_url: final.hosted_invoice_url ?? null };
    },
    async afterOpen() {},
  };
}

/** A provider event, shaped as Stripe's (what the webhook route parses). */
export function providerInvoiceEvent(
  type: string,
  invoice: {
    external_ref: string;
    invoice_id: string;
    tenant_id: string;
    status: string;
    hosted_invoice_url: string | null;
    total_minor: number;
    currency: string;
  },
  at: Date,
) {
  return {
    id: `evt_sbx_${randomBytes(12).toString('hex')}`,
    object: 'event',
    api_version: '2025-01-27.acacia',
    created: Math.floor(at.getTime() / 1000),
    livemode: false,
    type,
    data: {
      object: {
        id: invoice.external_ref,
        object: 'invoice',
        status: invoice.status,
        total: invoice.total_minor,
        currency: invoice.currency,
        hosted_invoice_url: invoice.hosted_invoice_url,
        metadata: { invoice_id: invoice.invoice_id, tenant_id: invoice.tenant_id },
      },
    },
  };
}

/** Posts a provider event to our webhook route, signed as Stripe signs (the sandbox provider, and the operator CLI). */
export async function postSignedProviderEvent(event: object, secret: string): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify(event);
  const header = stripeClient('sk_test_sandbox').webhooks.generateTestHeaderString({ payload, secret });
  const res = await fetch(`${publicBaseUrl()}${WEBHOOK_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': header },
    body: payload,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: await res.text() };
}

export function sandboxPaymentProvider(webhookSecret: string, now: () => Date): PaymentProvider {
  return {
    name: 'sandbox',
    async finalizeInvoice(req) {
      // Deterministic per invoice, like an idempotent create: a retried job gets the same ids.
      const suffix = req.invoice_id.slice(4).toLowerCase();
      return {
        provider: 'sandbox',
        customer_ref: req.customer_ref ?? `cus_sbx_${req.tenant_id.slice(4).toLowerCase()}`,
        external_ref: `in_sbx_${suffix}`,
        hosted_invoice_url: `https://pay.sandbox.invalid/i/in_sbx_${suffix}`,
      };
    },
    async afterOpen(req, invoice) {
      const event = providerInvoiceEvent(
        'invoice.paid',
        {
          external_ref: invoice.external_ref,
          invoice_id: req.invoice_id,
          tenant_id: req.tenant_id,
          status: 'paid',
          hosted_invoice_url: invoice.hosted_invoice_url,
          total_minor: req.total_minor,
          currency: req.currency,
        },
        now(),
      );
      try {
        const res = await postSignedProviderEvent(event, webhookSecret);
        if (res.status !== 200) logger.warn('sandbox payment provider: webhook not accepted', { status: res.status, invoice_id: req.invoice_id });
      } catch (err) {
        // As with the real provider, a webhook that did not land leaves the invoice open.
        logger.warn('sandbox payment provider: webhook not delivered', { invoice_id: req.invoice_id, error: (err as Error).message });
      }
    },
  };
}

/** The deployment's provider: Stripe when its secret key is set, else the sandbox. */
export async function paymentProvider(now: () => Date): Promise<PaymentProvider> {
  const { payments } = await appSecrets();
  if (payments?.stripeSecretKey) return stripeProvider(payments.stripeSecretKey);
  if (!payments) throw new Error('payment_webhook_secret is not configured (application secret)');
  return sandboxPaymentProvider(payments.webhookSecret, now);
}
