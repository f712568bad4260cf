/** The campaign's rows and work queue (aws-sdk-client-mock): the reads the launch and the cancel sweep make, and the items they commit. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { campaignKeys, campaignPartition } from '../../../shared/db/keys.js';
import {
  allQueued,
  dueQueue,
  getCampaignRow,
  rowDisposeQueuedItems,
  rowLaunchItems,
  scheduledAttemptCalls,
  scrubbedRowItems,
} from '../../../shared/repositories/campaign-outcomes.js';
import { ddb } from '../../support/document-client-mock.js';

const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const C = 'cmp_01JAAAAAAAAAAAAAAAAAAAAAAA';
const CON = 'con_01JAAAAAAAAAAAAAAAAAAAAAAA';
const q = { sk: `QUEUE#2026-11-18T15:00:00.000Z#${CON}`, contact_id: CON };

beforeEach(() => ddb.reset());

describe('reads', () => {
  it('the due queue: oldest first up to the instant, at most the free slots, consistent', async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ pk: campaignPartition(T, C), ...q }] });
    expect(await dueQueue(T, C, new Date('2026-11-18T15:00:01.000Z'), 7)).toEqual([q]);
    const sent = ddb.commandCalls(QueryCommand)[0]!.args[0].input;
    expect(sent).toMatchObject({ Limit: 7, ConsistentRead: true, KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to' });
    expect(sent.ExpressionAttributeValues).toEqual({ ':pk': campaignPartition(T, C), ':from': 'QUEUE#', ':to': 'QUEUE#2026-11-18T15:00:01.000Z#~' });
  });
  it('every queued contact and every scheduled attempt, page after page', async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [q], LastEvaluatedKey: { pk: 'a', sk: 'b' } })
      .resolvesOnce({ Items: [{ ...q, sk: 'QUEUE#2#x', contact_id: 'x' }] });
    expect((await allQueued(T, C)).map((x) => x.contact_id)).toEqual([CON, 'x']);
    expect(ddb.commandCalls(QueryCommand)[1]!.args[0].input.ExclusiveStartKey).toEqual({ pk: 'a', sk: 'b' });
    ddb.reset();
    ddb.on(QueryCommand).resolves({ Items: [{ call_id: 'cal_1' }] });
    expect(await scheduledAttemptCalls(T, C)).toEqual(['cal_1']);
    expect(ddb.commandCalls(QueryCommand)[0]!.args[0].input.FilterExpression).toBe('row_status = :active AND latest_attempt_state = :scheduled');
  });
  it('a row by its key', async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ contact_id: CON, attempts: 1 }] });
    expect(await getCampaignRow(T, C, CON)).toMatchObject({ attempts: 1 });
    expect(ddb.commandCalls(QueryCommand)[0]!.args[0].input.ExpressionAttributeValues).toEqual({
      ':pk': campaignKeys.row(T, C, CON).pk,
      ':sk': campaignKeys.row(T, C, CON).sk,
    });
  });
});

describe('items', () => {
  it('a launch: the queue item only if still there, the row only if still pending at the attempts read', () => {
    const [del, row] = rowLaunchItems(T, C, q, { attempts: 1, number: 2, attempt_id: 'att_1', call_id: 'cal_1', at: '2026-11-18T15:00:00.000Z' });
    expect(del!.Delete).toMatchObject({ Key: { pk: campaignPartition(T, C), sk: q.sk }, ConditionExpression: 'attribute_exists(pk)' });
    expect(row!.Update!.ConditionExpression).toBe('row_status = :pending AND attempts = :was');
    expect(row!.Update!.ExpressionAttributeValues).toMatchObject({ ':n': 2, ':was': 1, ':call': 'cal_1', ':active': 'active' });
  });
  it('a cancelled queued contact: queue item gone, row done with the sub code, only if pending', () => {
    const [del, row] = rowDisposeQueuedItems(T, C, q, 'campaign_cancelled', '2026-11-18T15:00:00.000Z');
    expect(del!.Delete!.ConditionExpression).toBe('attribute_exists(pk)');
    expect(row!.Update!.ConditionExpression).toBe('row_status = :pending');
    expect(row!.Update!.ExpressionAttributeValues).toMatchObject({ ':sub': 'campaign_cancelled', ':done': 'done' });
  });
  it('a scrubbed row is put only if absent, with its queue item unless blocked', () => {
    const items = scrubbedRowItems(T, C, { contact_id: CON, row_status: 'pending' }, '2026-11-18T16:00:00.000Z');
    expect(items[0]!.Put).toMatchObject({
      Item: { ...campaignKeys.row(T, C, CON), type: 'campaign_contact', row_status: 'pending' },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(items[1]!.Put!.Item).toEqual({ ...campaignKeys.queue(T, C, '2026-11-18T16:00:00.000Z', CON), type: 'campaign_queue', contact_id: CON });
    expect(scrubbedRowItems(T, C, { contact_id: CON }, null)).toHaveLength(1);
  });
});
