import { logger } from '../../shared/observability.js';
import { webhookDeliveryMessage } from '../../shared/schemas/messages.js';
import { defineWorker } from '../../shared/workers/define-worker.js';

/**
 * Webhook-delivery worker. Wired end to end here (parse, validate, log, acknowledge or
 * fail); signing and the delivery ledger arrive with the webhooks issue.
 */
export const handler = defineWorker('webhook-delivery', webhookDeliveryMessage, async (message) => {
  logger.info('webhook delivery received', { tenant_id: message.tenant_id, event_id: message.event_id });
});
