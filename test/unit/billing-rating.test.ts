/** Rating, volume tiers and the period estimate (shared/policy/billing/rating.ts) against hand-computed expectations. */
import { describe, expect, it } from 'vitest';
import { billableMinutes, METERS, telephonyModeOf } from '../../shared/policy/billing/meters.js';
import { periodBounds, previousPeriod } from '../../shared/policy/billing/period.js';
import { type MinuteTiers, planById } from '../../shared/policy/billing/plans.js';
import { minusTotals, minuteTier, ratePeriod } from '../../shared/policy/billing/rating.js';

const tiers: MinuteTiers = {
  base_minute_rate_minor: '12',
  discount_per_bracket_minor: '1',
  floor_minute_rate_minor: '10',
  bracket_size_minor: 1200,
  pinned_minute_rate_minor: null,
};

describe('minuteTier (a minute is charged the rate of the bracket the spend is in before it)', () => {
  it('just below a bracket: 99 min × 12 = 1188, still 12, next 11 at 1200', () => {
    const r = minuteTier(tiers, 99);
    expect(r.spend.toString()).toBe('1188');
    expect(r.tier).toEqual({
      base_minute_rate_minor: '12',
      current_minute_rate_minor: '12',
      discount_per_bracket_minor: '1',
      floor_minute_rate_minor: '10',
      bracket_size_minor: 1200,
      cumulative_period_spend_minor: 1188,
      next_tier_threshold_minor: 1200,
      next_tier_minute_rate_minor: '11',
    });
  });
  it('at a bracket: 100 min × 12 = 1200 exactly, the next minute costs 11, next 10 at 2400', () => {
    const r = minuteTier(tiers, 100);
    expect(r.spend.toString()).toBe('1200');
    expect(r.tier).toMatchObject({
      current_minute_rate_minor: '11',
      cumulative_period_spend_minor: 1200,
      next_tier_threshold_minor: 2400,
      next_tier_minute_rate_minor: '10',
    });
  });
  it('above a bracket: 101 min = 100 × 12 + 1 × 11 = 1211', () => {
    const r = minuteTier(tiers, 101);
    expect(r.spend.toString()).toBe('1211');
    expect(r.tier).toMatchObject({ current_minute_rate_minor: '11', cumulative_period_spend_minor: 1211, next_tier_threshold_minor: 2400 });
  });
  it('the floor: 300 min = 100 × 12 + 110 × 11 (1200 → 2410) + 90 × 10 = 3310; no next tier at the floor', () => {
    const r = minuteTier(tiers, 300);
    expect(r.spend.toString()).toBe('3310');
    expect(r.tier).toMatchObject({
      current_minute_rate_minor: '10',
      cumulative_period_spend_minor: 3310,
      next_tier_threshold_minor: null,
      next_tier_minute_rate_minor: null,
    });
  });
  it('a pinned rate: every minute at 6.5 (1000 min = 6500), no next tier, however much is spent', () => {
    const r = minuteTier({ ...tiers, pinned_minute_rate_minor: '6.5' }, 1000);
    expect(r.spend.toString()).toBe('6500');
    expect(r.tier).toMatchObject({
      current_minute_rate_minor: '6.5',
      cumulative_period_spend_minor: 6500,
      next_tier_threshold_minor: null,
      next_tier_minute_rate_minor: null,
      base_minute_rate_minor: '12',
    });
  });
  it('the cumulative spend rounds like the minutes amount (half-up): 3 min at 12.5 = 37.5 → 38 both', () => {
    const plan = planById('plan_starter')!;
    const period = periodBounds('2026-11');
    const r = ratePeriod({
      plan: { ...plan, minute_tiers: { ...plan.minute_tiers, base_minute_rate_minor: '12.5' } },
      telephonyMode: 'managed',
      hadSandboxUsage: false,
      periodStart: period.start,
      periodEnd: period.end,
      totals: { telephony_minutes: { quantity: String(Number(plan.meters.telephony_minutes.included_quantity) + 3), event_count: 1 } },
    });
    expect(r.estimate.minutes_amount_minor).toBe(38);
    expect(r.estimate.volume_tier).toMatchObject({ cumulative_period_spend_minor: 38 });
  });
  it('fractional rates stay exact: 3 min at 12.35 = 37.05 (spend 37)', () => {
    const r = minuteTier({ ...tiers, base_minute_rate_minor: '12.35' }, 3);
    expect(r.spend.toString()).toBe('37.05');
    expect(r.tier.cumulative_period_spend_minor).toBe(37);
  });
  it('no minutes: spend 0 at the base rate', () => {
    expect(minuteTier(tiers, 0).tier).toMatchObject({ current_minute_rate_minor: '12', cumulative_period_spend_minor: 0, next_tier_threshold_minor: 1200 });
  });
});

