/**
 * Messages on the call-dispatch queue: a call to dial (POST /v1/calls for an allowed call, the
 * scheduler for due ones, a campaign's launch) and a campaign's launch step (an attempt's end
 * freed a slot: see docs/decisions/campaigns.md). Only their shapes (shared/schemas/queue-bodies.ts)
 * are shared: the call path never imports the campaigns that consume them.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { env } from '../config.js';
import { logger } from '../observability.js';
import { sqs } from '../queues/client.js';
import { queues } from '../queues/definitions.js';
import type { CallDispatchMessage, CampaignLaunchMessage } from '../schemas/queue-bodies.js';

const send = (message: CallDispatchMessage | CampaignLaunchMessage, delaySeconds = 0) =>
  sqs().send(
    new SendMessageCommand({
      QueueUrl: env.queueUrl(queues.callDispatch.envVar),
      MessageBody: JSON.stringify(message),
      DelaySeconds: Math.max(0, Math.min(900, Math.floor(delaySeconds))),
    }),
  );

/**
 * A call sent to dispatch as it is queued or launched has its due item this much later, not at
 * once: the item is the safety net for a lost message, and one that fired while the first
 * dispatcher still waits for its grant (the call is `scheduled` until its dial's transition)
 * sent a second dispatch, whose grant was spent on a call already taken — a hole in the
 * account's pacing for every call of a backlog. Longer than a dispatcher holds a call (its
 * grant within 20 s, its lane within 30 s).
 */
export const DISPATCH_SAFETY_NET_MS = 120_000;

/** `alongsideCommit`: sent while the transaction creating the call still runs (see CallDispatchMessage.alongside_commit). */
export async function sendDispatch(
  target: { tenant_id: string; attempt_id: string; call_id: string },
  delaySeconds = 0,
  opts: { alongsideCommit?: boolean } = {},
): Promise<void> {
  await send(
    {
      type: 'call.dispatch',
      tenant_id: target.tenant_id,
      attempt_id: target.attempt_id,
      call_id: target.call_id,
      ...(opts.alongsideCommit ? { alongside_commit: true as const } : {}),
    },
    delaySeconds,
  );
}

/**
 * Refilling a freed campaign slot at once: without it a slot freed by an attempt's end stays
 * empty until the next scheduler tick (once a minute on AWS). Sent after the terminal
 * transition COMMITTED (SQS is not part of a DynamoDB transaction); the dispatch worker runs
 * the campaign's launch step. Best effort: a lost message only means the next tick launches.
 * Nothing for a call outside a campaign.
 */
export async function nudgeCampaign(call: { tenant_id: string; campaign_id?: string | null }): Promise<void> {
  if (!call.campaign_id) return;
  try {
    await send({ type: 'campaign.launch', tenant_id: call.tenant_id, campaign_id: call.campaign_id });
  } catch (err) {
    logger.warn('campaign nudge failed; the next tick launches', { campaign_id: call.campaign_id, error: (err as Error)?.message });
  }
}
