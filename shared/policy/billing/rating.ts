/**
 * Rating: a period's metered quantities + the tenant's plan → the UsageSummary's meters and
 * its billing_period_estimate (the contract). Pure: exact decimals (decimal.js), no floats,
 * no clock, no I/O — the summary, the invoice and the mobile budget all call this.
 *
 * Rules (docs/decisions/billing.md):
 *  - a meter's overage = max(0, quantity − included); rated = overage × unit price, rounded
 *    half-up to a whole minor unit per meter (as a processor rounds each line);
 *  - `bundled` meters rate 0 (the base price covers them), `internal` ones are not priced to
 *    the tenant (null), `carrier_billed` ones (byo) are billed by the tenant's carrier (null);
 *  - a `billed` meter without a unit price is listed in `unpriced_meters` (rated null);
 *  - telephony minutes are rated by volume tiers (minuteTier below), the call fee per
 *    billed call (the minutes meter's event count).
 */
import { Decimal } from 'decimal.js';
import { type BillingClass, type ExcludedUsageType, isCarrierMeter, METERS, type Meter, type TelephonyModeSummary } from './meters.js';
import type { MinuteTiers, Plan } from './plans.js';

/** Decimal with room for any realistic quantity × rate without rounding. */
export const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });
export type Dec = InstanceType<typeof D>;

/** A decimal string as the API shows it: no exponent, no trailing zeros. */
export const decimalString = (d: Dec | string): string => {
  const v = new D(d);
  return v.isZero() ? '0' : v.toFixed();
};
const minorInt = (d: Dec): number => d.toDecimalPlaces(0, D.ROUND_HALF_UP).toNumber();

/** One meter's running total for a period: the sum of its ledger rows and their count. */
interface MeterTotal {
  quantity: string;
  event_count: number;
}
export type MeterTotals = Partial<Record<Meter, MeterTotal>>;

interface VolumeTier {
  base_minute_rate_minor: string;
  current_minute_rate_minor: string;
  discount_per_bracket_minor: string;
  floor_minute_rate_minor: string;
  bracket_size_minor: number;
  cumulative_period_spend_minor: number;
  next_tier_threshold_minor: number | null;
  next_tier_minute_rate_minor: string | null;
}

export interface TierResult {
  /** Exact spend on the billable minutes (before rounding). */
  spend: Dec;
  tier: VolumeTier;
}

const rateOfBracket = (t: MinuteTiers, k: number): Dec =>
  Decimal.max(new D(t.floor_minute_rate_minor), new D(t.base_minute_rate_minor).minus(new D(t.discount_per_bracket_minor).times(k))) as Dec;

/**
 * Volume tiers on the period's minute spend: bracket k covers spend [k·size, (k+1)·size);
 * a minute is charged the rate of the bracket the spend is in before it (base − k·discount,
 * never below the floor). So the minute that reaches a threshold is still at the old rate
 * and the next one at the new rate. A pinned rate charges every minute at that rate and
 * reports no next tier; at the floor there is none either.
 */
export function minuteTier(t: MinuteTiers, billableMinutes: Dec | string | number): TierResult {
  const minutes = new D(billableMinutes);
  const size = new D(t.bracket_size_minor);
  const floor = new D(t.floor_minute_rate_minor);
  const view = (spend: Dec, current: Dec, pinned: boolean): TierResult => {
    const k = spend.dividedToIntegerBy(size);
    const atFloor = current.lte(floor) || new D(t.discount_per_bracket_minor).isZero();
    return {
      spend,
      tier: {
        base_minute_rate_minor: decimalString(t.base_minute_rate_minor),
        current_minute_rate_minor: decimalString(current),
        discount_per_bracket_minor: decimalString(t.discount_per_bracket_minor),
        floor_minute_rate_minor: decimalString(t.floor_minute_rate_minor),
        bracket_size_minor: t.bracket_size_minor,
        // Rounded as minutes_amount_minor is (half-up), so the two never disagree by a minor unit; thresholds compare the exact spend.
        cumulative_period_spend_minor: minorInt(spend),
        next_tier_threshold_minor: pinned || atFloor ? null : k.plus(1).times(size).toNumber(),
        next_tier_minute_rate_minor: pinned || atFloor ? null : decimalString(rateOfBracket(t, k.plus(1).toNumber())),
      },
    };
  };
  if (t.pinned_minute_rate_minor !== null) {
    const rate = new D(t.pinned_minute_rate_minor);
    return view(minutes.times(rate), rate, true);
  }
  let spend = new D(0);
  let left = minutes;
  let k = 0;
  while (left.gt(0)) {
    const rate = rateOfBracket(t, k);
    if (rate.lte(floor) || rate.isZero()) {
      spend = spend.plus(left.times(rate));
      left = new D(0);
      break;
    }
    // Minutes still charged in bracket k: until the spend reaches the next threshold.
    const room = size.times(k + 1).minus(spend);
    const inBracket = room.lte(0) ? new D(0) : room.dividedBy(rate).ceil();
    const n = Decimal.min(inBracket, left) as Dec;
    spend = spend.plus(n.times(rate));
    left = left.minus(n);
    if (left.gt(0)) k = spend.dividedToIntegerBy(size).toNumber();
  }
  return view(spend, rateOfBracket(t, spend.dividedToIntegerBy(size).toNumber()), false);
}

