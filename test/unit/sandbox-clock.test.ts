import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxClock } from '../../infra/local/sandbox-clock.js';
import { clockOffsetMs, now, setClockOffsetForTests } from '../../shared/clock.js';

const event = (method: string, body?: unknown) =>
  ({ requestContext: { http: { method } }, body: body === undefined ? undefined : JSON.stringify(body) }) as unknown as APIGatewayProxyEventV2;
const json = (r: { body?: string }) => JSON.parse(r.body ?? '{}') as Record<string, unknown>;

afterEach(() => setClockOffsetForTests(0));

describe('the local sandbox clock', () => {
  it('moves the platform clock forward to the instant asked, logs it loudly, and reset puts it back', async () => {
    const lines: string[] = [];
    const clock = sandboxClock((l) => lines.push(l));
    const target = new Date(Date.now() + 5 * 3_600_000).toISOString();
    const moved = await clock.handler(event('POST', { advance_to: target }));
    expect(moved.statusCode).toBe(200);
    expect(json(moved)).toMatchObject({ object: 'sandbox_clock', advanced: true });
    expect(Math.abs(now().getTime() - Date.parse(target))).toBeLessThan(1_000);
    expect(lines.join('\n')).toContain('SANDBOX CLOCK MOVED');
    expect(json(await clock.handler(event('GET')))).toMatchObject({ offset_ms: clockOffsetMs(), advanced: false });
    clock.reset();
    expect(clockOffsetMs()).toBe(0);
  });

  it('never goes back, and refuses what is not a date-time with an offset (422, not 500)', async () => {
    const clock = sandboxClock(() => {});
    const past = await clock.handler(event('POST', { advance_to: '2020-01-01T00:00:00Z' }));
    expect(json(past)).toMatchObject({ advanced: false, offset_ms: 0 });
    for (const bad of [{ advance_to: 'tomorrow' }, { advance_to: '2030-01-01T00:00:00' }, {}, 'x']) {
      const res = await clock.handler(event('POST', bad));
      expect(res.statusCode).toBe(422);
      expect(json(res).detail).toEqual([expect.objectContaining({ loc: ['body', 'advance_to'] })]);
    }
    expect(clockOffsetMs()).toBe(0);
  });
});
