import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { completeDeletion, dueDeletions, saveDeletionProgress, startDeletionItem } from '../../../shared/repositories/account-deletion.js';
import { tenantDeletingItem } from '../../../shared/repositories/tenants.js';
import { ddb, inputsOf } from '../../support/document-client-mock.js';

const T1 = 'ten_01hzy3v7q8a9b0c1d2e3f4g5h6';
const at = new Date('2026-02-01T00:00:00Z');
beforeEach(() => ddb.reset());

describe('account-deletion store (the run)', () => {
  it('starts the run only from pending at the revision read; the tenant turns deleting unless it is a tombstone', () => {
    const start = startDeletionItem(T1, 4, { step: 'revoke' }, at);
    expect(start.Update).toMatchObject({
      ConditionExpression: '#s = :pending AND revision = :rev',
      ExpressionAttributeValues: { ':rev': 4, ':p': { step: 'revoke' }, ':at': at.toISOString() },
    });
    expect(tenantDeletingItem(T1).Update.ConditionExpression).toBe('attribute_not_exists(#s) OR #s <> :deleted');
  });

  it('checkpoints only while deleting, and completes: request completed, progress removed, due item deleted', async () => {
    ddb.on(UpdateCommand).resolves({});
    ddb.on(DeleteCommand).resolves({});
    await saveDeletionProgress(T1, { step: 'sweep' });
    await completeDeletion({ tenant_id: T1, scheduled_for: '2026-01-31T00:00:00.000Z' }, at);
    const [save, done] = inputsOf(UpdateCommand);
    expect(save).toMatchObject({ UpdateExpression: 'SET progress = :p', ConditionExpression: '#s = :deleting' });
    expect(done).toMatchObject({
      UpdateExpression: 'SET #s = :done, completed_at = :at, revision = revision + :one REMOVE progress',
      ConditionExpression: '#s = :deleting',
    });
    expect(JSON.stringify(inputsOf(DeleteCommand)[0]!.Key)).toContain(T1);
  });

  it('lists the due deletions up to the instant across pages', async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ pk: 'P', sk: 'a', tenant_id: T1 }], LastEvaluatedKey: { pk: 'P' } })
      .resolvesOnce({ Items: [] });
    expect(await dueDeletions(at)).toEqual([{ tenantId: T1, key: { pk: 'P', sk: 'a' } }]);
    expect(inputsOf(QueryCommand)[0]).toMatchObject({
      KeyConditionExpression: 'pk = :pk AND sk <= :upto',
      ConsistentRead: true,
      ExpressionAttributeValues: { ':upto': `${at.toISOString()}#~` },
    });
  });
});
