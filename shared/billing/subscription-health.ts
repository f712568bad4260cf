/**
 * MobileSubscriptionHealth (GET /v1/mobile/billing/summary; see docs/decisions/billing.md). Status and payment
 * attention derive from the billing account and the invoices (subscriptionStatus, pure);
 * the daily budget's spend is today's share of the period estimate: the estimate of the
 * whole period so far minus the estimate without today's usage (running totals keep a
 * per-day share), so tiers and included quantities count exactly as on the invoice.
 * No payment method, customer or provider reference is read into it.
 */

import { dayOf, periodBounds, periodOf } from '../policy/billing/period.js';
import type { Plan } from '../policy/billing/plans.js';
import { minusTotals, ratePeriod } from '../policy/billing/rating.js';
import { type BillingAccount, getBillingAccount, getPlan, telephonyModeOfTenant } from '../repositories/billing.js';
import { type InvoiceRecord, invoicesWithStatus, recentInvoices } from '../repositories/invoices.js';
import { readPeriodTotals } from '../repositories/usage-ledger.js';

const DAY_MS = 86_400_000;
/** An open invoice is past due this long after it was issued (the provider's days_until_due). */
const INVOICE_DUE_DAYS = 14;

export type SubscriptionStatus = 'trialing' | 'active' | 'past_due' | 'canceled';
export type PaymentAttention = 'none' | 'payment_pending' | 'action_required';

/** Pure: canceled wins; then an uncollectible or overdue open invoice is past_due (action required); then the trial; else active. */
export function subscriptionStatus(
  account: Pick<BillingAccount, 'canceled_at' | 'created_at'>,
  plan: Pick<Plan, 'trial_days'>,
  unpaid: readonly Pick<InvoiceRecord, 'status' | 'created_at'>[],
  at: Date,
): { status: SubscriptionStatus; payment_attention: PaymentAttention } {
  const overdue = unpaid.some(
    (i) => i.status === 'uncollectible' || (i.status === 'open' && Date.parse(i.created_at) + INVOICE_DUE_DAYS * DAY_MS <= at.getTime()),
  );
  const pending = unpaid.some((i) => i.status === 'open');
  const attention: PaymentAttention = overdue ? 'action_required' : pending ? 'payment_pending' : 'none';
  if (account.canceled_at) return { status: 'canceled', payment_attention: attention };
  if (overdue) return { status: 'past_due', payment_attention: attention };
  if (Date.parse(account.created_at) + plan.trial_days * DAY_MS > at.getTime()) return { status: 'trialing', payment_attention: attention };
  return { status: 'active', payment_attention: attention };
}

export async function subscriptionHealth(tenantId: string, at: Date) {
  const account = await getBillingAccount(tenantId);
  if (!account) throw new Error(`tenant ${tenantId} has no billing account`);
  const plan = await getPlan(account.plan_id);
  if (!plan) throw new Error(`plan ${account.plan_id} is not seeded`);
  const [unpaid, recent] = await Promise.all([invoicesWithStatus(tenantId, ['open', 'uncollectible']), recentInvoices(tenantId, 5)]);
  const { status, payment_attention } = subscriptionStatus(account, plan, unpaid, at);
  let budget = null;
  if (account.daily_budget_minor !== null && account.daily_budget_minor !== undefined) {
    const period = periodOf(at);
    const { start, end } = periodBounds(period);
    const [mode, totals] = await Promise.all([telephonyModeOfTenant(tenantId), readPeriodTotals(tenantId, period, dayOf(at))]);
    const rate = (t: typeof totals.billed) =>
      ratePeriod({ plan, telephonyMode: mode, totals: t, hadSandboxUsage: false, periodStart: start, periodEnd: end }).rated_total_minor;
    const spent = Math.max(0, rate(totals.billed) - rate(minusTotals(totals.billed, totals.day.billed)));
    const midnight = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
    budget = {
      period: 'daily' as const,
      limit_minor: account.daily_budget_minor,
      spent_minor: spent,
      remaining_minor: Math.max(0, account.daily_budget_minor - spent),
      currency: plan.currency,
      resets_at: midnight.toISOString(),
    };
  }
  return {
    plan_label: plan.label,
    status,
    payment_attention,
    budget,
    // Status and totals only (the mobile contract): no id, period, provider reference or URL.
    invoices: recent.map((i) => ({ status: i.status, total_minor: i.total_minor, currency: i.currency })),
    generated_at: at.toISOString(),
  };
}
