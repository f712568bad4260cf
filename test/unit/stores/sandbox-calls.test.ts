import { GetCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  claimSandboxCallStep,
  endSandboxCall,
  moveSandboxCallEnd,
  putSandboxCallItem,
  readSandboxCall,
  sandboxCallsOfAccount,
  sandboxTimelineItems,
  setOnSandboxCall,
} from '../../../shared/repositories/sandbox-calls.js';
import { conditionFailed, ddb, inputsOf } from '../../support/document-client-mock.js';

const SID = `CA${'a'.repeat(32)}`;
const ACCOUNT = `AC${'b'.repeat(32)}`;

beforeEach(() => ddb.reset());

describe('sandbox-calls store', () => {
  it('puts a new call with its account index, never over an existing one', async () => {
    ddb.on(PutCommand).resolves({});
    const call = { sid: SID, account_sid: ACCOUNT, created_at: '2026-01-01T00:00:00.000Z', step: 0 };
    await putSandboxCallItem(call);
    const [put] = inputsOf(PutCommand);
    expect(put!.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put!.Item).toMatchObject({ type: 'sandbox_call', sid: SID, step: 0 });
    expect(JSON.stringify([put!.Item.gsi1pk, put!.Item.gsi1sk])).toContain(ACCOUNT);
  });

  it("reads a call without its keys, and lists an account's calls from the index across pages", async () => {
    ddb.on(GetCommand).resolves({ Item: { pk: 'p', sk: 's', gsi1pk: 'g', gsi1sk: 'h', type: 'sandbox_call', sid: SID } });
    expect(await readSandboxCall(SID)).toEqual({ sid: SID });
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ pk: 'p', sid: '1' }], LastEvaluatedKey: { pk: 'p' } })
      .resolvesOnce({ Items: [{ pk: 'p', sid: '2' }] });
    expect(await sandboxCallsOfAccount(ACCOUNT)).toEqual([{ sid: '1' }, { sid: '2' }]);
    expect(inputsOf(QueryCommand)[0]).toMatchObject({ IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :p' });
  });

  it('claims a step only at the step and revision read, setting only the changes given', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { pk: 'p', sk: 's', type: 't', sid: SID, step: 3 } });
    const call = await claimSandboxCallStep(SID, { step: 2, revision: 5 }, { status: 'ringing', answered_by: undefined }, true, 'now');
    expect(call).toEqual({ sid: SID, step: 3 });
    const [u] = inputsOf(UpdateCommand);
    expect(u!.ConditionExpression).toBe('#step = :step AND #revision = :rev');
    expect(u!.UpdateExpression).toBe('SET #step = :next, #revision = :rev1, #sequence = #sequence + :bump, updated_at = :now, #status = :status');
    expect(u!.ExpressionAttributeValues).toMatchObject({ ':step': 2, ':rev': 5, ':next': 3, ':rev1': 6, ':bump': 1, ':status': 'ringing' });
    expect(u!.ExpressionAttributeValues).not.toHaveProperty(':answered_by');
  });

  it('answers undefined / false when another writer moved the call, and rethrows anything else', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await claimSandboxCallStep(SID, { step: 0, revision: 0 }, {}, false, 'now')).toBeUndefined();
    expect(await moveSandboxCallEnd(SID, 4, 1, { dueAt: 10, durationSeconds: 2 })).toBe(false);
    expect(await endSandboxCall(SID, 1, { plan: [], status: 'completed', endTime: 'x', duration: 1 })).toBeUndefined();
    await expect(setOnSandboxCall(SID, 'relay', {})).resolves.toBeUndefined();
    ddb.on(UpdateCommand).rejects(new Error('boom'));
    await expect(moveSandboxCallEnd(SID, 4, 1, { dueAt: 10, durationSeconds: 2 })).rejects.toThrow('boom');
  });

  it('moves the final step by its index under the revision', async () => {
    ddb.on(UpdateCommand).resolves({});
    expect(await moveSandboxCallEnd(SID, 4, 7, { dueAt: 10, durationSeconds: 2 })).toBe(true);
    const [u] = inputsOf(UpdateCommand);
    expect(u!.UpdateExpression).toBe('SET #plan[4].due_at = :d, #plan[4].durationSeconds = :secs, #revision = :rev1');
    expect(u!.ExpressionAttributeValues).toEqual({ ':d': 10, ':secs': 2, ':rev': 7, ':rev1': 8 });
  });

  it('finds every call and text for the restart by scanning their type, across pages', async () => {
    ddb
      .on(ScanCommand)
      .resolvesOnce({ Items: [{ type: 'sandbox_call', sid: SID }], LastEvaluatedKey: { pk: 'a' } })
      .resolvesOnce({ Items: [{ type: 'sandbox_message', sid: 'SM1' }] });
    expect(await sandboxTimelineItems()).toEqual([
      { type: 'sandbox_call', sid: SID },
      { type: 'sandbox_message', sid: 'SM1' },
    ]);
    expect(inputsOf(ScanCommand)[0]).toMatchObject({ FilterExpression: '#t IN (:call, :message)', ProjectionExpression: '#t, sid' });
  });
});
