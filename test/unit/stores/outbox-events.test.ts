import { DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { getEvent, listTenantEvents, markRelayed, pendingEvents } from '../../../shared/repositories/outbox-events.js';
import { ddb, inputsOf, TABLE } from '../../support/document-client-mock.js';

const T1 = 'ten_01hzy3v7q8a9b0c1d2e3f4g5h6';
const E1 = 'evt_01hzy3v7q8a9b0c1d2e3f4g5h6';
const event = (id: string) => ({ id, type: 'call.queued', tenant_id: T1, created_at: '2026-01-01T00:00:00.000Z', data: {} });

beforeEach(() => ddb.reset());

describe('outbox-events store', () => {
  it("lists a tenant's events across pages, strongly consistent, and stops at the limit", async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ event: event('a') }, { event: event('b') }], LastEvaluatedKey: { pk: 'x', sk: 'y' } })
      .resolvesOnce({ Items: [{ event: event('c') }] });
    expect((await listTenantEvents(T1)).map((e) => e.id)).toEqual(['a', 'b', 'c']);
    const [first] = inputsOf(QueryCommand);
    expect(first).toMatchObject({
      TableName: TABLE,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ConsistentRead: true,
      ExpressionAttributeValues: { ':pk': `TENANT#${T1}#EVENTS`, ':prefix': 'EVENT#' },
    });

    ddb.reset();
    ddb.on(QueryCommand).resolves({ Items: [{ event: event('a') }, { event: event('b') }], LastEvaluatedKey: { pk: 'x', sk: 'y' } });
    expect((await listTenantEvents(T1, { limit: 1 })).map((e) => e.id)).toEqual(['a']);
    expect(inputsOf(QueryCommand)).toHaveLength(1);
  });

  it("reads a shard's pending markers with the limit and maps them to tenant + event", async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ pk: 'PLATFORM#OUTBOX#3', sk: E1, tenant_id: T1, event_id: E1, type: 'outbox_pending' }] });
    expect(await pendingEvents(3, 25)).toEqual([{ tenant_id: T1, event_id: E1 }]);
    expect(inputsOf(QueryCommand)[0]).toMatchObject({ KeyConditionExpression: 'pk = :pk', Limit: 25 });
  });

  it('gets one event by key and deletes a relayed marker', async () => {
    ddb.on(GetCommand).resolves({ Item: { event: event(E1) } });
    expect((await getEvent(T1, E1))?.id).toBe(E1);
    expect(inputsOf(GetCommand)[0]).toMatchObject({ ConsistentRead: true, Key: { sk: `EVENT#${E1}` } });
    ddb.on(GetCommand).resolves({});
    expect(await getEvent(T1, E1)).toBeUndefined();
    await markRelayed(E1);
    expect(inputsOf(DeleteCommand)[0]!.Key.sk).toBe(E1);
  });
});
