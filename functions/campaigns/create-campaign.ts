import { buildCampaign } from '../../shared/campaigns/create.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { presentCampaign, writeNewCampaign } from '../../shared/repositories/campaigns.js';
import { campaignCreateRequest, campaignSummary } from '../../shared/schemas/campaigns.js';

/**
 * POST /v1/campaigns (optional Idempotency-Key) — 201 with the CampaignSummary in `draft`.
 * References are checked (shared/campaigns/create.ts); the campaign and the stored
 * idempotency result are one transaction.
 */
export const handler = defineRoute(
  'createCampaign',
  bearer,
  { body: campaignCreateRequest, responses: { 201: campaignSummary } },
  async ({ principal, body, idempotency }) => {
    const campaign = await buildCampaign(principal.tenantId, body);
    const result = created(presentCampaign(campaign as unknown as Record<string, unknown>));
    await writeNewCampaign(campaign, idempotency ? [idempotency.commitItem(result)] : []);
    return { ...result, idempotencyCommitted: Boolean(idempotency) };
  },
);
