import { PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { countTenantCollection, sweepPage, tenantCollection } from '../../../shared/repositories/tenant-data.js';
import { ddb, inputsOf } from '../../support/document-client-mock.js';

const T1 = 'ten_01hzy3v7q8a9b0c1d2e3f4g5h6';
beforeEach(() => ddb.reset());

describe('tenant-data store', () => {
  it("reads a collection of the tenant's partition across pages, strongly consistent", async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ id: 1 }], LastEvaluatedKey: { pk: 'x' } })
      .resolvesOnce({ Items: [{ id: 2 }] });
    expect(await tenantCollection(T1, 'APIKEY#')).toEqual([{ id: 1 }, { id: 2 }]);
    expect(inputsOf(QueryCommand)[0]).toMatchObject({ ConsistentRead: true, ExpressionAttributeValues: { ':pk': `TENANT#${T1}`, ':prefix': 'APIKEY#' } });
  });

  it("counts the collection's items whose field is one of the values", async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Count: 2, LastEvaluatedKey: { pk: 'x' } })
      .resolvesOnce({ Count: 1 });
    expect(await countTenantCollection(T1, 'CAMPAIGN#', 'status', ['running', 'paused'])).toBe(3);
    expect(inputsOf(QueryCommand)[0]).toMatchObject({
      Select: 'COUNT',
      FilterExpression: '#f IN (:v0, :v1)',
      ExpressionAttributeNames: { '#f': 'status' },
      ExpressionAttributeValues: { ':v0': 'running', ':v1': 'paused' },
    });
  });

  it("scans one segment page for the tenant's items and its sandbox accounts' items, and reports where it ended", async () => {
    ddb.on(ScanCommand).resolves({ Items: [{ pk: `TENANT#${T1}`, sk: 'A' }], LastEvaluatedKey: { pk: 'k', sk: 'k' } });
    const page = await sweepPage(T1, { segment: 2, totalSegments: 4, limit: 200, start: null, sandboxAccounts: ['AC1', 'AC2'] });
    expect(page).toEqual({ items: [{ pk: `TENANT#${T1}`, sk: 'A' }], next: { pk: 'k', sk: 'k' } });
    const [scan] = inputsOf(ScanCommand);
    expect(scan).toMatchObject({ Segment: 2, TotalSegments: 4, Limit: 200, ConsistentRead: true });
    expect(scan!.FilterExpression).toBe('pk = :p OR begins_with(pk, :pp) OR tenant_id = :t OR (begins_with(pk, :sbx) AND account_sid IN (:sa0, :sa1))');
    expect(scan!.ExpressionAttributeValues).toMatchObject({ ':p': `TENANT#${T1}`, ':pp': `TENANT#${T1}#`, ':t': T1, ':sa0': 'AC1', ':sa1': 'AC2' });
    expect(scan).not.toHaveProperty('ExclusiveStartKey');

    ddb.on(ScanCommand).resolves({ Items: [] });
    const last = await sweepPage(T1, { segment: 0, totalSegments: 4, limit: 200, start: { pk: 'k', sk: 'k' }, sandboxAccounts: [] });
    expect(last.next).toBeNull();
    expect(inputsOf(ScanCommand)[1]).toMatchObject({
      ExclusiveStartKey: { pk: 'k', sk: 'k' },
      FilterExpression: 'pk = :p OR begins_with(pk, :pp) OR tenant_id = :t',
    });
  });

  it('writes a kept item as given', async () => {
    const { putRetainedItem } = await import('../../../shared/repositories/tenant-data.js');
    ddb.on(PutCommand).resolves({});
    await putRetainedItem({ pk: `TENANT#${T1}`, sk: 'SUPPRESSION_HASH#ab', type: 'suppression_hash' });
    expect(inputsOf(PutCommand)[0]!.Item).toEqual({ pk: `TENANT#${T1}`, sk: 'SUPPRESSION_HASH#ab', type: 'suppression_hash' });
  });
});
