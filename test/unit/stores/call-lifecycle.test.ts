/** An outbound call's lifecycle as stored (shared/repositories/call-lifecycle.ts): each transition one conditional transaction with its events. */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { dispatchKeys, platformKeys } from '../../../shared/db/keys.js';
import { applyOutboundStatus, CallSidMismatch, cancelCall, linkCarrierCall, storeAnalysis } from '../../../shared/repositories/call-lifecycle.js';
import type { CallRecord } from '../../../shared/repositories/calls.js';
import { callMinutesLedgerItems } from '../../../shared/repositories/usage-ledger.js';
import { ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';
import { outboundCallItem } from '../../support/store-items.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CALL = 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA';
const SID = `CA${'1'.repeat(32)}`;
const now = new Date('2026-11-18T15:00:00.000Z');
const base = outboundCallItem(T, CALL);
const seed = (fields: Record<string, unknown>) => table.put(outboundCallItem(T, CALL, fields));
// biome-ignore lint/suspicious/noExplicitAny: the items' four shapes, read freely
const sentItems = (): Record<string, any>[] => inputsOf(TransactWriteCommand)[0]!.TransactItems;
beforeEach(() => {
  table.reset();
  ddb.on(TransactWriteCommand).resolves({});
});

describe('transitions', () => {
  it('a cancel before the dial: disposed from the state and event count read, its due item gone, call.completed, the analysis watch', async () => {
    seed({ state: 'scheduled', scheduled_for: 'S0', due_at: 'S1', event_count: 0 });
    const out = await cancelCall(T, CALL, now);
    expect(out).toMatchObject({ change: { state: 'disposed', end_reason: 'cancelled', disposition: null }, ended: true });
    const items = sentItems();
    expect(items[0]!.Update).toMatchObject({
      ConditionExpression: 'attribute_exists(pk) AND #state = :from AND #event_count = :ec',
      ExpressionAttributeValues: { ':from': 'scheduled', ':ec': 0, ':noDue': null },
    });
    expect(items.find((i) => i.Delete)!.Delete.Key).toEqual(dispatchKeys.due('S1', T, CALL));
    expect(items.some((i) => i.Put?.Item.type === 'analysis_watch')).toBe(true);
    expect(JSON.stringify(items)).toContain('call.completed');
  });

  it('a call already past the dial is not cancelled (nothing written); an unknown one is undefined', async () => {
    seed({ state: 'answered' });
    expect(await cancelCall(T, CALL, now)).toMatchObject({ change: null, ended: false });
    expect(await cancelCall(T, 'cal_01JZZZZZZZZZZZZZZZZZZZZZZZ', now)).toBeUndefined();
    expect(inputsOf(TransactWriteCommand)).toHaveLength(0);
  });

  it('an answer is call.answered, conditioned on no events yet when the call has no count', async () => {
    seed({ state: 'dialing', duration_seconds: null, ended_at: null });
    expect(await applyOutboundStatus({ tenant_id: T, id: CALL }, { CallStatus: 'in-progress' }, null, now)).toMatchObject({
      change: { state: 'answered' },
      ended: false,
    });
    const [update, ...rest] = sentItems();
    expect(update!.Update.ConditionExpression).toBe('attribute_exists(pk) AND #state = :from AND attribute_not_exists(#event_count)');
    expect(JSON.stringify(rest)).toContain('call.answered');
  });

  it('the final callback of a call ended earlier stores its duration and minutes once, nothing else', async () => {
    seed({ state: 'completed', duration_seconds: null, ended_at: null, event_count: 3, telephony_account_id: null });
    expect(await applyOutboundStatus({ tenant_id: T, id: CALL }, { CallStatus: 'completed' }, 61, now, callMinutesLedgerItems)).toMatchObject({ change: null });
    const [update, ...rest] = sentItems();
    expect(update!.Update.UpdateExpression).toBe(
      'SET updated_at = :now, duration_seconds = if_not_exists(duration_seconds, :d), ended_at = if_not_exists(ended_at, :now)',
    );
    expect(rest.map((i) => i.Put?.Item.meter)).toEqual(['telephony_minutes', undefined]);
  });

  it('a lost race reads the call again and recomputes', async () => {
    seed({ state: 'dialing', event_count: 0 });
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(transactionCancelled(['ConditionalCheckFailed']))
      .resolves({});
    expect(await applyOutboundStatus({ tenant_id: T, id: CALL }, { CallStatus: 'in-progress' }, null, now)).toMatchObject({ change: { state: 'answered' } });
    expect(inputsOf(TransactWriteCommand)).toHaveLength(2);
    expect(table.sent.filter((s) => s.command === 'GetItem')).toHaveLength(2);
  });
});

describe('linkCarrierCall', () => {
  it('links an unlinked call with its watch; a call linked to another sid is CallSidMismatch', async () => {
    await linkCarrierCall({ ...base, state: 'dialing' } as unknown as CallRecord, SID, now);
    const items = sentItems();
    expect(items[0]!.Put.Item).toMatchObject(platformKeys.carrierCall(SID));
    expect(items[1]!.Update.ConditionExpression).toContain('OR provider_call_sid = :sid');
    expect(items[2]!.Put.Item.type).toBe('unfinished_watch');
    // The watch starts at the instant the caller handed over, not at a clock the store read.
    expect(JSON.stringify(items[2]!.Put.Item)).toContain(now.toISOString());
    await expect(
      linkCarrierCall({ ...base, state: 'dialing', provider_call_sid: `CA${'2'.repeat(32)}` } as unknown as CallRecord, SID, now),
    ).rejects.toBeInstanceOf(CallSidMismatch);
  });

  it('a call already linked to this sid: fine when the pointer names it, CallSidMismatch when it names another call', async () => {
    table.put({ ...platformKeys.carrierCall(SID), tenant_id: T, call_id: CALL });
    await linkCarrierCall({ ...base, state: 'answered', provider_call_sid: SID } as unknown as CallRecord, SID, now);
    expect(inputsOf(TransactWriteCommand)).toHaveLength(0);
    table.put({ ...platformKeys.carrierCall(SID), tenant_id: T, call_id: 'cal_01JBBBBBBBBBBBBBBBBBBBBBBB' });
    await expect(linkCarrierCall({ ...base, state: 'answered', provider_call_sid: SID } as unknown as CallRecord, SID, now)).rejects.toBeInstanceOf(
      CallSidMismatch,
    );
  });
});

describe('storeAnalysis', () => {
  it('stores the analysis once with call.analysis_ready, dropping its watch; false when already analysed', async () => {
    const call = { ...base, state: 'completed', analysis_watch_at: 'W1', disposition: 'completed' } as unknown as CallRecord;
    expect(await storeAnalysis(call, { score: 1 }, { outcome: 'ok' }, now)).toBe(true);
    const items = sentItems();
    expect(items[0]!.Update).toMatchObject({
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(analysis)',
      ExpressionAttributeValues: { ':a': { score: 1 }, ':noWatch': null },
    });
    expect(items[1]!.Delete.Key).toEqual(dispatchKeys.analysis('W1', T, CALL));
    expect(JSON.stringify(items)).toContain('call.analysis_ready');
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed', 'None', 'None']));
    expect(await storeAnalysis(call, {}, {}, now)).toBe(false);
  });

  it('settles a disposition under the state and the disposition read', async () => {
    const call = { ...base, state: 'completed', disposition: 'completed' } as unknown as CallRecord;
    await storeAnalysis(call, {}, {}, now, { disposition: 'goal_met', disposition_set_by: 'agent_llm' });
    expect(sentItems()[0]!.Update).toMatchObject({
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(analysis) AND #state = :completed AND disposition = :was',
      ExpressionAttributeValues: { ':d': 'goal_met', ':was': 'completed' },
    });
  });
});