interface MeterUsage {
  meter: Meter;
  billing: BillingClass;
  quantity: string | null;
  event_count: number | null;
  rated_amount_minor: number | null;
  included_quantity: string | null;
  overage_quantity: string | null;
}

interface BillingPeriodEstimate {
  period_start: string;
  period_end: string;
  base_price_minor: number;
  usage_amount_minor: number | null;
  total_amount_minor: number | null;
  minutes_amount_minor: number | null;
  call_fees_amount_minor: number | null;
  volume_tier: VolumeTier | null;
  unpriced_meters: Meter[];
  excluded_usage_types: ExcludedUsageType[];
}

export interface RatedPeriod {
  mode: TelephonyModeSummary;
  meters: MeterUsage[];
  rated_total_minor: number;
  estimate: BillingPeriodEstimate;
}

export interface RatingInput {
  plan: Plan;
  telephonyMode: TelephonyModeSummary;
  /** Billed rows' totals (sandbox rows are not here). */
  totals: MeterTotals;
  /** The period had sandbox (mock) usage, metered apart. */
  hadSandboxUsage: boolean;
  periodStart: Date;
  periodEnd: Date;
}

/**
 * A meter's class in a period. `carrier_billed` only when the tenant is byo now AND the meter
 * has no billed rows in the period: a tenant that metered managed minutes and then switched to
 * byo is still billed for the rows it has (the rows are the facts; the mode is today's).
 */
function billingClassOf(plan: Plan, meter: Meter, mode: TelephonyModeSummary, hasRows = false): BillingClass {
  if (mode === 'byo' && isCarrierMeter(meter) && !hasRows) return 'carrier_billed';
  return plan.meters[meter].billing;
}

/** The period's meters (all nine, registry order) and its estimate. */
export function ratePeriod(input: RatingInput): RatedPeriod {
  const { plan, telephonyMode: mode, totals } = input;
  const unpriced: Meter[] = [];
  let usage = new D(0);
  let minutesAmount: number | null = null;
  let callFees: number | null = null;
  let tier: VolumeTier | null = null;
  const meters = METERS.map((meter): MeterUsage => {
    const total = totals[meter];
    const billing = billingClassOf(plan, meter, mode, Boolean(total));
    // A managed (or mixed) tenant with no calls has used 0 minutes: never null.
    const zeroMinutes = meter === 'telephony_minutes' && !total && (mode === 'managed' || mode === 'mixed');
    const quantity = total ? new D(total.quantity) : zeroMinutes ? new D(0) : null;
    const base: MeterUsage = {
      meter,
      billing,
      quantity: quantity ? decimalString(quantity) : null,
      event_count: total ? total.event_count : zeroMinutes ? 0 : null,
      rated_amount_minor: null,
      included_quantity: null,
      overage_quantity: null,
    };
    if (billing === 'bundled') return { ...base, rated_amount_minor: quantity ? 0 : null };
    if (billing !== 'billed') return base;
    const price = plan.meters[meter];
    const included = new D(price.included_quantity ?? 0);
    const q = quantity ?? new D(0);
    const overage = Decimal.max(0, q.minus(included)) as Dec;
    const shown = { ...base, included_quantity: decimalString(included), overage_quantity: quantity ? decimalString(overage) : null };
    if (meter === 'telephony_minutes') {
      const rated = minuteTier(plan.minute_tiers, overage);
      tier = rated.tier;
      minutesAmount = minorInt(rated.spend);
      callFees = minorInt(new D(plan.call_fee_minor).times(total?.event_count ?? 0));
      return { ...shown, rated_amount_minor: quantity ? minutesAmount : null };
    }
    if (price.unit_price_minor === null) {
      unpriced.push(meter);
      return shown;
    }
    const amount = minorInt(overage.times(price.unit_price_minor));
    usage = usage.plus(amount);
    return { ...shown, rated_amount_minor: quantity ? amount : null };
  });
  const usageAmount = usage.toNumber();
  const excluded: ExcludedUsageType[] = [];
  if (mode === 'byo' || mode === 'mixed') excluded.push('byo_carrier_usage');
  if (input.hadSandboxUsage) excluded.push('separately_settled_prepaid_test_calls');
  const ratedTotal = usageAmount + (minutesAmount ?? 0) + (callFees ?? 0);
  return {
    mode,
    meters,
    rated_total_minor: ratedTotal,
    estimate: {
      period_start: input.periodStart.toISOString(),
      period_end: input.periodEnd.toISOString(),
      base_price_minor: plan.base_price_minor,
      usage_amount_minor: usageAmount,
      total_amount_minor: plan.base_price_minor + ratedTotal,
      minutes_amount_minor: minutesAmount,
      call_fees_amount_minor: callFees,
      volume_tier: tier,
      unpriced_meters: unpriced,
      excluded_usage_types: excluded,
    },
  };
}

/** Subtracts `part` from `whole` per meter (the period up to an instant, from its running totals and a day's). */
export function minusTotals(whole: MeterTotals, part: MeterTotals): MeterTotals {
  const out: MeterTotals = {};
  for (const meter of METERS) {
    const w = whole[meter];
    if (!w) continue;
    const p = part[meter];
    const count = w.event_count - (p?.event_count ?? 0);
    if (count <= 0) continue;
    out[meter] = { quantity: decimalString(new D(w.quantity).minus(p?.quantity ?? 0)), event_count: count };
  }
  return out;
}
