/**
 * What follows a call's terminal transition, once it COMMITTED (SQS is not part of a DynamoDB
 * transaction): ask for its analysis and nudge its campaign so the freed slot is refilled now
 * rather than at the next tick. Both sends are best effort and log their own failures: the
 * ending transaction wrote the analysis watch (the re-send safety net), and a lost nudge only
 * means the next tick launches. Every ending path calls this and nothing else.
 */

import { requestAnalysis } from './analysis-queue.js';
import { nudgeCampaign } from './dispatch-queue.js';

export interface EndedCall {
  tenant_id: string;
  id: string;
  campaign_id?: string | null;
}

/**
 * `nudge: false` when the campaign is known not to launch again (its cancel sweep ends its
 * calls by the hundred: a nudge each would be that many messages for nothing).
 */
export async function callEnded(call: EndedCall, opts: { nudge?: boolean } = {}): Promise<void> {
  await Promise.all([requestAnalysis(call.tenant_id, call.id), opts.nudge === false ? undefined : nudgeCampaign(call)]);
}

/** A campaign slot held past the call's ending (its carrier leg still played) was freed: refill it now. */
export async function campaignSlotFreed(call: EndedCall): Promise<void> {
  await nudgeCampaign(call);
}
