import { bearer } from '../../shared/http/auth/bearer.js';
import { defineListRoute } from '../../shared/http/list-route.js';
import { ok } from '../../shared/http/responses.js';
import { CAMPAIGN_STATUSES } from '../../shared/policy/campaigns/rules.js';
import { listCampaigns } from '../../shared/repositories/campaigns.js';
import { campaignSummary } from '../../shared/schemas/campaigns.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';

/** GET /v1/campaigns — newest first; filters status, created_at. */
export const handler = defineListRoute(
  'listCampaigns',
  bearer,
  {
    query: pageQuery,
    filters: { status: { kind: 'enum', values: CAMPAIGN_STATUSES }, created_at: { kind: 'datetime' } },
    responses: { 200: cursorPage(campaignSummary) },
  },
  async ({ principal, query, filters }) => ok(await listCampaigns(principal.tenantId, { ...query, filters })),
);
