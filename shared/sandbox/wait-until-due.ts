/**
 * A timeline message arrives up to a second early (SQS delays whole seconds) or much
 * earlier than its step when the step is more than 900 s away: wait out a short remainder,
 * re-schedule a long one.
 */
import type { SandboxTimelineMessage } from '../schemas/queue-bodies.js';
import { scheduleStep } from './timeline-queue.js';

/** Longest the worker waits in-process; more than this is sent back to the queue. */
export const MAX_WAIT_MS = 1_500;

/** True when the step is due now (after waiting); false when it was re-scheduled. */
export async function waitUntilDue(kind: SandboxTimelineMessage['kind'], message: SandboxTimelineMessage, dueAt: number): Promise<boolean> {
  const remaining = dueAt - Date.now();
  if (remaining > MAX_WAIT_MS) {
    await scheduleStep(kind, message.sid, message.step, dueAt);
    return false;
  }
  if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
  return true;
}
