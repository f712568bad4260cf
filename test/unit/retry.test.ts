import { describe, expect, it } from 'vitest';
import { backoffMs, mayRetry, RACE, type RetryPolicy } from '../../shared/retry.js';

const policy: RetryPolicy = { baseMs: 20, capMs: 100, attempts: 4 };

describe('retry policy (full jitter)', () => {
  it('bounds each pause by base · 2^(attempt−1), capped', () => {
    const top = () => 0.999999;
    expect(backoffMs(policy, 1, top)).toBe(19);
    expect(backoffMs(policy, 2, top)).toBe(39);
    expect(backoffMs(policy, 3, top)).toBe(79);
    expect(backoffMs(policy, 4, top)).toBe(99);
    expect(backoffMs(policy, 30, top)).toBe(99);
  });

  it('draws the whole range down to zero (full jitter, not a floor plus noise)', () => {
    expect(backoffMs(policy, 3, () => 0)).toBe(0);
    expect(backoffMs(policy, 3, () => 0.5)).toBe(40);
  });

  it('allows exactly `attempts` tries in all', () => {
    expect([1, 2, 3, 4].map((a) => mayRetry(policy, a))).toEqual([true, true, true, false]);
    expect(mayRetry(RACE, RACE.attempts)).toBe(false);
  });
});
