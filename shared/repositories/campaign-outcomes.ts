/**
 * A campaign's per-contact rows (CampaignOutcomeSummary), in contact order from the
 * campaign's own partition (`TENANT#<t>#CAMPAIGN#<cmp>`, `begins_with(sk, 'CONTACT#')`): a
 * page reads on from its cursor with the declared filters (disposition, has_outcome,
 * sub_code), never the whole campaign again.
 */
import { campaignKeys, campaignPartition } from '../db/keys.js';
import type { FilterCondition } from '../pagination/filters.js';
import { queryPage } from '../pagination/page.js';
import type { CampaignOutcomeSummary } from '../schemas/campaigns.js';

const presentOutcomeRow = (r: Record<string, unknown>): CampaignOutcomeSummary => ({
  contact_id: r.contact_id as string,
  contact_phone: r.contact_phone as string,
  attempts: (r.attempts as number) ?? 0,
  latest_attempt_id: r.latest_attempt_id as string,
  latest_attempt_state: r.latest_attempt_state as CampaignOutcomeSummary['latest_attempt_state'],
  disposition: (r.disposition as CampaignOutcomeSummary['disposition']) ?? null,
  sub_code: (r.sub_code as string | null) ?? null,
  call_id: (r.call_id as string | null) ?? null,
  outcome: (r.outcome as CampaignOutcomeSummary['outcome']) ?? null,
  last_activity_at: r.last_activity_at as string,
});

export function listOutcomes(tenantId: string, campaignId: string, opts: { limit: number; cursor?: string; filters: FilterCondition[] }) {
  return queryPage({
    tenantId,
    scope: `campaign_outcomes#${campaignId}`,
    partition: campaignPartition(tenantId, campaignId),
    skPrefix: campaignKeys.rowsPrefix,
    newestFirst: false,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters,
    map: presentOutcomeRow,
  });
}
