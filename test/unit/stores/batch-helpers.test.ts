import { QueryCommand as RawQueryCommand } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { batchGetMany } from '../../../shared/db/batch-get.js';
import { deleteKeys, putItems } from '../../../shared/db/batch-write.js';
import { rawQueryPages } from '../../../shared/db/query.js';
import { UNPROCESSED } from '../../../shared/retry.js';
import { ddb, inputsOf, memoryTable, TABLE } from '../../support/document-client-mock.js';

// The pauses between tries are the retry policy's (tested there); here they only slow the test.
vi.mock('../../../shared/retry.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../shared/retry.js')>()),
  backoff: async () => {},
}));

const key = (n: number) => ({ pk: 'P', sk: `S#${String(n).padStart(3, '0')}` });

describe('batchGetMany (shared/db/batch-get.ts)', () => {
  const table = memoryTable();
  beforeEach(() => table.reset());

  it('reads any number of keys, 100 a call, each key once, and asks again for what was left unprocessed', async () => {
    for (let n = 0; n < 150; n++) table.put({ ...key(n), n });
    table.leaveUnprocessedOnce(key(120));
    const found = await batchGetMany([...Array.from({ length: 160 }, (_, n) => key(n)), key(3)]);
    expect(found.size).toBe(150);
    expect(found.get('P|S#120')?.n).toBe(120);
    const calls = inputsOf(BatchGetCommand).map((i) => i.RequestItems[TABLE]);
    expect(calls.map((c) => c.Keys.length)).toEqual([100, 60, 1]);
    expect(calls.every((c) => c.ConsistentRead === true)).toBe(true);
  });

  it('projects the fields asked for, with the key (it files the item)', async () => {
    table.put({ ...key(1), phone_e164: '+14155550100' });
    await batchGetMany([key(1)], { fields: ['phone_e164'] });
    const [req] = inputsOf(BatchGetCommand).map((i) => i.RequestItems[TABLE]);
    expect(req.ProjectionExpression).toBe('#p0, #p1, #p2');
    expect(req.ExpressionAttributeNames).toEqual({ '#p0': 'pk', '#p1': 'sk', '#p2': 'phone_e164' });
  });
});

describe('writeBatch (shared/db/batch-write.ts)', () => {
  beforeEach(() => ddb.reset());

  it('writes 25 a request and sends again only what DynamoDB left unprocessed', async () => {
    let first = true;
    ddb.on(BatchWriteCommand).callsFake(async (input) => {
      const requests = input.RequestItems[TABLE];
      if (first) {
        first = false;
        return { UnprocessedItems: { [TABLE]: requests.slice(0, 2) } };
      }
      return { UnprocessedItems: {} };
    });
    await putItems(Array.from({ length: 30 }, (_, n) => ({ ...key(n), n })));
    const sent = inputsOf(BatchWriteCommand).map((i) => i.RequestItems[TABLE]);
    expect(sent.map((r) => r.length)).toEqual([25, 2, 5]);
    expect(sent[1]).toEqual(sent[0].slice(0, 2));
  });

  it('gives up with an error when the table keeps refusing (bounded by the UNPROCESSED policy)', async () => {
    ddb.on(BatchWriteCommand).callsFake(async (input) => ({ UnprocessedItems: input.RequestItems }));
    await expect(deleteKeys([key(1)])).rejects.toThrow(/kept refusing/);
    expect(inputsOf(BatchWriteCommand)).toHaveLength(UNPROCESSED.attempts);
  });

  it('keeps `parallel` requests in flight, never more', async () => {
    let inFlight = 0;
    let most = 0;
    ddb.on(BatchWriteCommand).callsFake(async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      return {};
    });
    await deleteKeys(
      Array.from({ length: 200 }, (_, n) => key(n)),
      { parallel: 3 },
    );
    expect(inputsOf(BatchWriteCommand)).toHaveLength(8);
    expect(most).toBe(3);
  });
});

describe('rawQueryPages (shared/db/query.ts)', () => {
  beforeEach(() => ddb.reset());

  it('follows LastEvaluatedKey with the low-level command, items left marshalled', async () => {
    ddb
      .on(RawQueryCommand)
      .resolvesOnce({ Items: [{ n: { N: '1' } }], LastEvaluatedKey: { pk: { S: 'p' }, sk: { S: '1' } } })
      .resolvesOnce({ Items: [{ n: { N: '2' } }] });
    const items = [];
    for await (const page of rawQueryPages({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'p' } } }))
      items.push(...(page.Items ?? []));
    expect(items).toEqual([{ n: { N: '1' } }, { n: { N: '2' } }]);
    const sent = inputsOf(RawQueryCommand);
    expect(sent.map((i) => i.ExclusiveStartKey)).toEqual([undefined, { pk: { S: 'p' }, sk: { S: '1' } }]);
    expect(sent[0]!.TableName).toBe(TABLE);
  });
});
