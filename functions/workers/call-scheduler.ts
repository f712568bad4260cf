import { runDispatchTick } from '../../shared/calls/scheduler.js';
import { now } from '../../shared/clock.js';
import { logger } from '../../shared/observability.js';

/**
 * Call scheduler (EventBridge, every minute): sends the dispatch message of every deferred
 * call now due, and fails calls stuck in dialing without a carrier id (dispatch_unknown).
 * shared/calls/scheduler.ts holds the logic; the local runtime runs the same tick on an interval.
 */
export const handler = async (): Promise<{ sent: number; reconciled: number }> => {
  const result = await runDispatchTick(now());
  logger.info('call scheduler tick', result);
  return result;
};
