/**
 * The campaign's status actions (see docs/decisions/campaigns.md), each one conditional move with its event:
 *   start  draft → scrubbing: pins the agent's latest published version, snapshots the
 *          pool's numbers, opens a scrub run (scrub_run_id, zero counts), creates the
 *          counter shards and marks the campaign for the driver (the scrub itself runs in the scheduler tick);
 *   pause  running → paused (no new launches; the dispatcher dials none of its attempts);
 *   resume paused → running;
 *   cancel draft/scrubbing/ready/running/paused → cancelled, for good; the driver's sweep
 *          disposes what is not dialling yet.
 */

import { now } from '../clock.js';
import { conflict, DomainError } from '../errors.js';
import { newId } from '../ids.js';
import type { CampaignAction } from '../policy/campaigns/rules.js';
import { latestPublishedVersion } from '../repositories/agents.js';
import { activeMarkerPut, type CampaignRecord, CampaignStatusConflict, counterShardPuts, getCampaign, moveCampaign } from '../repositories/campaigns.js';
import { getPool } from '../repositories/number-pools.js';

const statusConflict = (action: string, status: string) =>
  new DomainError('conflict', 'campaign_status_conflict', `A ${status} campaign cannot be ${action}`, { status });

async function move(tenantId: string, campaignId: string, action: CampaignAction, to: CampaignRecord['status'], opts: Parameters<typeof moveCampaign>[5] = {}) {
  try {
    return await moveCampaign(tenantId, campaignId, action, to, now(), opts);
  } catch (err) {
    if (err instanceof CampaignStatusConflict)
      throw statusConflict(`${action === 'cancel' ? 'cancelled' : action === 'start' ? 'started' : `${action}d`}`, err.status);
    throw err;
  }
}

export async function startCampaign(tenantId: string, campaignId: string): Promise<CampaignRecord | undefined> {
  const c = await getCampaign(tenantId, campaignId);
  if (!c) return undefined;
  if (c.status !== 'draft') throw statusConflict('started', c.status);
  const [version, pool] = await Promise.all([latestPublishedVersion(tenantId, c.agent_definition_id), getPool(tenantId, c.number_pool_id)]);
  if (!version) throw conflict('agent_not_published', 'The agent has no published version');
  if (!pool) throw conflict('number_pool_gone', 'The number pool no longer exists');
  // Its counters go on shards from now on (docs/capacity.md), created with the move.
  const shards = counterShardPuts(c, 'scrubbing');
  return move(tenantId, campaignId, 'start', 'scrubbing', {
    sets: {
      counter_shards: shards.shards,
      agent_version_id: version.id,
      subject: version.compliance_profile?.subject ?? null,
      pool_number_ids: pool.phone_number_ids,
      scrub_run_id: newId('scr'),
      scrub: { allowed: 0, deferred: 0, blocked: 0, by_disposition: {}, by_reason: {} },
      scrub_cursor: null,
      scrub_complete: false,
    },
    extra: () => [activeMarkerPut(tenantId, campaignId), ...shards.items],
  });
}

export const pauseCampaign = (tenantId: string, campaignId: string) => move(tenantId, campaignId, 'pause', 'paused');
export const resumeCampaign = (tenantId: string, campaignId: string) =>
  move(tenantId, campaignId, 'resume', 'running', { extra: () => [activeMarkerPut(tenantId, campaignId)] });
export const cancelCampaign = (tenantId: string, campaignId: string) =>
  move(tenantId, campaignId, 'cancel', 'cancelled', { extra: (c) => (c.status === 'draft' ? [] : [activeMarkerPut(tenantId, campaignId)]) });
