/**
 * Asking for a call's analysis once it ended. Sent AFTER the terminal transition committed
 * (SQS is not part of a DynamoDB transaction). A send that fails is only logged here: the
 * terminal transition also wrote the call's analysis watch (shared/repositories/call-watches.ts),
 * and the scheduler re-sends the request of any call still unscored
 * ANALYSIS_RESEND_AFTER_MS after it ended (shared/calls/analysis-resend.ts). The worker is
 * idempotent (it stores an analysis only when none is stored), so a re-send is harmless
 * (docs/decisions/dispatch-and-carrier.md, "Analysis trigger" and "Nothing ends unfinished or unscored").
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { env } from '../config.js';
import { logger } from '../observability.js';
import { sqs } from '../queues/client.js';
import { queues } from '../queues/definitions.js';
import type { CallAnalysisMessage } from '../schemas/queue-bodies.js';

/**
 * Seconds the analysis waits after the call ended (SQS DelaySeconds, 0–900; default 5): the
 * voice runtime's last batch (outcome, hang-up) may arrive just after the carrier's final
 * callback, and the analysis should see it (shared/calls/analyze-call.ts settledDisposition).
 */
function analysisDelaySeconds(): number {
  const raw = process.env.ANALYSIS_DELAY_SECONDS;
  if (raw === undefined || !/^\d{1,3}$/.test(raw.trim())) return 5;
  return Math.min(900, Number(raw.trim()));
}

export async function requestAnalysis(tenantId: string, callId: string, delaySeconds = analysisDelaySeconds()): Promise<boolean> {
  const message: CallAnalysisMessage = { type: 'call.analyze', tenant_id: tenantId, call_id: callId };
  try {
    await sqs().send(
      new SendMessageCommand({ QueueUrl: env.queueUrl(queues.callAnalysis.envVar), MessageBody: JSON.stringify(message), DelaySeconds: delaySeconds }),
    );
    return true;
  } catch (err) {
    logger.error('call analysis request not sent', { tenant_id: tenantId, call_id: callId, error: (err as Error).name });
    return false;
  }
}
