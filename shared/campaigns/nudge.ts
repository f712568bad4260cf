/**
 * Refilling a freed slot at once (see docs/decisions/campaigns.md). Launches run in the scheduler tick (once a
 * minute on AWS), so without a nudge a campaign dials at most `concurrency_cap` attempts a
 * minute and a slot freed by an attempt's end stays empty until the next tick. After the
 * terminal transition of a campaign call COMMITTED (SQS is not part of the transaction), its
 * sender puts a `campaign.launch` message on the call-dispatch queue; the dispatch worker runs
 * the campaign's launch step (driver.ts launchNow). Best effort: a lost message only means
 * the next tick launches instead.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { env } from '../config.js';
import { logger } from '../observability.js';
import { sqs } from '../queues/client.js';
import { queues } from '../queues/definitions.js';
import type { CampaignLaunchMessage } from '../schemas/messages.js';

/** After an attempt's terminal transition committed: nothing for a call outside a campaign. */
export async function nudgeCampaign(call: { tenant_id: string; campaign_id?: string | null }): Promise<void> {
  if (!call.campaign_id) return;
  const message: CampaignLaunchMessage = { type: 'campaign.launch', tenant_id: call.tenant_id, campaign_id: call.campaign_id };
  try {
    await sqs().send(new SendMessageCommand({ QueueUrl: env.queueUrl(queues.callDispatch.envVar), MessageBody: JSON.stringify(message) }));
  } catch (err) {
    logger.warn('campaign nudge failed; the next tick launches', { campaign_id: call.campaign_id, error: (err as Error)?.message });
  }
}
