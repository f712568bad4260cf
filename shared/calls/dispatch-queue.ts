/** Sending call-dispatch messages (POST /v1/calls for an allowed call, the scheduler for due ones). */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { env } from '../config.js';
import { sqs } from '../queues/client.js';
import { queues } from '../queues/definitions.js';
import type { CallDispatchMessage } from '../schemas/messages.js';

export async function sendDispatch(target: { tenant_id: string; attempt_id: string; call_id: string }, delaySeconds = 0): Promise<void> {
  const message: CallDispatchMessage = { type: 'call.dispatch', tenant_id: target.tenant_id, attempt_id: target.attempt_id, call_id: target.call_id };
  await sqs().send(new SendMessageCommand({ QueueUrl: env.queueUrl(queues.callDispatch.envVar), MessageBody: JSON.stringify(message), DelaySeconds: Math.max(0, Math.min(900, Math.floor(delaySeconds))) }));
}
