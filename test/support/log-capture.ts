/**
 * Every log line a test file's handlers write, at DEBUG (the most an operator could turn on).
 *
 * Import this module FIRST in the test file. Powertools builds each logger's level from
 * POWERTOOLS_LOG_LEVEL when the module loads and, on every warm invocation, resets the level
 * to that initial one; a `logger.setLogLevel('DEBUG')` in a test therefore lasts one request
 * and the rest of the lines are never written. Setting the variable before the handlers load
 * makes DEBUG the initial level.
 */
import { afterAll, beforeAll, vi } from 'vitest';

process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';

export function captureLogs() {
  const written: string[] = [];
  beforeAll(() => {
    for (const stream of [process.stdout, process.stderr]) {
      vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown) => {
        written.push(String(chunk));
        return true;
      }) as typeof stream.write);
    }
  });
  afterAll(() => vi.restoreAllMocks());
  return {
    text: () => written.join(''),
    /** Access-log lines (one per request the factory served) for a route id. */
    requests: (routeId: string) => written.join('').split(`"route":"${routeId}"`).length - 1,
  };
}
