/** Operator actions on billing (see docs/decisions/billing.md): plans, a tenant's plan and budget, the sandbox payment provider's events. */

import { postSignedProviderEvent, providerInvoiceEvent } from '../billing/payment-provider.js';
import { PROVIDER_INVOICE_EVENTS } from '../policy/billing/invoices.js';
import { assignPlan, cancelSubscription, listPlans, setDailyBudget } from '../repositories/billing.js';
import { getInvoiceRecord } from '../repositories/invoices.js';
import { appSecrets } from '../secrets.js';

class BillingOperatorError extends Error {}

export async function planListAction() {
  const plans = await listPlans();
  return {
    plans: plans.map((p) => ({
      id: p.id,
      label: p.label,
      currency: p.currency,
      base_price_minor: p.base_price_minor,
      trial_days: p.trial_days,
      minute_tiers: p.minute_tiers,
    })),
  };
}

export async function planAssignAction(input: { tenantId: string; planId: string }) {
  const account = await assignPlan(input.tenantId, input.planId, new Date());
  return { tenant_id: account.tenant_id, plan_id: account.plan_id };
}

export async function budgetSetAction(input: { tenantId: string; dailyMinor: number | null }) {
  const account = await setDailyBudget(input.tenantId, input.dailyMinor, new Date());
  return { tenant_id: account.tenant_id, daily_budget_minor: account.daily_budget_minor };
}

export async function subscriptionCancelAction(input: { tenantId: string }) {
  const account = await cancelSubscription(input.tenantId, new Date());
  return { tenant_id: account.tenant_id, canceled_at: account.canceled_at };
}

/** The sandbox payment provider posts one of its invoice events for a sandbox invoice (signed as Stripe signs), as a customer's payment or the provider's dunning would. */
export async function sandboxInvoiceEventAction(input: { tenantId: string; invoiceId: string; type: string }) {
  if (!(input.type in PROVIDER_INVOICE_EVENTS)) throw new BillingOperatorError(`--type must be one of ${Object.keys(PROVIDER_INVOICE_EVENTS).join(', ')}`);
  const invoice = await getInvoiceRecord(input.tenantId, input.invoiceId);
  if (!invoice) throw new BillingOperatorError(`invoice ${input.invoiceId} of tenant ${input.tenantId} does not exist`);
  if (invoice.provider !== 'sandbox' || !invoice.external_ref)
    throw new BillingOperatorError('only an invoice the sandbox provider finalized takes its events');
  const { payments } = await appSecrets();
  if (!payments) throw new BillingOperatorError('payment_webhook_secret is not configured');
  const type = input.type as keyof typeof PROVIDER_INVOICE_EVENTS;
  const event = providerInvoiceEvent(
    type,
    {
      external_ref: invoice.external_ref,
      invoice_id: invoice.id,
      tenant_id: invoice.tenant_id,
      status: PROVIDER_INVOICE_EVENTS[type],
      hosted_invoice_url: invoice.hosted_invoice_url,
      total_minor: invoice.total_minor,
      currency: invoice.currency,
    },
    new Date(),
  );
  const res = await postSignedProviderEvent(event, payments.webhookSecret);
  return { event_id: event.id, type, status: res.status, answer: JSON.parse(res.body) };
}
