import { playCallStep } from '../../shared/sandbox/call-player.js';
import { playMessageStep } from '../../shared/sandbox/message-player.js';
import { sandboxTimelineMessage } from '../../shared/schemas/queue-bodies.js';
import { defineWorker } from '../../shared/workers/define-worker.js';

/**
 * The sandbox carrier's clock: each message is one step of a sandbox call or SMS (a status
 * callback, an answer that fetches TwiML, a hang-up). Steps are claimed conditionally, so
 * a redelivered message never posts twice; each step schedules the next.
 */
export const handler = defineWorker('sandbox-timeline', sandboxTimelineMessage, async (message) => {
  await (message.kind === 'call' ? playCallStep(message) : playMessageStep(message));
});
