/** Watch items (shared/repositories/call-watches.ts): the items, the oldest-first sweep over shards, and re-arming. */
import { DeleteCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { callKeys, DISPATCH_SHARDS, dispatchKeys } from '../../../shared/db/keys.js';
import {
  analysisWatchDelete,
  analysisWatchPut,
  dropWatch,
  rearmWatch,
  sweepWatches,
  unfinishedWatchDelete,
  unfinishedWatchPut,
  watchesOlderThan,
} from '../../../shared/repositories/call-watches.js';
import { ddb, inputsOf, transactionCancelled } from '../../support/document-client-mock.js';

const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CALL = 'cal_01JAAAAAAAAAAAAAAAAAAAAAAA';
const call = { tenant_id: T, id: CALL };
beforeEach(() => ddb.reset());

describe('watch items', () => {
  it('are keyed by their instant in the call’s shard, and deleted by the same key', () => {
    expect(unfinishedWatchPut(call, 's1', 'l1').Put!.Item).toEqual({
      ...dispatchKeys.unfinished('s1', T, CALL),
      type: 'unfinished_watch',
      tenant_id: T,
      call_id: CALL,
      since: 's1',
      linked_at: 'l1',
    });
    expect(unfinishedWatchPut(call, 's1').Put!.Item!.linked_at).toBe('s1');
    expect(unfinishedWatchDelete(T, CALL, 's1').Delete!.Key).toEqual(dispatchKeys.unfinished('s1', T, CALL));
    expect(analysisWatchPut(call, 's2').Put!.Item).toMatchObject({ ...dispatchKeys.analysis('s2', T, CALL), type: 'analysis_watch' });
    expect(analysisWatchDelete(T, CALL, 's2').Delete!.Key).toEqual(dispatchKeys.analysis('s2', T, CALL));
  });

  it('reads a shard’s watches older than the bound, oldest first, consistent, a page at most', async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ sk: 'a' }] });
    expect(await watchesOlderThan('P', 'B', 7)).toEqual([{ sk: 'a' }]);
    expect(inputsOf(QueryCommand)[0]).toMatchObject({
      KeyConditionExpression: 'pk = :pk AND sk < :before',
      ExpressionAttributeValues: { ':pk': 'P', ':before': 'B' },
      Limit: 7,
      ConsistentRead: true,
    });
    ddb.on(DeleteCommand).resolves({});
    await dropWatch({ pk: 'P', sk: 'S' });
    expect(inputsOf(DeleteCommand)[0]!.Key).toEqual({ pk: 'P', sk: 'S' });
  });
});

describe('sweepWatches', () => {
  it('hands every shard’s items to the handler, counts what it counted, and leaves a failure for the next run', async () => {
    ddb.on(QueryCommand).callsFake(async (input) => ({
      Items: [
        { shard: input.ExpressionAttributeValues[':pk'], n: 1 },
        { shard: input.ExpressionAttributeValues[':pk'], n: 2 },
      ],
    }));
    const seen: string[] = [];
    const counted = await sweepWatches(
      (s) => `P#${s}`,
      'B',
      async (item) => {
        seen.push(`${item.shard}/${item.n}`);
        if (item.shard === 'P#1' && item.n === 1) throw new Error('later');
        return item.n === 2;
      },
      'test sweep',
    );
    expect(seen).toHaveLength(2 * DISPATCH_SHARDS);
    expect(counted).toBe(DISPATCH_SHARDS);
    expect(inputsOf(QueryCommand).map((q) => q.ExpressionAttributeValues[':pk'])).toEqual(Array.from({ length: DISPATCH_SHARDS }, (_, s) => `P#${s}`));
  });

  it('stops when the run is out of time, asked before each item', async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ n: 1 }, { n: 2 }] });
    let handled = 0;
    expect(
      await sweepWatches(
        (s) => `P#${s}`,
        'B',
        async () => ++handled > 0,
        'test',
        () => true,
      ),
    ).toBe(0);
    expect(handled).toBe(0);
    // A clock that reaches the deadline after the first item: that one is handled, the rest wait.
    let clock = 0;
    const stopAt = 1;
    const counted = await sweepWatches(
      (s) => `P#${s}`,
      'B',
      async () => {
        clock++;
        return ++handled > 0;
      },
      'test',
      () => clock >= stopAt,
    );
    expect(counted).toBe(1);
    expect(handled).toBe(1);
  });
});

describe('rearmWatch', () => {
  const watch = { pk: 'P', sk: 'S', tenant_id: T, call_id: CALL, since: 's1' };
  const opts = {
    field: 'analysis_watch_at' as const,
    andCondition: 'attribute_not_exists(analysis)',
    remove: analysisWatchDelete(T, CALL, 's1'),
    put: analysisWatchPut(call, 's2'),
  };

  it('moves the call’s pointer only while it names this watch, deleting the old item and putting the new', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    expect(await rearmWatch(watch, 's2', opts)).toBe(true);
    const [update, remove, put] = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(update.Update).toMatchObject({
      Key: callKeys.call(T, CALL),
      UpdateExpression: 'SET analysis_watch_at = :next',
      ConditionExpression: 'analysis_watch_at = :since AND attribute_not_exists(analysis)',
      ExpressionAttributeValues: { ':next': 's2', ':since': 's1' },
    });
    expect([remove, put]).toEqual([opts.remove, opts.put]);
  });

  it('a call that no longer names it: the watch is extra and dropped; any other refusal surfaces', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed', 'None', 'None']));
    ddb.on(DeleteCommand).resolves({});
    expect(await rearmWatch(watch, 's2', opts)).toBe(false);
    expect(inputsOf(DeleteCommand)[0]!.Key).toEqual({ pk: 'P', sk: 'S' });
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'TransactionConflict', 'None']));
    await expect(rearmWatch(watch, 's2', opts)).rejects.toThrow();
  });
});
