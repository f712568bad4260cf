import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { getSession, putSession, revokeSessions, sessionItem, touchSession } from '../../../shared/repositories/sessions.js';
import { conditionFailed, ddb, inputsOf } from '../../support/document-client-mock.js';

const T1 = 'ten_01hzy3v7q8a9b0c1d2e3f4g5h6';
const U1 = 'usr_01hzy3v7q8a9b0c1d2e3f4g5h6';
const record = { tenant_id: T1, user_id: U1, secret_hash: 'a'.repeat(64), created_at: 'c', last_used_at: 'l' };
beforeEach(() => ddb.reset());

describe('sessions store', () => {
  it('builds the item with the tenant/user index and puts it only if new', async () => {
    const item = sessionItem(record, 123);
    expect(item).toMatchObject({ type: 'session', ttl: 123, secret_hash: record.secret_hash });
    expect(String(item.gsi1pk)).toContain(T1);
    ddb.on(PutCommand).resolves({});
    await putSession(item);
    expect(inputsOf(PutCommand)[0]!.ConditionExpression).toBe('attribute_not_exists(pk)');
  });

  it('reads a session only when the stored hash matches, and maps it to the record', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...sessionItem(record, 1) } });
    expect(await getSession(record.secret_hash)).toEqual(record);
    ddb.on(GetCommand).resolves({ Item: { ...sessionItem(record, 1), secret_hash: 'other' } });
    expect(await getSession(record.secret_hash)).toBeUndefined();
  });

  it('slides a session only while it exists (a sign-out meanwhile wins quietly)', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    await expect(touchSession(record.secret_hash, new Date('2026-01-01T00:00:00Z'))).resolves.toBeUndefined();
    expect(inputsOf(UpdateCommand)[0]).toMatchObject({
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': '2026-01-01T00:00:00.000Z' },
    });
  });

  it("revokes a user's sessions page by page from the index", async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ pk: 'a', sk: 'S' }], LastEvaluatedKey: { pk: 'a' } })
      .resolvesOnce({ Items: [{ pk: 'b', sk: 'S' }] });
    ddb.on(BatchWriteCommand).resolves({});
    expect(await revokeSessions(T1, U1)).toBe(2);
    expect(inputsOf(QueryCommand)[0]).toMatchObject({
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
      ExpressionAttributeValues: { ':prefix': `USER#${U1}#` },
    });
    expect(inputsOf(BatchWriteCommand)).toHaveLength(2);
  });
});
