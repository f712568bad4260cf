/**
 * Invoices, pure parts (see docs/decisions/billing.md): the line items of a closed period (from the same rating
 * the summary shows), and the monotonic status moves the payment provider's webhooks make.
 */
import type { METERS } from './meters.js';
import type { Plan } from './plans.js';
import type { RatedPeriod } from './rating.js';
import { decimalString } from './rating.js';

/** An invoice's statuses (Stripe's lifecycle; the API schema lists them from here). */
export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void', 'uncollectible'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** What the payment provider made of one of our invoices (shared/billing/payment-provider.ts). */
export interface ProviderInvoice {
  provider: 'stripe' | 'sandbox';
  customer_ref: string;
  external_ref: string;
  hosted_invoice_url: string | null;
}

export interface InvoiceLineItem {
  kind: 'base_price' | 'meter' | 'minutes' | 'call_fees' | 'receptionist_connections';
  meter: (typeof METERS)[number] | null;
  description: string;
  quantity: string | null;
  unit_amount_minor: string | null;
  amount_minor: number;
}

/**
 * The base price (waived when the period ended inside the trial), one line per meter with a
 * rated amount (billed meters, overage only), the minutes, the call fees, and the recurring
 * receptionist connections. Bundled, internal, carrier-billed and unpriced meters carry no
 * amount and no line.
 */
export function invoiceLines(plan: Plan, rated: RatedPeriod, opts: { inTrial: boolean; receptionistConnections: number }): InvoiceLineItem[] {
  const lines: InvoiceLineItem[] = [
    {
      kind: 'base_price',
      meter: null,
      description: opts.inTrial ? `${plan.label} plan (trial)` : `${plan.label} plan`,
      quantity: '1',
      unit_amount_minor: opts.inTrial ? '0' : String(plan.base_price_minor),
      amount_minor: opts.inTrial ? 0 : plan.base_price_minor,
    },
  ];
  for (const m of rated.meters) {
    if (m.billing !== 'billed' || m.rated_amount_minor === null || m.overage_quantity === null || m.overage_quantity === '0') continue;
    if (m.meter === 'telephony_minutes') {
      const tier = rated.estimate.volume_tier;
      lines.push({
        kind: 'minutes',
        meter: m.meter,
        description: `Telephony minutes beyond ${m.included_quantity} included${tier ? ` (volume tiers; ending rate ${tier.current_minute_rate_minor})` : ''}`,
        quantity: m.overage_quantity,
        unit_amount_minor: null,
        amount_minor: m.rated_amount_minor,
      });
      continue;
    }
    const unit = plan.meters[m.meter].unit_price_minor;
    lines.push({
      kind: 'meter',
      meter: m.meter,
      description: `${m.meter} beyond ${m.included_quantity} included`,
      quantity: m.overage_quantity,
      unit_amount_minor: unit === null ? null : decimalString(unit),
      amount_minor: m.rated_amount_minor,
    });
  }
  const fees = rated.estimate.call_fees_amount_minor;
  const calls = rated.meters[0]?.event_count ?? 0;
  if (fees)
    lines.push({
      kind: 'call_fees',
      meter: null,
      description: 'Call fees',
      quantity: String(calls),
      unit_amount_minor: decimalString(plan.call_fee_minor),
      amount_minor: fees,
    });
  if (opts.receptionistConnections > 0) {
    lines.push({
      kind: 'receptionist_connections',
      meter: null,
      description: 'Receptionist connections (monthly)',
      quantity: String(opts.receptionistConnections),
      unit_amount_minor: String(plan.receptionist_connection_price_minor),
      amount_minor: opts.receptionistConnections * plan.receptionist_connection_price_minor,
    });
  }
  return lines;
}

export const invoiceTotal = (lines: readonly InvoiceLineItem[]): number => lines.reduce((sum, l) => sum + l.amount_minor, 0);

/** The provider's invoice event types we act on (Stripe's names) and the status each moves to. */
export const PROVIDER_INVOICE_EVENTS = {
  'invoice.finalized': 'open',
  'invoice.paid': 'paid',
  'invoice.payment_succeeded': 'paid',
  'invoice.voided': 'void',
  'invoice.marked_uncollectible': 'uncollectible',
} as const satisfies Record<string, InvoiceStatus>;

/** Where each status may go (Stripe's invoice lifecycle): paid and void are final; an uncollectible invoice may still be paid or voided. */
const MOVES: Record<InvoiceStatus, readonly InvoiceStatus[]> = {
  draft: ['open', 'paid', 'void', 'uncollectible'],
  open: ['paid', 'void', 'uncollectible'],
  uncollectible: ['paid', 'void'],
  paid: [],
  void: [],
};

/** The status a provider event moves `current` to, or null (replayed, reordered, stale or foreign: nothing to do). */
export function invoiceStatusAfter(current: InvoiceStatus, eventType: string): InvoiceStatus | null {
  const to = (PROVIDER_INVOICE_EVENTS as Record<string, InvoiceStatus>)[eventType];
  if (!to) return null;
  return MOVES[current].includes(to) ? to : null;
}
