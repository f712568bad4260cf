/** The contract: which numbers may answer with an agent or a policy, and every reason one may not. */
import { describe, expect, it } from 'vitest';
import { INELIGIBLE_MESSAGES, type IneligibleReason, numberIneligibility } from '../../shared/policy/number-eligibility.js';
import { NUMBER_STATUSES, REPUTATION_STATES } from '../../shared/policy/telephony-states.js';

const eligible = { status: 'active', capabilities: ['voice'], reputation_state: 'clean' };

describe('numberIneligibility', () => {
  it('an active voice number on a verified or mock_verified account, reputation not burned, is eligible', () => {
    for (const account of ['verified', 'mock_verified']) {
      for (const reputation_state of ['clean', 'at_risk', 'flagged']) {
        expect(numberIneligibility({ ...eligible, reputation_state }, account), `${account} ${reputation_state}`).toEqual([]);
      }
    }
    expect(numberIneligibility({ ...eligible, capabilities: ['sms', 'voice'] }, 'verified')).toEqual([]);
  });

  it('every status but active is number_not_active', () => {
    for (const status of NUMBER_STATUSES.filter((s) => s !== 'active'))
      expect(numberIneligibility({ ...eligible, status }, 'verified'), status).toEqual(['number_not_active']);
  });

  it('no voice capability is number_without_voice', () => {
    expect(numberIneligibility({ ...eligible, capabilities: ['sms'] }, 'verified')).toEqual(['number_without_voice']);
    expect(numberIneligibility({ ...eligible, capabilities: [] }, 'verified')).toEqual(['number_without_voice']);
  });

  it('an account in any other state, or none found, is account_not_verified', () => {
    for (const account of ['pending', 'verifying', 'failed', 'suspended', undefined])
      expect(numberIneligibility(eligible, account), String(account)).toEqual(['account_not_verified']);
  });

  it('only burned reputation is number_burned', () => {
    expect(REPUTATION_STATES.filter((r) => numberIneligibility({ ...eligible, reputation_state: r }, 'verified').length > 0)).toEqual(['burned']);
    expect(numberIneligibility({ ...eligible, reputation_state: 'burned' }, 'verified')).toEqual(['number_burned']);
  });

  it('reports every reason at once, in a fixed order, each with a message', () => {
    const all = numberIneligibility({ status: 'quarantined', capabilities: ['sms'], reputation_state: 'burned' }, 'failed');
    expect(all).toEqual<IneligibleReason[]>(['number_not_active', 'number_without_voice', 'account_not_verified', 'number_burned']);
    for (const r of all) expect(INELIGIBLE_MESSAGES[r]).toMatch(/^the number/);
  });
});
