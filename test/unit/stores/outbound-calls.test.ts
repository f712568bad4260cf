/** Outbound calls (shared/repositories/outbound-calls.ts, outbound-call-transitions.ts): the call put, its due item moved under the state read, transitions and the CallSid link. */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { callKeys, dispatchKeys, platformKeys } from '../../../shared/db/keys.js';
import { callTransition, recordProviderSid } from '../../../shared/repositories/outbound-call-transitions.js';
import {
  dialingWatchDelete,
  dialingWatchPut,
  dueInstantOf,
  dueItemPut,
  moveDueItem,
  type OutboundCallRecord,
  outboundCallPut,
} from '../../../shared/repositories/outbound-calls.js';
import { ddb, inputsOf, transactionCancelled } from '../../support/document-client-mock.js';

const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CALL = 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA';
const call = {
  tenant_id: T,
  id: CALL,
  attempt_id: 'att_1',
  telephony_account_id: 'tac_1',
  state: 'scheduled',
  answered_at: null,
  ended_at: null,
  duration_seconds: null,
  scheduled_for: 'S0',
  due_at: null,
} as unknown as OutboundCallRecord;
beforeEach(() => ddb.reset());

describe('outbound call items', () => {
  it('puts a new call (with its index keys) only if absent, leaving unset stamps out for if_not_exists', () => {
    const put = outboundCallPut(call).Put!;
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put.Item).toMatchObject({ ...callKeys.call(T, CALL), ...callKeys.callIndex(T, CALL), type: 'call', state: 'scheduled' });
    expect(put.Item).not.toHaveProperty('answered_at');
    expect(put.Item).not.toHaveProperty('duration_seconds');
    expect(outboundCallPut({ ...call, ended_at: 'E' }).Put!.Item!.ended_at).toBe('E');
  });

  it('due and dialing items are keyed by their instant; the due instant falls back to scheduled_for', () => {
    expect(dueItemPut(call, 'S1').Put!.Item).toMatchObject({
      ...dispatchKeys.due('S1', T, CALL),
      type: 'dispatch_due',
      attempt_id: 'att_1',
      scheduled_for: 'S1',
    });
    expect(dialingWatchPut(call, 'D1').Put!.Item).toMatchObject({ ...dispatchKeys.dialing('D1', T, CALL), type: 'dialing_watch' });
    expect(dialingWatchDelete(T, CALL, 'D1').Delete!.Key).toEqual(dispatchKeys.dialing('D1', T, CALL));
    expect(dueInstantOf({ due_at: null, scheduled_for: 'S0' })).toBe('S0');
    expect(dueInstantOf({ due_at: 'S2', scheduled_for: 'S0' })).toBe('S2');
    expect(dueInstantOf({ due_at: null, scheduled_for: null })).toBeNull();
  });

  it('a transition applies only from the state read, with the extra fields named', () => {
    const u = callTransition(call, 'scheduled', { state: 'dialing', stamp: 'dialed_at' } as never, new Date('2026-11-18T15:00:00.000Z'), { dialing_at: 'D1' })
      .Update!;
    expect(u.ConditionExpression).toBe('attribute_exists(pk) AND #state = :from');
    expect(u.UpdateExpression).toBe('SET updated_at = :now, #state = :to, dialed_at = if_not_exists(dialed_at, :now), #f0 = :f0');
    expect(u.ExpressionAttributeNames).toMatchObject({ '#f0': 'dialing_at' });
    expect(u.ExpressionAttributeValues).toMatchObject({ ':from': 'scheduled', ':to': 'dialing', ':f0': 'D1' });
  });
});

describe('moveDueItem', () => {
  it('moves the due item from the one the call names, only while scheduled', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    expect(await moveDueItem(call, 'S0', 'S1')).toBe(true);
    const [update, remove, put] = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(update.Update.ConditionExpression).toBe(
      '#state = :scheduled AND (due_at = :from OR ((attribute_not_exists(due_at) OR attribute_type(due_at, :null)) AND scheduled_for = :from))',
    );
    expect(remove.Delete.Key).toEqual(dispatchKeys.due('S0', T, CALL));
    expect(put.Put.Item.scheduled_for).toBe('S1');
  });

  it('a call with no due item gets one; false when the call moved on; other refusals surface', async () => {
    ddb
      .on(TransactWriteCommand)
      .resolvesOnce({})
      .rejects(transactionCancelled(['ConditionalCheckFailed', 'None']));
    expect(await moveDueItem(call, null, 'S1')).toBe(true);
    const items = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(items).toHaveLength(2);
    expect(items[0].Update.ConditionExpression).toBe('#state = :scheduled AND (attribute_not_exists(due_at) OR attribute_type(due_at, :null))');
    expect(await moveDueItem(call, null, 'S1')).toBe(false);
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'TransactionConflict']));
    await expect(moveDueItem(call, null, 'S1')).rejects.toThrow();
  });
});

describe('recordProviderSid', () => {
  it("links the sid (pointer, the call's sid, the unfinished watch) and drops the dialing watch; false when linked already", async () => {
    ddb
      .on(TransactWriteCommand)
      .resolvesOnce({})
      .rejects(transactionCancelled(['ConditionalCheckFailed', 'None', 'None', 'None']));
    const sid = `CA${'1'.repeat(32)}`;
    expect(await recordProviderSid(call, sid, 'D1', new Date('2026-11-18T15:00:00.000Z'))).toBe(true);
    const items = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(items[0].Put.Item).toMatchObject(platformKeys.carrierCall(sid));
    expect(items[2].Put.Item).toMatchObject({ type: 'unfinished_watch', since: '2026-11-18T15:00:00.000Z' });
    expect(items.at(-1).Delete.Key).toEqual(dispatchKeys.dialing('D1', T, CALL));
    expect(await recordProviderSid(call, sid, 'D1', new Date())).toBe(false);
  });
});
