/** The pure parts of queuing and dispatch (the pacing rule: dial-pacing.test.ts): what the carrier is asked, the dial counter's update, keys, the clock hook. */
import { afterEach, describe, expect, it } from 'vitest';
import { dialCountUpdate, placeCallInput } from '../../shared/calls/dispatch.js';
import { clockOffsetMs, now, setClockOffsetForTests } from '../../shared/clock.js';
import { dispatchKeys } from '../../shared/db/keys.js';

process.env.TABLE_NAME ??= 'unit-table';

afterEach(() => {
  delete process.env.AWS_LAMBDA_FUNCTION_NAME;
  setClockOffsetForTests(0);
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
