/**
 * Asking for a call's analysis once it ended. Sent AFTER the terminal transition committed
 * (SQS is not part of a DynamoDB transaction). A send that fails is logged and the call
 * stays unanalysed until someone re-sends the message: the worker is idempotent (it stores
 * an analysis only when none is stored), so any safety net may re-send freely
 * (docs/decisions.md "Post-call analysis trigger").
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { env } from '../config.js';
import { logger } from '../observability.js';
import { sqs } from '../queues/client.js';
import { queues } from '../queues/definitions.js';
import type { CallAnalysisMessage } from '../schemas/messages.js';

export async function requestAnalysis(tenantId: string, callId: string): Promise<boolean> {
  const message: CallAnalysisMessage = { type: 'call.analyze', tenant_id: tenantId, call_id: callId };
  try {
    await sqs().send(new SendMessageCommand({ QueueUrl: env.queueUrl(queues.callAnalysis.envVar), MessageBody: JSON.stringify(message) }));
    return true;
  } catch (err) {
    logger.error('call analysis request not sent', { tenant_id: tenantId, call_id: callId, error: (err as Error).name });
    return false;
  }
}
