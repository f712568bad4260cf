/**
 * Scheduling a sandbox timeline step. SQS delays whole seconds up to 900, so a step is sent
 * with the whole seconds until it is due (at most 900) and the worker waits out the rest
 * (under a second, or re-schedules when more remains: a long step or a far-off due time).
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { env } from '../config.js';
import { sqs } from '../queues/client.js';
import { queues } from '../queues/definitions.js';
import type { SandboxTimelineMessage } from '../schemas/queue-bodies.js';

export const MAX_DELAY_SECONDS = 900;

/** Whole seconds to delay a message due at `dueAt` (never more than SQS allows). */
export const delaySecondsFor = (dueAt: number, now: number): number => Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.floor((dueAt - now) / 1000)));

export async function scheduleStep(kind: SandboxTimelineMessage['kind'], sid: string, step: number, dueAt: number, now = Date.now()): Promise<void> {
  const message: SandboxTimelineMessage = { type: 'sandbox.timeline', kind, sid, step, due_at: dueAt };
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: env.queueUrl(queues.sandboxTimeline.envVar),
      MessageBody: JSON.stringify(message),
      DelaySeconds: delaySecondsFor(dueAt, now),
    }),
  );
}
