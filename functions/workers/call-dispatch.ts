import { dispatchCall } from '../../shared/calls/dispatch.js';
import { launchNow } from '../../shared/campaigns/driver.js';
import { logger } from '../../shared/observability.js';
import { callDispatchQueueMessage } from '../../shared/schemas/queue-bodies.js';
import { defineWorker } from '../../shared/workers/define-worker.js';

/**
 * Call-dispatch worker: dials a scheduled, due call at most once (shared/calls/dispatch.ts).
 * A redelivered or duplicate message finds the call no longer scheduled and does nothing.
 * Errors before the dial transition are retried by SQS; nothing after it ever is.
 *
 * It also runs a campaign's launch step when an attempt's end freed a slot
 * (`campaign.launch`, shared/campaigns/nudge.ts): each launch is conditional, so a duplicate
 * message launches nothing twice.
 */
export const handler = defineWorker('call-dispatch', callDispatchQueueMessage, async (message) => {
  if (message.type === 'campaign.launch') {
    const launched = await launchNow(message.tenant_id, message.campaign_id);
    logger.info('campaign launch', { tenant_id: message.tenant_id, campaign_id: message.campaign_id, launched });
    return;
  }
  const outcome = await dispatchCall(message.tenant_id, message.call_id, { alongsideCommit: message.alongside_commit === true });
  logger.info('call dispatch', { tenant_id: message.tenant_id, attempt_id: message.attempt_id, call_id: message.call_id, outcome });
});
