import { startCampaign } from '../../shared/campaigns/actions.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { presentCampaign } from '../../shared/repositories/campaigns.js';
import { campaignPath, campaignStatusConflict, campaignSummary } from '../../shared/schemas/campaigns.js';

/** POST /v1/campaigns/{campaign_id}/start — see shared/campaigns/actions.ts; a status that does not permit it → 409 campaign_status_conflict. */
export const handler = defineRoute(
  'startCampaign',
  bearer,
  { path: campaignPath, responses: { 200: campaignSummary, 409: campaignStatusConflict } },
  async ({ principal, path }) => {
    const c = await startCampaign(principal.tenantId, path.campaign_id);
    if (!c) throw notFound('Campaign');
    return ok(presentCampaign(c as unknown as Record<string, unknown>));
  },
);
