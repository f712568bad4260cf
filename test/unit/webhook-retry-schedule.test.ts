import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_S, nextAttemptDelay, retrySchedule } from '../../shared/webhooks/retry-schedule.js';

describe('webhook retry schedule', () => {
  it('defaults to at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(DEFAULT_RETRY_SCHEDULE_S).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(retrySchedule({})).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(retrySchedule({ WEBHOOK_RETRY_SCHEDULE_S: '' })).toEqual([...DEFAULT_RETRY_SCHEDULE_S]);
  });

  it('returns a copy: changing it does not change the default', () => {
    const schedule = retrySchedule({});
    schedule[0] = 99;
    expect(retrySchedule({})[0]).toBe(0);
  });

  it('is replaced by WEBHOOK_RETRY_SCHEDULE_S', () => {
    expect(retrySchedule({ WEBHOOK_RETRY_SCHEDULE_S: '0,1,2' })).toEqual([0, 1, 2]);
    expect(retrySchedule({ WEBHOOK_RETRY_SCHEDULE_S: ' 0, 5 ,86400 ' })).toEqual([0, 5, 86400]);
    expect(retrySchedule({ WEBHOOK_RETRY_SCHEDULE_S: '7' })).toEqual([7]);
    expect(retrySchedule({ WEBHOOK_RETRY_SCHEDULE_S: Array(20).fill('1').join(',') })).toHaveLength(20);
  });

  it.each([
    ['-1', /"-1" is not a non-negative whole number/],
    ['1.5', /"1.5" is not/],
    ['0,,5', /"" is not/],
    ['0,5,', /"" is not/],
    ['five', /"five" is not/],
    ['1e3', /"1e3" is not/],
    ['0x10', /"0x10" is not/],
    ['86401', /86401 is more than 86400 seconds/],
    [Array(21).fill('1').join(','), /21 entries, at most 20/],
  ])('refuses %j, naming the variable', (value, why) => {
    expect(() => retrySchedule({ WEBHOOK_RETRY_SCHEDULE_S: value })).toThrow(/^WEBHOOK_RETRY_SCHEDULE_S=/);
    expect(() => retrySchedule({ WEBHOOK_RETRY_SCHEDULE_S: value })).toThrow(why);
  });

  it('gives the delay before the next attempt, and null once the schedule is used up', () => {
    const schedule = retrySchedule({});
    expect(nextAttemptDelay(schedule, 0)).toBe(0);
    expect(nextAttemptDelay(schedule, 1)).toBe(5);
    expect(nextAttemptDelay(schedule, 2)).toBe(300);
    expect(nextAttemptDelay(schedule, 7)).toBe(36000);
    expect(nextAttemptDelay(schedule, 8)).toBeNull();
    expect(nextAttemptDelay(schedule, 100)).toBeNull();
    expect(nextAttemptDelay([3], 0)).toBe(3);
    expect(nextAttemptDelay([3], 1)).toBeNull();
    expect(nextAttemptDelay([], 0)).toBeNull();
  });

  it('refuses a negative or fractional attempt count', () => {
    expect(() => nextAttemptDelay(DEFAULT_RETRY_SCHEDULE_S, -1)).toThrow(RangeError);
    expect(() => nextAttemptDelay(DEFAULT_RETRY_SCHEDULE_S, 0.5)).toThrow(RangeError);
  });
});
