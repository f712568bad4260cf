/**
 * The usage summary of a tenant's period (GET /v1/usage/summary; the mobile budget and the
 * invoice job use the same reads): the plan, the telephony mode and the period's running
 * totals (one Query of ≤ 144 total shards, whatever the ledger holds), rated by rating.ts.
 */
import { DomainError } from '../errors.js';
import { periodBounds } from '../policy/billing/period.js';
import type { Plan } from '../policy/billing/plans.js';
import { type RatedPeriod, ratePeriod } from '../policy/billing/rating.js';
import { getBillingAccount, getPlan, telephonyModeOfTenant } from '../repositories/billing.js';
import { readPeriodTotals } from '../repositories/usage-ledger.js';

export interface PeriodUsage {
  plan: Plan;
  rated: RatedPeriod;
  periodStart: Date;
  periodEnd: Date;
}

export async function periodUsage(tenantId: string, period: string): Promise<PeriodUsage> {
  const account = await getBillingAccount(tenantId);
  if (!account) throw new DomainError('not_found', 'not_found', 'Tenant not found');
  const [plan, mode, totals] = await Promise.all([getPlan(account.plan_id), telephonyModeOfTenant(tenantId), readPeriodTotals(tenantId, period)]);
  if (!plan) throw new Error(`plan ${account.plan_id} of tenant ${tenantId} is not seeded`);
  const { start, end } = periodBounds(period);
  const rated = ratePeriod({
    plan,
    telephonyMode: mode,
    totals: totals.billed,
    hadSandboxUsage: Object.keys(totals.sandbox).length > 0,
    periodStart: start,
    periodEnd: end,
  });
  return { plan, rated, periodStart: start, periodEnd: end };
}

export async function usageSummary(tenantId: string, period: string) {
  const { plan, rated, periodStart, periodEnd } = await periodUsage(tenantId, period);
  return {
    period,
    period_start: periodStart.toISOString(),
    period_end: periodEnd.toISOString(),
    telephony_mode: rated.mode,
    currency: plan.currency,
    rated_total_minor: rated.rated_total_minor,
    billing_period_estimate: rated.estimate,
    meters: rated.meters,
  };
}
