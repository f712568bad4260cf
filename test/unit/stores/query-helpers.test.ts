import { QueryCommand as RawQueryCommand } from '@aws-sdk/client-dynamodb';
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  collectionHead,
  collectionPages,
  countCollection,
  queryAll,
  queryAtLeast,
  queryCollection,
  queryCount,
  queryPages,
  rawCollectionPages,
  scanAll,
} from '../../../shared/db/query.js';
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

  describe('collection queries: one partition, the sort keys under a prefix', () => {
    it("queryCollection sends pk = :pk AND begins_with(sk, :prefix) with the caller's own names beside them, and reads every page", async () => {
      ddb
        .on(QueryCommand)
        .resolvesOnce({ Items: [{ n: 1 }], LastEvaluatedKey: { pk: 'p', sk: 'A#1' } })
        .resolvesOnce({ Items: [{ n: 2 }] });
      const items = await queryCollection(
        { pk: 'p', prefix: 'A#' },
        { FilterExpression: '#s = :s', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':s': 'on' }, ConsistentRead: true },
      );
      expect(items).toEqual([{ n: 1 }, { n: 2 }]);
      const sent = inputsOf(QueryCommand);
      expect(sent[0]).toEqual({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: '#s = :s',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': 'on', ':pk': 'p', ':prefix': 'A#' },
        ConsistentRead: true,
      });
      expect(sent[1]!.ExclusiveStartKey).toEqual({ pk: 'p', sk: 'A#1' });
    });

    it('a collection on an index names the index and its keys', async () => {
      ddb.on(QueryCommand).resolves({ Items: [] });
      for await (const _ of collectionPages({ index: 'gsi1', pk: 'g', prefix: 'USER#u#' }));
      expect(inputsOf(QueryCommand)[0]).toMatchObject({
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
        ExpressionAttributeValues: { ':pk': 'g', ':prefix': 'USER#u#' },
      });
    });

    it('the key values win over a caller value of the same name (a filter cannot widen the range)', async () => {
      ddb.on(QueryCommand).resolves({ Items: [] });
      await queryCollection({ pk: 'p', prefix: 'A#' }, { ExpressionAttributeValues: { ':pk': 'other', ':prefix': '' } });
      expect(inputsOf(QueryCommand)[0]!.ExpressionAttributeValues).toEqual({ ':pk': 'p', ':prefix': 'A#' });
    });

    it('collectionHead reads one page only, however many follow (a Limit is the first N, not N a page)', async () => {
      ddb.on(QueryCommand).resolves({ Items: [{ n: 9 }], LastEvaluatedKey: { pk: 'p', sk: 'V#9' } });
      expect(await collectionHead({ pk: 'p', prefix: 'V#' }, { ScanIndexForward: false, Limit: 1 })).toEqual([{ n: 9 }]);
      expect(inputsOf(QueryCommand)).toHaveLength(1);
      expect(inputsOf(QueryCommand)[0]).toMatchObject({ ScanIndexForward: false, Limit: 1 });
    });

    it('countCollection counts every page of the range with Select COUNT', async () => {
      ddb
        .on(QueryCommand)
        .resolvesOnce({ Count: 2, LastEvaluatedKey: { pk: 'p', sk: 'A#2' } })
        .resolvesOnce({ Count: 1 });
      expect(await countCollection({ pk: 'p', prefix: 'A#' })).toBe(3);
      expect(inputsOf(QueryCommand).map((i) => [i.Select, i.KeyConditionExpression])).toEqual([
        ['COUNT', 'pk = :pk AND begins_with(sk, :prefix)'],
        ['COUNT', 'pk = :pk AND begins_with(sk, :prefix)'],
      ]);
    });

    it('rawCollectionPages sends the same range as AttributeValues and leaves the items unconverted', async () => {
      ddb
        .on(RawQueryCommand)
        .resolvesOnce({ Items: [{ n: { N: '1' } }], LastEvaluatedKey: { pk: { S: 'p' }, sk: { S: 'T#1' } } })
        .resolvesOnce({ Items: [{ n: { N: '2' } }] });
      const items = [];
      for await (const page of rawCollectionPages({ pk: 'p', prefix: 'T#' }, { ConsistentRead: true })) items.push(...(page.Items ?? []));
      expect(items).toEqual([{ n: { N: '1' } }, { n: { N: '2' } }]);
      const sent = inputsOf(RawQueryCommand);
      expect(sent[0]).toEqual({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': { S: 'p' }, ':prefix': { S: 'T#' } },
        ConsistentRead: true,
      });
      expect(sent[1]!.ExclusiveStartKey).toEqual({ pk: { S: 'p' }, sk: { S: 'T#1' } });
    });
  });
});
