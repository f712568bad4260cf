import { usageSummary as summarize } from '../../shared/billing/usage-summary.js';
import { now } from '../../shared/clock.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { periodOf } from '../../shared/policy/billing/period.js';
import { ESTIMATE_DISCLAIMER, usageSummary, usageSummaryQuery } from '../../shared/schemas/billing.js';

/**
 * GET /v1/usage/summary?period=YYYY-MM — the period's nine meters (registry order) and its
 * billing_period_estimate, from the running totals the ledger keeps (never a sum of rows).
 */
export const handler = defineRoute(
  'getUsageSummary',
  bearer,
  {
    query: usageSummaryQuery,
    responses: { 200: usageSummary },
    description: `The current month (UTC) when period is absent. The estimate: ${ESTIMATE_DISCLAIMER}`,
  },
  async ({ principal, query }) => ok(await summarize(principal.tenantId, query.period ?? periodOf(now()))),
);
