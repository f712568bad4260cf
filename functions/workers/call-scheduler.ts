import { now } from '../../shared/clock.js';
import { logger } from '../../shared/observability.js';
import { runDispatchTick, type TickResult } from '../../shared/tick/dispatch-tick.js';

/**
 * Call scheduler (EventBridge, every minute): sends the dispatch message of every deferred
 * call now due, fails calls stuck in dialing without a carrier id (dispatch_unknown), asks
 * the carrier about calls whose end it never reported and closes them, and re-sends the
 * analysis request of ended calls still unscored. shared/calls/scheduler.ts holds the
 * logic; the local runtime runs the same tick on an interval.
 */
export const handler = async (): Promise<TickResult> => {
  const result = await runDispatchTick(now());
  logger.info('call scheduler tick', { ...result });
  return result;
};
