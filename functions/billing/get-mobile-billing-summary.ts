import { subscriptionHealth } from '../../shared/billing/subscription-health.js';
import { now } from '../../shared/clock.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { mobileSubscriptionHealth } from '../../shared/schemas/billing.js';

/** GET /v1/mobile/billing/summary (admin or manager; a member key is 403) — MobileSubscriptionHealth, no payment method or provider data. */
export const handler = defineRoute('getMobileBillingSummary', bearer, { responses: { 200: mobileSubscriptionHealth } }, async ({ principal }) =>
  ok(await subscriptionHealth(principal.tenantId, now())),
);
