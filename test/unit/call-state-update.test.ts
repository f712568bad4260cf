import { describe, expect, it } from 'vitest';
import { callSidLinkItems } from '../../shared/repositories/call-sid-link.js';
import { addStateChange } from '../../shared/repositories/call-state-update.js';

process.env.TABLE_NAME ??= 'unit-table';

describe('a state change as update clauses', () => {
  it('sets the state, only the outcome fields the change decides, and stamps once', () => {
    const parts = addStateChange(
      { sets: ['updated_at = :now'], names: {}, values: { ':now': 'T' } },
      { state: 'completed', disposition: 'completed', disposition_set_by: 'carrier', stamp: 'ended_at' },
    );
    expect(parts.sets).toEqual([
      'updated_at = :now',
      '#state = :to',
      'disposition = :disposition',
      'disposition_set_by = :disposition_set_by',
      'ended_at = if_not_exists(ended_at, :now)',
    ]);
    expect(parts.names).toEqual({ '#state': 'state' });
    expect(parts.values).toEqual({ ':now': 'T', ':to': 'completed', ':disposition': 'completed', ':disposition_set_by': 'carrier' });
  });

  it('a bare move sets the state alone', () => {
    expect(addStateChange({ sets: [], names: {}, values: {} }, { state: 'dialing' }).sets).toEqual(['#state = :to']);
  });
});

describe('the CallSid link', () => {
  const call = { tenant_id: 'ten_1', id: 'cal_1', telephony_account_id: 'tac_1' };
  const sid = `CA${'0'.repeat(32)}`;

  it("dispatch's link: pointer, the sid on the call and its telephony block, the watch; only an unset sid", () => {
    const items = callSidLinkItems(call, sid, { telephony: true, watchAt: 'W', updatedAt: 'W', sameSidOk: false });
    expect(items).toHaveLength(3);
    expect(items[0]!.Put!.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(items[1]!.Update!.UpdateExpression).toBe(
      'SET provider_call_sid = :sid, telephony.provider_call_sid = :sid, unfinished_watch_at = :watch, updated_at = :now',
    );
    expect(items[1]!.Update!.ConditionExpression).not.toContain('provider_call_sid = :sid');
    expect(items[2]!.Put!.Item!.type).toBe('unfinished_watch');
  });

  it("a callback's link of an ended call: no watch, and the same sid again passes", () => {
    const items = callSidLinkItems(call, sid, { telephony: false, watchAt: null, sameSidOk: true });
    expect(items).toHaveLength(2);
    expect(items[1]!.Update!.UpdateExpression).toBe('SET provider_call_sid = :sid');
    expect(items[1]!.Update!.ConditionExpression).toContain('OR provider_call_sid = :sid');
  });
});
