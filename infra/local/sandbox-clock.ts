/**
 * The local stack's sandbox clock (like Stripe's test clocks): `POST /local/sandbox-clock`
 * `{"advance_to": "<RFC 3339>"}` moves the platform's now() forward to that instant, so a call
 * deferred by the calling-time rules is judged and dialled as it would be then. Only ever
 * forward, only off Lambda (shared/clock.ts refuses it there), never a manifest route: the
 * deployed API has no such thing. `GET` reads it. Every move is logged loudly, because from
 * then on every time rule of this process runs ahead of the wall clock.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { clockOffsetMs, now, setClockOffsetForTests } from '../../shared/clock.js';
import type { ServedRoute } from './server.js';

export const SANDBOX_CLOCK_PATH = '/local/sandbox-clock';

export const sandboxClockRoutes: readonly ServedRoute[] = [
  { id: 'localSandboxClockRead', method: 'GET', path: SANDBOX_CLOCK_PATH, handler: 'infra/local/sandbox-clock' },
  { id: 'localSandboxClockAdvance', method: 'POST', path: SANDBOX_CLOCK_PATH, handler: 'infra/local/sandbox-clock' },
];

const json = (statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const state = (advanced: boolean) => ({ object: 'sandbox_clock', now: now().toISOString(), offset_ms: clockOffsetMs(), advanced });

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** The route's handler, and `reset` (the stack's stop puts a clock it moved back). */
export function sandboxClock(log: (line: string) => void) {
  let moved = false;
  const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
    if (event.requestContext.http.method === 'GET') return json(200, state(false));
    let target: unknown;
    try {
      target = (JSON.parse(event.body ?? '{}') as { advance_to?: unknown }).advance_to;
    } catch {
      target = undefined;
    }
    if (typeof target !== 'string' || !RFC3339.test(target) || Number.isNaN(Date.parse(target))) {
      return json(422, { detail: [{ loc: ['body', 'advance_to'], msg: 'an RFC 3339 date-time with an offset', type: 'value_error' }] });
    }
    const wanted = Date.parse(target);
    // Forward only: a clock that went back would let a rule see the same instant twice.
    if (wanted <= now().getTime()) return json(200, state(false));
    setClockOffsetForTests(wanted - Date.now());
    moved = true;
    log(
      `SANDBOX CLOCK MOVED: now() is ${new Date(wanted).toISOString()}, ${Math.round(clockOffsetMs() / 60_000)} min ahead of the wall clock, for every time rule of this local stack until it stops`,
    );
    return json(200, state(true));
  };
  const reset = () => {
    if (moved) setClockOffsetForTests(0);
    moved = false;
  };
  return { handler, reset };
}
