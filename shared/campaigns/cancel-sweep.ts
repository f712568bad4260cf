/**
 * After a cancel (see docs/decisions/campaigns.md): every attempt not yet dialling is disposed in bounded time — the
 * next scheduler tick (a minute on AWS, SCHEDULER_TICK_MS locally). Contacts still waiting in
 * the queue: the queue item deleted, the row disposed with sub_code campaign_cancelled, the
 * campaign's `done` + 1 (one transaction each). Attempts still `scheduled`: the call's own
 * cancel transition (campaign_cancelled), which updates the row and counters like any end.
 * Calls already dialling finish with their real outcome. The dispatcher's transition checks
 * the campaign's status, so nothing is dialled once the cancel has committed.
 * Returns true when nothing is left (no queue item, nothing in flight).
 */

import { callEnded } from '../calls/call-ended.js';
import { now } from '../clock.js';
import { tryTransactWrite } from '../db/transact-write.js';
import { cancelCampaignCall } from '../repositories/call-lifecycle.js';
import { CAMPAIGN_CANCELLED } from '../repositories/campaign-attempt-items.js';
import { allQueued, type QueuedContact, rowDisposeQueuedItems, scheduledAttemptCalls } from '../repositories/campaign-outcomes.js';
import { type CampaignRecord, campaignDoneItem, getCampaign } from '../repositories/campaigns.js';

/** Queued contacts disposed per tick (a 10,000-contact campaign is swept in a few ticks; the tick's time stays bounded). */
const SWEEP_BATCH = 2000;
const SWEEP_PARALLEL = 20;

/** One transaction: the queue item gone, the row disposed, `done` + 1 — or nothing, when another sweep got there first. */
const disposeQueued = (c: CampaignRecord, q: QueuedContact, at: string) =>
  tryTransactWrite([...rowDisposeQueuedItems(c.tenant_id, c.id, q, CAMPAIGN_CANCELLED, at), campaignDoneItem(c.tenant_id, c.id)]);

export async function sweepCancelled(c: CampaignRecord): Promise<boolean> {
  const instant = now();
  const at = instant.toISOString();
  const queued = (await allQueued(c.tenant_id, c.id)).slice(0, SWEEP_BATCH);
  for (let i = 0; i < queued.length; i += SWEEP_PARALLEL) await Promise.all(queued.slice(i, i + SWEEP_PARALLEL).map((q) => disposeQueued(c, q, at)));
  const scheduled = await scheduledAttemptCalls(c.tenant_id, c.id);
  for (let i = 0; i < scheduled.length; i += SWEEP_PARALLEL) {
    await Promise.all(
      scheduled.slice(i, i + SWEEP_PARALLEL).map(async (callId) => {
        const result = await cancelCampaignCall(c.tenant_id, callId, instant);
        if (result?.ended) await callEnded(result.call, { nudge: false }); // the campaign is cancelled: nothing to launch
      }),
    );
  }
  const left = await allQueued(c.tenant_id, c.id);
  const fresh = await getCampaign(c.tenant_id, c.id);
  return left.length === 0 && (fresh?.in_flight ?? 0) <= 0;
}
