import { dispatchCall } from '../../shared/calls/dispatch.js';
import { logger } from '../../shared/observability.js';
import { callDispatchMessage } from '../../shared/schemas/messages.js';
import { defineWorker } from '../../shared/workers/define-worker.js';

/**
 * Call-dispatch worker: dials a scheduled, due call at most once (shared/calls/dispatch.ts).
 * A redelivered or duplicate message finds the call no longer scheduled and does nothing.
 * Errors before the dial transition are retried by SQS; nothing after it ever is.
 */
export const handler = defineWorker('call-dispatch', callDispatchMessage, async (message) => {
  const outcome = await dispatchCall(message.tenant_id, message.call_id);
  logger.info('call dispatch', { tenant_id: message.tenant_id, attempt_id: message.attempt_id, call_id: message.call_id, outcome });
});
