import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { defineListRoute } from '../../shared/http/list-route.js';
import { ok } from '../../shared/http/responses.js';
import { listOutcomes } from '../../shared/repositories/campaign-outcomes.js';
import { getCampaign } from '../../shared/repositories/campaigns.js';
import { DISPOSITIONS } from '../../shared/schemas/call-detail.js';
import { campaignOutcomeSummary, campaignPath } from '../../shared/schemas/campaigns.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';

/** GET /v1/campaigns/{campaign_id}/outcomes — one row per targeted contact, in contact order; filters disposition, has_outcome, sub_code. */
export const handler = defineListRoute(
  'listCampaignOutcomes',
  bearer,
  {
    path: campaignPath,
    query: pageQuery,
    filters: { disposition: { kind: 'enum', values: DISPOSITIONS }, has_outcome: { kind: 'boolean' }, sub_code: { kind: 'string' } },
    responses: { 200: cursorPage(campaignOutcomeSummary) },
  },
  async ({ principal, path, query, filters }) => {
    if (!(await getCampaign(principal.tenantId, path.campaign_id))) throw notFound('Campaign');
    return ok(await listOutcomes(principal.tenantId, path.campaign_id, { ...query, filters }));
  },
);
