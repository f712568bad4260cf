/**
 * Powertools logger, one instance per container (metrics are the route factory's own,
 * shared/http/route-core.ts: workers and jobs emit none and bundle none). Every log line carries the
 * request id and, once authenticated, the tenant id (appended by the route factory).
 * Tracing: Lambda active tracing (set in the stack) records every invocation; the
 * Powertools Tracer is not bundled because it alone would push every function past the
 * 500 KB bundle budget (see docs/decisions/infra-and-security.md).
 *
 * On Lambda a container runs one invocation at a time, so one logger's keys and context are
 * that invocation's. The local runtime runs every handler in one process, concurrently: it
 * wraps each invocation in `withInvocationLogger`, and `logger` then writes through that
 * invocation's own child (its function name, route, request id and appended keys), never
 * through a neighbour's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';

/** The service every log line and metric is tagged with. */
export const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'voice-control';

const containerLogger = new Logger({ serviceName });
const invocationLoggers = new AsyncLocalStorage<Logger>();

/** The current invocation's logger when one was entered, else the container's. */
export const logger: Logger = new Proxy(containerLogger, {
  get(target, property) {
    const current = invocationLoggers.getStore() ?? target;
    const value: unknown = Reflect.get(current, property, current);
    return typeof value === 'function' ? value.bind(current) : value;
  },
});

/** Runs `fn` (and everything it starts) with a fresh child logger of its own, tagged with the invocation's Lambda context when given. */
export function withInvocationLogger<T>(fn: () => T, context?: Context): T {
  const own = containerLogger.createChild();
  if (context) own.addContext(context);
  return invocationLoggers.run(own, fn);
}
