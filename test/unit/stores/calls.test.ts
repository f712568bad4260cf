/** Calls (shared/repositories/calls.ts): inbound calls made once per CallSid, the path appended once per callback, carrier statuses through the machine. */
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { callKeys } from '../../../shared/db/keys.js';
import {
  appendInboundPath,
  applyCarrierStatus,
  type CallRecord,
  CallSidHeldElsewhere,
  createInboundCall,
  getCall,
  getCallBySid,
  getCallPointer,
  type NewInboundCall,
} from '../../../shared/repositories/calls.js';
import { activityItem } from '../../../shared/repositories/mobile-activity.js';
import { callMinutesLedgerItems } from '../../../shared/repositories/usage-ledger.js';
import { conditionFailed, ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const SID = `CA${'1'.repeat(32)}`;
const now = new Date('2026-11-18T15:00:00.000Z');
const inbound = { tenant_id: T, provider_call_sid: SID, telephony_account_id: 'tac_1', state: 'answered', answered_at: null } as unknown as NewInboundCall;
beforeEach(() => table.reset());

describe('inbound calls', () => {
  it('stores the call with its CallSid pointer and the items its caller commits with it; a replay answers the same call', async () => {
    const liveCall = (c: CallRecord) => [activityItem(c.tenant_id, { kind: 'live_call', resource_id: c.id, label: 'live_call' }, now)];
    const { call, created } = await createInboundCall(inbound, now, liveCall);
    expect(created).toBe(true);
    expect(call).toMatchObject({ direction: 'inbound', ended_at: null, duration_seconds: null, created_at: now.toISOString() });
    const stored = table.get(callKeys.call(T, call.id))!;
    expect(stored).not.toHaveProperty('ended_at');
    expect(stored).toMatchObject({ ...callKeys.callIndex(T, call.id), type: 'call' });
    expect(table.all().some((i) => i.type === 'activity' && i.kind === 'live_call')).toBe(true);
    expect(await getCallPointer(SID)).toMatchObject({ tenant_id: T, call_id: call.id });
    const again = await createInboundCall(inbound, now);
    expect(again).toEqual({ call: expect.objectContaining({ id: call.id, ended_at: null }), created: false });
  });

  it("a CallSid another tenant's call holds is CallSidHeldElsewhere (never read across tenants)", async () => {
    await createInboundCall(inbound, now);
    await expect(createInboundCall({ ...inbound, tenant_id: 'ten_01JBBBBBBBBBBBBBBBBBBBBBBB' }, now)).rejects.toBeInstanceOf(CallSidHeldElsewhere);
    await expect(createInboundCall({ ...inbound, telephony_account_id: 'tac_2' }, now)).rejects.toBeInstanceOf(CallSidHeldElsewhere);
  });

  it('a disposed call is ended at once; reads by id and by sid default the stamps; malformed ids read nothing', async () => {
    const { call } = await createInboundCall({ ...inbound, state: 'disposed' } as never, now);
    expect(call.ended_at).toBe(now.toISOString());
    expect(await getCallBySid(SID)).toMatchObject({ id: call.id, answered_at: null, duration_seconds: null });
    expect(await getCallPointer('CA#1')).toBeUndefined();
    expect(await getCall(T, 'bad')).toBeUndefined();
    expect(await getCallBySid(`CA${'2'.repeat(32)}`)).toBeUndefined();
  });

  it('appends to the path once per callback key, under the cap; a voicemail commits its activity with it', async () => {
    ddb.on(UpdateCommand).resolvesOnce({}).rejects(conditionFailed());
    const call = { tenant_id: T, id: 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA' };
    expect(await appendInboundPath(call, 'cb-1', [{ step: 'menu' } as never], now)).toBe(true);
    const u = inputsOf(UpdateCommand)[0]!;
    expect(u.ConditionExpression).toBe('attribute_exists(pk) AND NOT contains(callbacks_seen, :keyString) AND size(inbound.#path) < :max');
    expect(u.ExpressionAttributeValues).toMatchObject({ ':keyString': 'cb-1', ':key': new Set(['cb-1']), ':max': 200, ':now': now.toISOString() });
    expect(await appendInboundPath(call, 'cb-1', [], now)).toBe(false);
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed', 'None']));
    const voicemail = { Put: { TableName: 't', Item: { pk: 'TENANT#x', sk: 'ACTIVITY#1', kind: 'voicemail' } } };
    expect(await appendInboundPath(call, 'cb-2', [], now, { recording_url: 'https://rec', items: [voicemail] })).toBe(false);
    const [update, activity] = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(update.Update.UpdateExpression).toContain('recording_url = :rec');
    expect(activity.Put.Item).toMatchObject({ kind: 'voicemail' });
  });
});

describe('applyCarrierStatus', () => {
  const call = {
    tenant_id: T,
    id: 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA',
    state: 'answered',
    provider_call_sid: SID,
    telephony_account_id: null,
    duration_seconds: null,
    inbound: { agent_version_id: 'agv_1' },
  } as unknown as CallRecord;

  it('stores the change from the state read, the duration and its minutes once, and the analysis watch of a scored call', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const confirmations = [{ Put: { TableName: 't', Item: { pk: 'HANDOFF', sk: 'X' } } }];
    expect(await applyCarrierStatus(call, { CallStatus: 'completed' }, 61, now, callMinutesLedgerItems, async () => confirmations)).toBe(true);
    const items = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(items[0].Update).toMatchObject({
      Key: callKeys.call(T, call.id),
      ConditionExpression: 'attribute_exists(pk) AND #state = :from',
      ExpressionAttributeValues: { ':from': 'answered', ':to': 'completed', ':d': 61 },
    });
    expect(items[0].Update.UpdateExpression).toContain('duration_seconds = if_not_exists(duration_seconds, :d)');
    expect(items[1].Put.Item.type).toBe('analysis_watch');
    expect(items.some((i: { Put?: { Item: { meter?: string } } }) => i.Put?.Item.meter === 'telephony_minutes')).toBe(true);
    expect(items.at(-1)).toEqual(confirmations[0]);
  });

  it('a replayed or stale status changes nothing; a call that moved meanwhile answers false', async () => {
    expect(await applyCarrierStatus({ ...call, state: 'completed', duration_seconds: 61 }, { CallStatus: 'ringing' }, null, now, callMinutesLedgerItems)).toBe(
      false,
    );
    expect(inputsOf(TransactWriteCommand)).toHaveLength(0);
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed', 'None']));
    expect(await applyCarrierStatus(call, { CallStatus: 'completed' }, null, now, callMinutesLedgerItems)).toBe(false);
  });
});
