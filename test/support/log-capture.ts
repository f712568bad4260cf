/**
 * Every log line a test file's handlers write, at DEBUG (the most an operator could turn on).
 * The test file imports `./debug-log-level.js` first (a bare import), so DEBUG is every
 * logger's initial level: a `logger.setLogLevel('DEBUG')` in a test would last one request.
 */
import { afterAll, beforeAll, vi } from 'vitest';

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
