/** Invoice line items, the provider's monotonic status moves, and the subscription status (pure). */
import { describe, expect, it } from 'vitest';
import { subscriptionStatus } from '../../shared/billing/subscription-health.js';
import { invoiceLines, invoiceStatusAfter, invoiceTotal } from '../../shared/policy/billing/invoices.js';
import { periodBounds } from '../../shared/policy/billing/period.js';
import { planById } from '../../shared/policy/billing/plans.js';
import { ratePeriod } from '../../shared/policy/billing/rating.js';

const plan = planById('plan_growth')!;
const { start, end } = periodBounds('2026-11');

describe('invoiceLines', () => {
  it('the base price, one line per billed meter with overage, the tiered minutes, the call fees and the connections; nothing for bundled, internal or within-included meters', () => {
    const rated = ratePeriod({
      plan,
      telephonyMode: 'managed',
      hadSandboxUsage: true,
      periodStart: start,
      periodEnd: end,
      totals: {
        telephony_minutes: { quantity: '1200', event_count: 40 },
        sms_segments: { quantity: '1500', event_count: 900 },
        tts_characters: { quantity: '5', event_count: 1 },
        gpu_seconds: { quantity: '100', event_count: 3 },
        lookup_requests: { quantity: '7', event_count: 7 },
      },
    });
    const lines = invoiceLines(plan, rated, { inTrial: false, receptionistConnections: 2 });
    // 200 minutes beyond 1000 at 10 = 2000; 500 segments beyond 1000 at 1 = 500; 40 calls × 0.5 = 20; 2 × 1200 = 2400.
    expect(lines).toEqual([
      { kind: 'base_price', meter: null, description: 'Growth plan', quantity: '1', unit_amount_minor: '29900', amount_minor: 29900 },
      {
        kind: 'minutes',
        meter: 'telephony_minutes',
        description: expect.stringContaining('ending rate 10'),
        quantity: '200',
        unit_amount_minor: null,
        amount_minor: 2000,
      },
      { kind: 'meter', meter: 'sms_segments', description: 'sms_segments beyond 1000 included', quantity: '500', unit_amount_minor: '1', amount_minor: 500 },
      { kind: 'call_fees', meter: null, description: 'Call fees', quantity: '40', unit_amount_minor: '0.5', amount_minor: 20 },
      {
        kind: 'receptionist_connections',
        meter: null,
        description: 'Receptionist connections (monthly)',
        quantity: '2',
        unit_amount_minor: '1200',
        amount_minor: 2400,
      },
    ]);
    expect(invoiceTotal(lines)).toBe(29900 + 2000 + 500 + 20 + 2400);
    // The invoice and the estimate agree (the estimate has no connections line).
    expect(invoiceTotal(lines) - 2400).toBe(rated.estimate.total_amount_minor);
  });

  it('in trial the base price line stays, at 0', () => {
    const rated = ratePeriod({ plan, telephonyMode: 'managed', hadSandboxUsage: false, periodStart: start, periodEnd: end, totals: {} });
    expect(invoiceLines(plan, rated, { inTrial: true, receptionistConnections: 0 })).toEqual([
      { kind: 'base_price', meter: null, description: 'Growth plan (trial)', quantity: '1', unit_amount_minor: '0', amount_minor: 0 },
    ]);
  });
});

describe('invoiceStatusAfter (Stripe’s lifecycle, monotonic)', () => {
  it.each([
    ['draft', 'invoice.finalized', 'open'],
    ['open', 'invoice.paid', 'paid'],
    ['open', 'invoice.payment_succeeded', 'paid'],
    ['open', 'invoice.voided', 'void'],
    ['open', 'invoice.marked_uncollectible', 'uncollectible'],
    ['uncollectible', 'invoice.paid', 'paid'],
    ['uncollectible', 'invoice.voided', 'void'],
    ['open', 'invoice.finalized', null],
    ['paid', 'invoice.finalized', null],
    ['paid', 'invoice.voided', null],
    ['paid', 'invoice.marked_uncollectible', null],
    ['void', 'invoice.paid', null],
    ['uncollectible', 'invoice.marked_uncollectible', null],
    ['open', 'invoice.created', null],
    ['open', 'charge.succeeded', null],
  ] as const)('%s + %s → %s', (from, type, to) => {
    expect(invoiceStatusAfter(from, type)).toBe(to);
  });
});

describe('subscriptionStatus', () => {
  const at = new Date('2026-12-20T00:00:00Z');
  const account = { canceled_at: null, created_at: '2026-11-01T00:00:00Z' };
  it('trialing within the trial days, then active', () => {
    expect(subscriptionStatus(account, { trial_days: 60 }, [], at)).toEqual({ status: 'trialing', payment_attention: 'none' });
    expect(subscriptionStatus(account, { trial_days: 14 }, [], at)).toEqual({ status: 'active', payment_attention: 'none' });
  });
  it('an open invoice is pending until 14 days after issue, then past due; uncollectible is past due at once; canceled wins', () => {
    expect(subscriptionStatus(account, { trial_days: 0 }, [{ status: 'open', created_at: '2026-12-10T00:00:00Z' }], at)).toEqual({
      status: 'active',
      payment_attention: 'payment_pending',
    });
    expect(subscriptionStatus(account, { trial_days: 0 }, [{ status: 'open', created_at: '2026-12-06T00:00:00Z' }], at)).toEqual({
      status: 'past_due',
      payment_attention: 'action_required',
    });
    expect(subscriptionStatus(account, { trial_days: 0 }, [{ status: 'uncollectible', created_at: '2026-12-19T00:00:00Z' }], at)).toEqual({
      status: 'past_due',
      payment_attention: 'action_required',
    });
    expect(
      subscriptionStatus(
        { ...account, canceled_at: '2026-12-01T00:00:00Z' },
        { trial_days: 0 },
        [{ status: 'uncollectible', created_at: '2026-12-19T00:00:00Z' }],
        at,
      ),
    ).toEqual({ status: 'canceled', payment_attention: 'action_required' });
  });
});
