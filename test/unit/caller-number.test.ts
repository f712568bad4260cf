import { describe, expect, it } from 'vitest';
import { type CandidateNumber, chooseCallerNumber } from '../../shared/policy/caller-number.js';
import { candidateNumber } from '../support/store-items.js';

const at = new Date('2026-11-23T15:00:00Z');
let seq = 0;
const n = (over: Partial<CandidateNumber> = {}): CandidateNumber => {
  seq++;
  return candidateNumber({ id: `pnb_${seq}`, created_at: `2026-01-01T00:00:${String(seq).padStart(2, '0')}Z`, ...over });
};
const verified = new Set(['tac_a']);

describe('chooseCallerNumber', () => {
  it("prefers the callee's area code, then clean, then fewer dials today, then the oldest", () => {
    const far = n({ phone_e164: '+13125550100' });
    const local = n({ phone_e164: '+14155550100', dials_day: '2026-11-23', dials_count: 30 });
    expect(chooseCallerNumber([far, local], verified, '+14155551234', at)).toEqual({ outcome: 'chosen', number: local });
    const risky = n({ phone_e164: '+14155550101', reputation_state: 'at_risk' });
    expect(chooseCallerNumber([risky, local], verified, '+14155551234', at)).toMatchObject({ number: { id: local.id } });
    const fresh = n({ phone_e164: '+14155550102', dials_day: '2026-11-22', dials_count: 99 });
    expect(chooseCallerNumber([local, fresh], verified, '+14155551234', at)).toMatchObject({ number: { id: fresh.id } });
    const twin = n({ phone_e164: '+14155550103', dials_day: '2026-11-22', dials_count: 5 });
    expect(chooseCallerNumber([twin, fresh], verified, '+14155551234', at)).toMatchObject({ number: { id: fresh.id } });
  });

  it('skips numbers that may not dial: status, voice, account, reputation, the cap reached today', () => {
    const skipped = [
      n({ status: 'provisioning' }),
      n({ capabilities: ['sms'] }),
      n({ telephony_account_id: 'tac_unverified' }),
      n({ reputation_state: 'flagged' }),
      n({ reputation_state: 'burned' }),
    ];
    expect(chooseCallerNumber(skipped, verified, '+14155551234', at)).toEqual({ outcome: 'none_at_all' });
    const capped = n({ daily_dial_cap: 10, dials_day: '2026-11-23', dials_count: 10 });
    expect(chooseCallerNumber([...skipped, capped], verified, '+14155551234', at)).toEqual({ outcome: 'none_usable', frees_at: '2026-11-24T00:00:00.000Z' });
    const underCap = n({ daily_dial_cap: 10, dials_day: '2026-11-23', dials_count: 9 });
    expect(chooseCallerNumber([capped, underCap], verified, '+14155551234', at)).toMatchObject({ outcome: 'chosen', number: { id: underCap.id } });
    const yesterday = n({ daily_dial_cap: 10, dials_day: '2026-11-22', dials_count: 10 });
    expect(chooseCallerNumber([yesterday], verified, '+14155551234', at)).toMatchObject({ outcome: 'chosen' });
  });
});
