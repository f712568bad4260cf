import { describe, expect, it } from 'vitest';
import {
  admit,
  type BackoffRule,
  type BackoffState,
  delaySeconds,
  PASSWORD_BACKOFF,
  PASSWORD_DELAY_CAP_SECONDS,
} from '../../shared/policy/auth/throttle-rules.js';

const rule: BackoffRule = { free: 5, baseSeconds: 1, capSeconds: 60, forgetSeconds: 15 * 60 };
const T0 = Date.parse('2026-11-26T10:00:00Z');
const at = (ms: number) => new Date(T0 + ms);

/** Fails `n` attempts as fast as the rule allows, from `start`; returns the state and the instant after the last. */
function failFast(n: number, start = 0): { state: BackoffState | undefined; t: number } {
  let state: BackoffState | undefined;
  let t = start;
  for (let i = 0; i < n; i++) {
    const d = admit(state, at(t), rule);
    if (!d.admitted) {
      t += d.retryAfterSeconds * 1000;
      i--;
      continue;
    }
    state = d.next;
  }
  return { state, t };
}

describe('password throttle: progressive delays, never a lockout', () => {
  it('waits nothing while free, then 1 s, 2 s, 4 s … up to the cap', () => {
    expect([0, 1, 4].map((n) => delaySeconds(n, rule))).toEqual([0, 0, 0]);
    expect([5, 6, 7, 8, 9, 10, 11, 12, 40].map((n) => delaySeconds(n, rule))).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
  });

  it('refuses the attempt after the 5th failure with Retry-After 1, admits it a second later, and the next waits 2 s', () => {
    const { state } = failFast(5);
    expect(state).toMatchObject({ failures: 5 });
    expect(admit(state, at(0), rule)).toEqual({ admitted: false, retryAfterSeconds: 1 });
    const sixth = admit(state, at(1000), rule);
    expect(sixth.admitted).toBe(true);
    if (!sixth.admitted) return;
    expect(admit(sixth.next, at(1000), rule)).toEqual({ admitted: false, retryAfterSeconds: 2 });
    expect(admit(sixth.next, at(2999), rule)).toEqual({ admitted: false, retryAfterSeconds: 1 });
    expect(admit(sixth.next, at(3000), rule).admitted).toBe(true);
  });

  it('never asks for more than the cap, however many failures came before', () => {
    const { state, t } = failFast(200);
    expect(state!.failures).toBe(200);
    const refused = admit(state, at(t), rule);
    expect(refused).toEqual({ admitted: false, retryAfterSeconds: 60 });
    expect(admit(state, at(t + 60_000), rule).admitted).toBe(true);
  });

  it('forgets a scope quiet for 15 minutes', () => {
    const { state, t } = failFast(12);
    const later = admit(state, at(t + 15 * 60_000), rule);
    expect(later).toMatchObject({ admitted: true, next: { failures: 1 } });
  });

  it('is configured with the documented scopes and a one-minute cap', () => {
    expect(Object.keys(PASSWORD_BACKOFF).sort()).toEqual(['password_account', 'password_pair', 'password_source']);
    for (const r of Object.values(PASSWORD_BACKOFF)) expect(r.capSeconds).toBe(PASSWORD_DELAY_CAP_SECONDS);
    expect(PASSWORD_DELAY_CAP_SECONDS).toBe(60);
    expect(PASSWORD_BACKOFF.password_pair.free).toBeLessThan(PASSWORD_BACKOFF.password_account.free);
  });
});
