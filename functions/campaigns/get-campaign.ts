import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getCampaign, presentCampaign } from '../../shared/repositories/campaigns.js';
import { campaignPath, campaignSummary } from '../../shared/schemas/campaigns.js';

/** GET /v1/campaigns/{campaign_id} — the summary with its exact counters; another tenant's campaign is 404. */
export const handler = defineRoute('getCampaign', bearer, { path: campaignPath, responses: { 200: campaignSummary } }, async ({ principal, path }) => {
  const c = await getCampaign(principal.tenantId, path.campaign_id);
  if (!c) throw notFound('Campaign');
  return ok(presentCampaign(c as unknown as Record<string, unknown>));
});