describe('ratePeriod', () => {
  const plan = planById('plan_starter')!;
  const period = periodBounds('2026-11');
  it('rates every meter in registry order with the plan’s included quantities and prices', () => {
    const r = ratePeriod({
      plan,
      telephonyMode: 'managed',
      hadSandboxUsage: false,
      periodStart: period.start,
      periodEnd: period.end,
      totals: {
        telephony_minutes: { quantity: '150', event_count: 3 },
        stt_audio_seconds: { quantity: '6000.5', event_count: 2 },
        sms_segments: { quantity: '101', event_count: 40 },
        gpu_seconds: { quantity: '10', event_count: 1 },
        lookup_requests: { quantity: '3', event_count: 3 },
      },
    });
    expect(r.meters.map((m) => m.meter)).toEqual([...METERS]);
    const by = Object.fromEntries(r.meters.map((m) => [m.meter, m]));
    // 150 − 100 included = 50 minutes × 12 = 600.
    expect(by.telephony_minutes).toEqual({
      meter: 'telephony_minutes',
      billing: 'billed',
      quantity: '150',
      event_count: 3,
      rated_amount_minor: 600,
      included_quantity: '100',
      overage_quantity: '50',
    });
    // 0.5 s × 0.04 = 0.02 → 0.
    expect(by.stt_audio_seconds).toMatchObject({ quantity: '6000.5', overage_quantity: '0.5', rated_amount_minor: 0 });
    // 1 segment × 1.2 = 1.2 → 1.
    expect(by.sms_segments).toMatchObject({ quantity: '101', overage_quantity: '1', rated_amount_minor: 1 });
    expect(by.gpu_seconds).toEqual({
      meter: 'gpu_seconds',
      billing: 'internal',
      quantity: '10',
      event_count: 1,
      rated_amount_minor: null,
      included_quantity: null,
      overage_quantity: null,
    });
    expect(by.lookup_requests).toMatchObject({ billing: 'bundled', quantity: '3', rated_amount_minor: 0 });
    expect(by.tts_characters).toMatchObject({
      quantity: null,
      event_count: null,
      rated_amount_minor: null,
      overage_quantity: null,
      included_quantity: '100000',
    });
    expect(r.rated_total_minor).toBe(601);
    expect(r.estimate).toMatchObject({
      base_price_minor: 4900,
      usage_amount_minor: 1,
      minutes_amount_minor: 600,
      call_fees_amount_minor: 0,
      total_amount_minor: 5501,
      unpriced_meters: [],
      excluded_usage_types: [],
    });
    expect(r.estimate.volume_tier).toMatchObject({
      current_minute_rate_minor: '12',
      cumulative_period_spend_minor: 600,
      next_tier_threshold_minor: 50000,
      next_tier_minute_rate_minor: '11',
    });
  });
  it('a managed tenant with no usage reports 0 minutes (never null); byo makes carrier meters carrier_billed and excludes byo usage', () => {
    const managed = ratePeriod({ plan, telephonyMode: 'managed', hadSandboxUsage: true, periodStart: period.start, periodEnd: period.end, totals: {} });
    expect(managed.meters[0]).toMatchObject({ meter: 'telephony_minutes', quantity: '0', event_count: 0, rated_amount_minor: 0, overage_quantity: '0' });
    expect(managed.estimate.excluded_usage_types).toEqual(['separately_settled_prepaid_test_calls']);
    expect(managed.estimate.total_amount_minor).toBe(4900);
    const byo = ratePeriod({
      plan,
      telephonyMode: 'byo',
      hadSandboxUsage: false,
      periodStart: period.start,
      periodEnd: period.end,
      totals: { tts_characters: { quantity: '100010', event_count: 1 } },
    });
    expect(byo.meters.filter((m) => m.billing === 'carrier_billed').map((m) => m.meter)).toEqual(['telephony_minutes', 'sms_segments', 'lookup_requests']);
    expect(byo.meters[0]).toMatchObject({ quantity: null, rated_amount_minor: null });
    // 10 characters × 0.003 = 0.03 → 0.
    expect(byo.meters[2]).toMatchObject({ quantity: '100010', overage_quantity: '10', rated_amount_minor: 0 });
    expect(byo.estimate.excluded_usage_types).toEqual(['byo_carrier_usage']);
    expect(byo.estimate.volume_tier).toBeNull();
  });
  it('a billed meter without a price is unpriced; the call fee is per billed call', () => {
    const growth = planById('plan_growth')!;
    const custom = { ...growth, meters: { ...growth.meters, gpu_seconds: { billing: 'billed' as const, included_quantity: null, unit_price_minor: null } } };
    const r = ratePeriod({
      plan: custom,
      telephonyMode: 'mixed',
      hadSandboxUsage: false,
      periodStart: period.start,
      periodEnd: period.end,
      totals: { telephony_minutes: { quantity: '10', event_count: 7 } },
    });
    expect(r.estimate.unpriced_meters).toEqual(['gpu_seconds']);
    // 7 calls × 0.5 = 3.5 → 4.
    expect(r.estimate.call_fees_amount_minor).toBe(4);
    expect(r.estimate.minutes_amount_minor).toBe(0);
  });
});

