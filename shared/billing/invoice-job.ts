/**
 * Period close (see docs/decisions/billing.md): for every tenant in the billing directory, build the invoice of
 * the last month that ended at least INVOICE_CLOSE_GRACE_MS before `at` from the ledger's running totals (the same rating the summary
 * shows), `draft` → provider → `open`. Safe to run any number of times, at any instant:
 * one invoice per tenant and period (its guard), a draft left by a failed provider call is
 * finalized on the next run, an open one is left to the provider's webhooks.
 * Run every 30 minutes by EventBridge (`scheduledJobs`), on an interval locally, and on demand with
 * `npm run admin -- jobs run invoices --at <date-time>`.
 */
import { now } from '../clock.js';
import { logger } from '../observability.js';
import { invoiceLines, invoiceTotal } from '../policy/billing/invoices.js';
import { periodBounds, previousPeriod } from '../policy/billing/period.js';
import { billingDirectory, ensureBillingAccount } from '../repositories/billing.js';
import { createDraftInvoice, invoiceOfPeriod, openInvoice, recordProviderCustomer, recordProviderDraft } from '../repositories/invoices.js';
import { connectionsBoughtSince } from '../repositories/receptionist-purchases.js';
import { getTenant } from '../repositories/tenants.js';
import { type PaymentProvider, paymentProvider } from './payment-provider.js';
import { periodUsage } from './usage-summary.js';

export interface InvoiceJobSummary {
  period: string;
  tenants: number;
  created: number;
  opened: number;
  skipped: number;
  failed: number;
}

const DAY_MS = 86_400_000;

/**
 * A period is closed (invoiced) only this long after its end: a transaction that dated its
 * row before midnight (its `now` read then) may commit just after it, and its row must be in
 * the totals before the invoice reads them. An hour is far beyond any transaction's
 * lifetime (retries included); the invoice is merely an hour later.
 */
export const INVOICE_CLOSE_GRACE_MS = 60 * 60_000;

/** The period a close at `at` invoices: the last one whose end + grace is at or before `at`. */
export const closablePeriod = (at: Date): string => previousPeriod(new Date(at.getTime() - INVOICE_CLOSE_GRACE_MS));

export async function runInvoiceJob(at: Date): Promise<InvoiceJobSummary> {
  const period = closablePeriod(at);
  const summary: InvoiceJobSummary = { period, tenants: 0, created: 0, opened: 0, skipped: 0, failed: 0 };
  const provider = await paymentProvider(now);
  for await (const tenantId of billingDirectory()) {
    summary.tenants++;
    try {
      const r = await invoiceTenant(tenantId, period, provider, at);
      if (r.created) summary.created++;
      if (r.opened) summary.opened++;
      if (!r.created && !r.opened) summary.skipped++;
    } catch (err) {
      summary.failed++;
      logger.error('invoice job: tenant not invoiced (retried next run)', { tenant_id: tenantId, period, error: (err as Error).message });
    }
  }
  return summary;
}

export async function invoiceTenant(
  tenantId: string,
  period: string,
  provider: PaymentProvider,
  at: Date,
): Promise<{ created: boolean; opened: boolean; invoice_id: string | null }> {
  const account = await ensureBillingAccount(tenantId);
  const { start, end } = periodBounds(period);
  // Not closed yet: rows dated inside the period may still be committing.
  if (at.getTime() < end.getTime() + INVOICE_CLOSE_GRACE_MS) return { created: false, opened: false, invoice_id: null };
  // Not yet a tenant at the period's end, or canceled before it began: nothing to invoice (the period a cancel falls in is still invoiced).
  if (!account || Date.parse(account.created_at) >= end.getTime() || (account.canceled_at && Date.parse(account.canceled_at) < start.getTime()))
    return { created: false, opened: false, invoice_id: null };
  let invoice = await invoiceOfPeriod(tenantId, period);
  let created = false;
  if (!invoice) {
    const usage = await periodUsage(tenantId, period);
    const inTrial = Date.parse(account.created_at) + usage.plan.trial_days * DAY_MS >= end.getTime();
    // The connections held at the period's end: one bought after it is billed from the next period on.
    const heldAtEnd = Math.max(0, account.receptionist_connections - (await connectionsBoughtSince(tenantId, end)));
    const lines = invoiceLines(usage.plan, usage.rated, { inTrial, receptionistConnections: heldAtEnd });
    const draft = await createDraftInvoice(
      {
        tenant_id: tenantId,
        period,
        period_start: start.toISOString(),
        period_end: end.toISOString(),
        line_items: lines,
        total_minor: invoiceTotal(lines),
        currency: usage.plan.currency,
        plan_id: usage.plan.id,
      },
      at,
    );
    invoice = draft.invoice;
    created = draft.created;
  }
  if (invoice.status !== 'draft') return { created, opened: false, invoice_id: invoice.id };
  const tenant = await getTenant(tenantId);
  const draftInvoice = invoice;
  const request = {
    invoice_id: invoice.id,
    tenant_id: tenantId,
    tenant_name: tenant?.name ?? tenantId,
    currency: invoice.currency,
    period,
    total_minor: invoice.total_minor,
    line_items: invoice.line_items,
    customer_ref: account.customer_ref ?? null,
    provider_draft_ref: invoice.provider_draft_ref ?? null,
    // What the provider creates is ours to remember at once: a retry past its idempotency window reuses it.
    record: { customer: (ref: string) => recordProviderCustomer(tenantId, ref), draft: (ref: string) => recordProviderDraft(draftInvoice, ref, at) },
  };
  const finalized = await provider.finalizeInvoice(request);
  const opened = await openInvoice(invoice, finalized, at);
  if (opened) await provider.afterOpen(request, finalized);
  return { created, opened, invoice_id: invoice.id };
}
