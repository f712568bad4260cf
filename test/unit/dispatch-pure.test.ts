/** The pure parts of queuing and dispatch: cps limiter math, what the carrier is asked, the dial counter's update, keys, the clock hook. */
import { afterEach, describe, expect, it } from 'vitest';
import { cpsOf, DEFAULT_CPS, minimumSpanSeconds, msUntilNextSecond, secondOf } from '../../shared/calls/cps-limiter.js';
import { dialCountUpdate, placeCallInput } from '../../shared/calls/dispatch.js';
import { clockOffsetMs, now, setClockOffsetForTests } from '../../shared/clock.js';
import { dispatchKeys } from '../../shared/db/keys.js';

process.env.TABLE_NAME ??= 'unit-table';

afterEach(() => {
  delete process.env.AWS_LAMBDA_FUNCTION_NAME;
  setClockOffsetForTests(0);
});

describe('cps limiter math', () => {
  it('counts dials per epoch second and waits to the top of the next one', () => {
    expect(secondOf(1_700_000_000_999)).toBe(1_700_000_000);
    expect(secondOf(1_700_000_001_000)).toBe(1_700_000_001);
    expect(msUntilNextSecond(1_700_000_000_000)).toBe(1000);
    expect(msUntilNextSecond(1_700_000_000_250)).toBe(750);
    expect(msUntilNextSecond(1_700_000_000_999)).toBe(1);
  });
  it('takes the account’s limit, or one call a second when the carrier never said', () => {
    expect(cpsOf(10)).toBe(10);
    expect(cpsOf(null)).toBe(DEFAULT_CPS);
    expect(cpsOf(0)).toBe(DEFAULT_CPS);
    expect(cpsOf(2.7)).toBe(2);
  });
  it('the least span of n dials at c per second is ⌈n/c⌉ − 1 seconds (500 at 10 → 49 s)', () => {
    expect(minimumSpanSeconds(500, 10)).toBe(49);
    expect(minimumSpanSeconds(6, 2)).toBe(2);
    expect(minimumSpanSeconds(1, 10)).toBe(0);
    expect(minimumSpanSeconds(0, 10)).toBe(0);
  });
});

describe('what the carrier is asked', () => {
  it('our outbound TwiML and status URLs with the call id, machine detection, 30 s and all four events', () => {
    expect(placeCallInput({ id: 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA', to_e164: '+12125550100' }, '+12125550111', 'https://api.example.com')).toEqual({
      to: '+12125550100',
      from: '+12125550111',
      twimlUrl: 'https://api.example.com/carrier/twilio/outbound?call_id=cal_01JAAAAAAAAAAAAAAAAAAAAAAA',
      statusCallbackUrl: 'https://api.example.com/carrier/twilio/status?call_id=cal_01JAAAAAAAAAAAAAAAAAAAAAAA',
      statusCallbackEvents: ['initiated', 'ringing', 'answered', 'completed'],
      machineDetection: 'Enable',
      timeoutSeconds: 30,
    });
  });
});

describe('the dial counter', () => {
  const at = new Date('2026-11-18T15:00:00.000Z');
  it('same UTC day: +1 only under the cap', () => {
    const u = dialCountUpdate('ten_1', { id: 'pnb_1', dials_day: '2026-11-18' }, at).Update!;
    expect(u.UpdateExpression).toBe('SET dials_count = dials_count + :one');
    expect(u.ConditionExpression).toContain('dials_count < daily_dial_cap');
    expect(u.ExpressionAttributeValues).toMatchObject({ ':day': '2026-11-18', ':active': 'active' });
  });
  it('a new UTC day: the count starts again at 1', () => {
    const u = dialCountUpdate('ten_1', { id: 'pnb_1', dials_day: '2026-11-17' }, at).Update!;
    expect(u.UpdateExpression).toBe('SET dials_day = :day, dials_count = :one');
    expect(u.ConditionExpression).toContain('dials_day <> :day');
  });
});

describe('dispatch keys', () => {
  it('due and dialing items sort by instant within a shard; the scheduler bound covers every item at or before now', () => {
    const due = dispatchKeys.due('2026-11-18T15:00:00.000Z', 'ten_1', 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA');
    expect(due.pk).toMatch(/^PLATFORM#DUE#[0-3]$/);
    expect(due.sk).toBe('2026-11-18T15:00:00.000Z#ten_1#cal_01JAAAAAAAAAAAAAAAAAAAAAAA');
    expect(due.sk < '2026-11-18T15:00:00.000Z#~').toBe(true);
    expect(due.sk < '2026-11-18T14:59:59.999Z#~').toBe(false);
    expect(dispatchKeys.dialing('2026-11-18T15:00:00.000Z', 'ten_1', 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA').pk).toBe(due.pk.replace('DUE', 'DIALING'));
  });
});

describe('the clock hook', () => {
  it('shifts now() off Lambda and is refused on Lambda', () => {
    setClockOffsetForTests(3_600_000);
    expect(clockOffsetMs()).toBe(3_600_000);
    expect(now().getTime() - Date.now()).toBeGreaterThan(3_599_000);
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'fn';
    expect(() => setClockOffsetForTests(0)).toThrow(/refused on Lambda/);
  });
});