describe('carrier_billed follows the rows, not only today’s mode', () => {
  it('a tenant that metered managed minutes and texts, then switched to byo, is billed for those rows; a meter without rows stays carrier_billed', () => {
    const plan = planById('plan_starter')!;
    const period = periodBounds('2026-11');
    const r = ratePeriod({
      plan,
      telephonyMode: 'byo',
      hadSandboxUsage: false,
      periodStart: period.start,
      periodEnd: period.end,
      totals: { telephony_minutes: { quantity: '150', event_count: 2 }, sms_segments: { quantity: '3', event_count: 3 } },
    });
    const m = (name: string) => r.meters.find((x) => x.meter === name)!;
    expect(m('telephony_minutes')).toMatchObject({ billing: 'billed', quantity: '150', overage_quantity: '50', rated_amount_minor: 600 });
    expect(m('sms_segments')).toMatchObject({ billing: 'billed', quantity: '3' });
    expect(m('lookup_requests')).toMatchObject({ billing: 'carrier_billed', quantity: null });
    expect(r.estimate.minutes_amount_minor).toBe(600);
    expect(r.estimate.excluded_usage_types).toEqual(['byo_carrier_usage']);
  });
});

describe('helpers', () => {
  it('billable minutes round up per call', () => {
    expect([0, 1, 59, 60, 61, 3600].map(billableMinutes)).toEqual([0, 1, 1, 1, 2, 60]);
  });
  it('telephony mode from the accounts', () => {
    expect([telephonyModeOf([]), telephonyModeOf(['managed']), telephonyModeOf(['byo', 'byo']), telephonyModeOf(['byo', 'managed'])]).toEqual([
      'unelected',
      'managed',
      'byo',
      'mixed',
    ]);
  });
  it('periods are UTC months; a close invoices the month before', () => {
    expect(periodBounds('2026-12')).toEqual({ start: new Date('2026-12-01T00:00:00Z'), end: new Date('2027-01-01T00:00:00Z') });
    expect(previousPeriod(new Date('2027-01-01T00:05:00Z'))).toBe('2026-12');
    // Years 0–99 are those years, not 1900–1999 (Date.UTC's legacy mapping).
    expect(periodBounds('0050-01')).toEqual({ start: new Date('0050-01-01T00:00:00Z'), end: new Date('0050-02-01T00:00:00Z') });
    expect(periodBounds('0099-12').end.toISOString()).toBe('0100-01-01T00:00:00.000Z');
  });
  it('minusTotals drops a meter whose rows all fall in the part', () => {
    expect(
      minusTotals(
        { tts_characters: { quantity: '10.5', event_count: 3 }, gpu_seconds: { quantity: '1', event_count: 1 } },
        { tts_characters: { quantity: '0.25', event_count: 1 }, gpu_seconds: { quantity: '1', event_count: 1 } },
      ),
    ).toEqual({ tts_characters: { quantity: '10.25', event_count: 2 } });
  });
});
