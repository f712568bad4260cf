/** Usage and billing shapes (see docs/decisions/billing.md; the contract: Usage summary, Invoice, ReceptionistPurchaseResponse, MobileSubscriptionHealth). */
import * as z from 'zod';
import { INVOICE_STATUSES } from '../policy/billing/invoices.js';
import { BILLING_CLASSES, EXCLUDED_USAGE_TYPES, METERS, TELEPHONY_MODES } from '../policy/billing/meters.js';
import { PERIOD_PATTERN } from '../policy/billing/period.js';
import { errorWith, timestamp } from './common.js';

/** the API conventions: an optional-sign decimal number. */
const decimalString = z.string().regex(/^[+-]?\d+(\.\d+)?$/);
const minor = z.int();

export const ESTIMATE_DISCLAIMER =
  'Read-only, calculated from the current plan and the usage ledger. It excludes tax, credits, discounts and proration; the payment processor’s invoice is final.';

export const usageSummaryQuery = z.strictObject({
  period: z
    .string()
    .regex(PERIOD_PATTERN, { message: 'period must be YYYY-MM (a month, 01–12)' })
    .optional()
    .describe('The billing month in UTC, YYYY-MM; the current month when absent'),
});

const meterUsage = z
  .object({
    meter: z.enum(METERS),
    billing: z.enum(BILLING_CLASSES),
    quantity: decimalString.nullable().describe('null: the ledger holds no rows for the meter'),
    event_count: minor.nullable(),
    rated_amount_minor: minor.nullable(),
    included_quantity: decimalString.nullable(),
    overage_quantity: decimalString.nullable(),
  })
  .meta({ id: 'MeterUsage' });

const volumeTier = z
  .object({
    base_minute_rate_minor: decimalString,
    current_minute_rate_minor: decimalString,
    discount_per_bracket_minor: decimalString,
    floor_minute_rate_minor: decimalString,
    bracket_size_minor: minor,
    cumulative_period_spend_minor: minor,
    next_tier_threshold_minor: minor.nullable(),
    next_tier_minute_rate_minor: decimalString.nullable(),
  })
  .meta({
    id: 'VolumeTier',
    description: 'The minute rate by the period’s minute spend; the next-tier fields are null at the floor and whenever the rate is pinned',
  });

const billingPeriodEstimate = z
  .object({
    period_start: timestamp,
    period_end: timestamp,
    base_price_minor: minor,
    usage_amount_minor: minor.nullable(),
    total_amount_minor: minor.nullable(),
    minutes_amount_minor: minor.nullable(),
    call_fees_amount_minor: minor.nullable(),
    volume_tier: volumeTier.nullable(),
    unpriced_meters: z.array(z.enum(METERS)),
    excluded_usage_types: z.array(z.enum(EXCLUDED_USAGE_TYPES)),
  })
  .meta({ id: 'BillingPeriodEstimate', description: ESTIMATE_DISCLAIMER });

export const usageSummary = z
  .object({
    period: z.string().regex(PERIOD_PATTERN),
    period_start: timestamp,
    period_end: timestamp,
    telephony_mode: z.enum(TELEPHONY_MODES),
    currency: z.string().nullable(),
    rated_total_minor: minor.nullable(),
    billing_period_estimate: billingPeriodEstimate.nullable(),
    meters: z.array(meterUsage).length(METERS.length),
  })
  .meta({ id: 'UsageSummary' });

const LINE_ITEM_KINDS = ['base_price', 'meter', 'minutes', 'call_fees', 'receptionist_connections'] as const;

const invoiceLineItem = z
  .object({
    kind: z.enum(LINE_ITEM_KINDS),
    meter: z.enum(METERS).nullable(),
    description: z.string(),
    quantity: decimalString.nullable(),
    unit_amount_minor: decimalString.nullable(),
    amount_minor: minor,
  })
  .meta({ id: 'InvoiceLineItem' });

export const invoiceResource = z
  .object({
    id: z.string(),
    period_start: timestamp,
    period_end: timestamp,
    line_items: z.array(invoiceLineItem),
    total_minor: minor,
    currency: z.string(),
    status: z.enum(INVOICE_STATUSES),
    external_ref: z.string().nullable(),
    hosted_invoice_url: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Invoice' });

export const invoicePath = z.strictObject({ invoice_id: z.string().min(1).max(64) });

export const receptionistPurchaseRequest = z
  .strictObject({ receptionist_connections: z.int().min(1).max(1000).describe('Connections to add to the subscription') })
  .meta({ id: 'ReceptionistPurchaseRequest' });

const RECEPTIONIST_PURCHASE_STATUSES = ['confirmed'] as const;
export const receptionistPurchaseResponse = z
  .object({
    id: z.string(),
    status: z.enum(RECEPTIONIST_PURCHASE_STATUSES),
    receptionist_connections: minor,
    total_inbound_connections: minor,
    amount_due_minor: minor,
    recurring_connections_minor: minor,
    currency: z.string(),
  })
  .meta({ id: 'ReceptionistPurchaseResponse' });
export const purchasePath = z.strictObject({ purchase_id: z.string().min(1).max(64) });

const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'canceled'] as const;
const PAYMENT_ATTENTION = ['none', 'payment_pending', 'action_required'] as const;
export const mobileSubscriptionHealth = z
  .object({
    plan_label: z.string(),
    status: z.enum(SUBSCRIPTION_STATUSES),
    payment_attention: z.enum(PAYMENT_ATTENTION),
    budget: z
      .object({ period: z.literal('daily'), limit_minor: minor, spent_minor: minor, remaining_minor: minor, currency: z.string(), resets_at: timestamp })
      .nullable(),
    invoices: z
      .array(z.object({ status: z.enum(INVOICE_STATUSES), total_minor: minor, currency: z.string() }))
      .describe('Recent invoices, newest first: status and totals only'),
    generated_at: timestamp,
  })
  .meta({ id: 'MobileSubscriptionHealth', description: 'No payment method or provider data is representable' });

/** 409 `purchase_contended`: the billing account kept changing under every attempt (concurrent purchases); nothing was bought — send it again. */
export const purchaseContendedError = errorWith('PurchaseContendedError', {});
