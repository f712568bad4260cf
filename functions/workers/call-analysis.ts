import { analyzeCall } from '../../shared/calls/analyze-call.js';
import { logger } from '../../shared/observability.js';
import { callAnalysisMessage } from '../../shared/schemas/queue-bodies.js';
import { defineWorker } from '../../shared/workers/define-worker.js';

/**
 * Call-analysis worker: scores a call that reached a terminal state against its pinned
 * version's rubric and stores the analysis once (shared/calls/analyze-call.ts). Redelivered
 * and re-sent messages are harmless; a failure is retried by SQS, then dead-lettered.
 */
export const handler = defineWorker('call-analysis', callAnalysisMessage, async (message) => {
  const outcome = await analyzeCall(message.tenant_id, message.call_id);
  logger.info('call analysis', { tenant_id: message.tenant_id, call_id: message.call_id, outcome });
});
