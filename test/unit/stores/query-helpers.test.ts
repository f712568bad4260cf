import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { queryAll, queryAtLeast, queryCount, queryPages, scanAll } from '../../../shared/db/query.js';
import { ddb, inputsOf, TABLE } from '../../support/document-client-mock.js';

beforeEach(() => ddb.reset());

describe('the paged-query helpers (shared/db/query.ts)', () => {
  it('queryAll follows LastEvaluatedKey until it is absent, resuming each page where the last ended', async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ n: 1 }, { n: 2 }], LastEvaluatedKey: { pk: 'p', sk: '2' } })
      .resolvesOnce({ Items: [{ n: 3 }], LastEvaluatedKey: { pk: 'p', sk: '3' } })
      .resolvesOnce({ Items: [] });
    const items = await queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'p' }, ConsistentRead: true });
    expect(items).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const sent = inputsOf(QueryCommand);
    expect(sent).toHaveLength(3);
    expect(sent[0]).toEqual({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'p' }, ConsistentRead: true });
    expect(sent[1]!.ExclusiveStartKey).toEqual({ pk: 'p', sk: '2' });
    expect(sent[2]!.ExclusiveStartKey).toEqual({ pk: 'p', sk: '3' });
  });

  it('queryPages stops reading when the caller stops (no page beyond the one it broke on)', async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ n: 1 }], LastEvaluatedKey: { pk: 'p', sk: 'x' } });
    for await (const page of queryPages({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'p' } })) {
      expect(page.Items).toEqual([{ n: 1 }]);
      break;
    }
    expect(inputsOf(QueryCommand)).toHaveLength(1);
  });

  it('queryCount sums Count over every page with Select COUNT', async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Count: 7, LastEvaluatedKey: { pk: 'a', sk: 'b' } })
      .resolvesOnce({ Count: 5 });
    expect(await queryCount({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'p' } })).toBe(12);
    expect(inputsOf(QueryCommand).map((i) => i.Select)).toEqual(['COUNT', 'COUNT']);
  });

  it('queryAtLeast reads on until it holds `want` items, asking each page for what limitFor says', async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ n: 1 }], LastEvaluatedKey: { pk: 'p', sk: '1' } })
      .resolvesOnce({ Items: [{ n: 2 }, { n: 3 }], LastEvaluatedKey: { pk: 'p', sk: '3' } });
    const items = await queryAtLeast({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'p' } }, 3, (held) => 3 - held, {
      pk: 'p',
      sk: '0',
    });
    expect(items).toHaveLength(3);
    const sent = inputsOf(QueryCommand);
    expect(sent.map((i) => i.Limit)).toEqual([3, 2]);
    expect(sent.map((i) => i.ExclusiveStartKey)).toEqual([
      { pk: 'p', sk: '0' },
      { pk: 'p', sk: '1' },
    ]);
  });

  it('queryAtLeast ends with the range even when fewer items exist', async () => {
    ddb.on(QueryCommand).resolvesOnce({ Items: [{ n: 1 }] });
    expect(await queryAtLeast({ KeyConditionExpression: 'pk = :pk' }, 10, () => 10)).toEqual([{ n: 1 }]);
    expect(inputsOf(QueryCommand)).toHaveLength(1);
  });

  it('scanAll follows the Scan pages', async () => {
    ddb
      .on(ScanCommand)
      .resolvesOnce({ Items: [{ n: 1 }], LastEvaluatedKey: { pk: 'z', sk: 'z' } })
      .resolvesOnce({ Items: [{ n: 2 }] });
    expect(await scanAll({ FilterExpression: '#t = :t' })).toEqual([{ n: 1 }, { n: 2 }]);
    expect(inputsOf(ScanCommand)[1]!.ExclusiveStartKey).toEqual({ pk: 'z', sk: 'z' });
  });
});
