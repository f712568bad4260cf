import { describe, expect, it } from 'vitest';
import { type CallerPool, callerReason, decideCaller, mergeCallerDecision } from '../../shared/calls/caller-decision.js';
import type { CandidateNumber } from '../../shared/policy/caller-number.js';
import { evaluate } from '../../shared/policy/compliance/evaluate.js';
import { inputs, marketing } from '../support/compliance-fixtures.js';
import { candidateNumber } from '../support/store-items.js';

/** Wednesday 2026-11-18, 10:00 in New York. */
const AT = new Date('2026-11-18T15:00:00Z');
const CALLEE = '+12125550123';

const number = (id: string, over: Partial<CandidateNumber> = {}): CandidateNumber => candidateNumber({ id, phone_e164: '+14155550100', ...over });
const accounts = [
  { id: 'tac_a', verification_status: 'mock_verified', ftc_san_refs: [{ san: 'A', area_codes: ['415'] }] },
  { id: 'tac_b', verification_status: 'verified', ftc_san_refs: [{ san: 'B', area_codes: ['212'] }] },
  { id: 'tac_c', verification_status: 'pending', ftc_san_refs: [{ san: 'C', area_codes: ['305'] }] },
];
const pool = (numbers: CandidateNumber[]): CallerPool => ({ numbers, accounts });
const capped = (id: string, over: Partial<CandidateNumber> = {}) => number(id, { daily_dial_cap: 1, dials_day: '2026-11-18', dials_count: 1, ...over });

describe('decideCaller', () => {
  it('chooses as the dispatcher would (callee area code first) and takes that account’s SAN refs', () => {
    const d = decideCaller(pool([number('pnb_415'), number('pnb_212', { phone_e164: '+12125550100', telephony_account_id: 'tac_b' })]), CALLEE, AT);
    expect(d).toMatchObject({ outcome: 'chosen', number: { id: 'pnb_212' }, san_refs: [{ san: 'B' }] });
  });

  it('ignores numbers on unverified accounts, without voice, not active, or flagged', () => {
    const unusable = [
      number('a', { telephony_account_id: 'tac_c' }),
      number('b', { capabilities: ['sms'] }),
      number('c', { status: 'resting' }),
      number('d', { reputation_state: 'flagged' }),
    ];
    expect(decideCaller(pool(unusable), CALLEE, AT)).toEqual({ outcome: 'none_at_all', san_refs: accounts.flatMap((a) => a.ftc_san_refs) });
  });

  it('all at their cap: none usable until 00:00 UTC, with the number (and SAN refs) chosen then', () => {
    const d = decideCaller(pool([capped('pnb_415'), capped('pnb_212', { phone_e164: '+12125550100', telephony_account_id: 'tac_b' })]), CALLEE, AT);
    expect(d).toMatchObject({ outcome: 'none_usable', frees_at: '2026-11-19T00:00:00.000Z', next: { id: 'pnb_212' }, san_refs: [{ san: 'B' }] });
  });
});

describe('mergeCallerDecision keeps the engine’s outcome, disposition and next_permitted_at rules', () => {
  const merge = (i: ReturnType<typeof inputs>, numbers: CandidateNumber[], at = AT) =>
    mergeCallerDecision(evaluate(i, at), decideCaller(pool(numbers), i.contact.phone_e164, at), i);

  it('a chosen number changes nothing', () => {
    const i = inputs();
    expect(merge(i, [number('n')])).toEqual(evaluate(i, AT));
  });

  it('no number at all: allow becomes block blocked_by_policy with no_caller_number', () => {
    const d = merge(inputs(), []);
    expect(d).toMatchObject({ outcome: 'block', disposition: 'blocked_by_policy', next_permitted_at: null });
    expect(d.reasons.map((r) => r.code)).toEqual(['no_caller_number']);
  });

  it('no number at all on a call the engine already blocks: the engine’s disposition comes first (dnc_hit > scrub_blocked > blocked_by_policy)', () => {
    expect(merge(inputs({ suppressed: true }), [])).toMatchObject({ outcome: 'block', disposition: 'dnc_hit' });
    expect(merge(inputs({ snapshot: { loaded: false } }), [])).toMatchObject({ outcome: 'block', disposition: 'scrub_blocked' });
  });

  it('no number at all on a deferred call: block, never a next_permitted_at', () => {
    const d = merge(inputs(), [], new Date('2026-11-18T12:00:00Z')); // 07:00 in New York
    expect(d).toMatchObject({ outcome: 'block', disposition: 'blocked_by_policy', next_permitted_at: null });
    expect(d.reasons.map((r) => r.code).sort()).toEqual(['no_caller_number', 'quiet_hours']);
  });

  it('capped numbers on an allowed call: defer until the caps reset, when every window is open', () => {
    const d = merge(inputs(), [capped('n')]);
    expect(d).toMatchObject({ outcome: 'defer', disposition: null, next_permitted_at: '2026-11-19T00:00:00.000Z' });
    expect(d.reasons).toEqual([callerReason(decideCaller(pool([capped('n')]), CALLEE, AT))]);
  });

  it('capped numbers: the reset falls in quiet hours → the first permitted instant after it', () => {
    // The caps reset at 19:00 in New York; the profile's window ends at 18:00: the next day at 09:00.
    const i = inputs({ profile: { ...marketing, calling_window: { start: '09:00', end: '18:00' } } });
    expect(merge(i, [capped('n')])).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-11-19T14:00:00.000Z' });
  });

  it('an engine deferral and capped numbers: the later of the two; numbers usable again: the engine alone', () => {
    const i = inputs();
    const night = new Date('2026-11-19T02:30:00Z'); // 21:30 in New York; caps (counted on the 19th) reset at 2026-11-20T00:00Z
    const d = merge(i, [capped('n', { dials_day: '2026-11-19' })], night);
    expect(d).toMatchObject({ outcome: 'defer', next_permitted_at: '2026-11-20T00:00:00.000Z' });
    const early = merge(i, [capped('n', { dials_day: '2026-11-17' })], night); // caps already reset: the engine alone
    expect(early).toEqual(evaluate(i, night));
    expect(early.next_permitted_at).toBe('2026-11-19T13:00:00.000Z');
  });

  it('capped numbers on a blocked call: still block, with the caller reason listed too', () => {
    const d = merge(inputs({ suppressed: true }), [capped('n')]);
    expect(d).toMatchObject({ outcome: 'block', disposition: 'dnc_hit', next_permitted_at: null });
    expect(d.reasons.map((r) => r.code)).toEqual(['internal_dnc', 'no_caller_number']);
  });
});
