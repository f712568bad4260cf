/** Linking a carrier's CallSid to a call (shared/repositories/call-sid-link.ts): the transaction's items. */
import { describe, expect, it } from 'vitest';
import { callKeys, platformKeys } from '../../../shared/db/keys.js';
import { callSidLinkItems, carrierCallPointerPut } from '../../../shared/repositories/call-sid-link.js';
import { TABLE } from '../../support/document-client-mock.js';

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

  it('the pointer names the call and its account, put only if no call holds the sid', () => {
    const put = carrierCallPointerPut(call, sid).Put!;
    expect(put).toMatchObject({ TableName: TABLE, ConditionExpression: 'attribute_not_exists(pk)' });
    expect(put.Item).toEqual({ ...platformKeys.carrierCall(sid), type: 'carrier_call', tenant_id: 'ten_1', call_id: 'cal_1', telephony_account_id: 'tac_1' });
    expect(callSidLinkItems(call, sid, { telephony: false, watchAt: null, sameSidOk: false })[1]!.Update!.Key).toEqual(callKeys.call('ten_1', 'cal_1'));
  });

  it("a callback's link of an ended call: no watch, and the same sid again passes", () => {
    const items = callSidLinkItems(call, sid, { telephony: false, watchAt: null, sameSidOk: true });
    expect(items).toHaveLength(2);
    expect(items[1]!.Update!.UpdateExpression).toBe('SET provider_call_sid = :sid');
    expect(items[1]!.Update!.ConditionExpression).toContain('OR provider_call_sid = :sid');
  });
});
