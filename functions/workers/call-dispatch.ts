import { logger } from '../../shared/observability.js';
import { callDispatchMessage } from '../../shared/schemas/messages.js';
import { defineWorker } from '../../shared/workers/define-worker.js';

/**
 * Call-dispatch worker. This issue wires the queue end to end (parse, validate, log,
 * acknowledge or fail); the dial itself arrives with the calls issue, behind a
 * conditional state transition so a redelivered message can never dial twice.
 */
export const handler = defineWorker('call-dispatch', callDispatchMessage, async (message) => {
  logger.info('call dispatch received', { tenant_id: message.tenant_id, attempt_id: message.attempt_id });
});
