import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../shared/db/client.js';
import { OUTBOX_SHARDS, outboxKeys } from '../../shared/db/keys.js';
import { outboxItems } from '../../shared/events/outbox.js';
import { newId } from '../../shared/ids.js';
import { getEvent, listTenantEvents, markRelayed, pendingEvents } from '../../shared/repositories/outbox-events.js';
import { useTestEnvironment } from '../support/environment.js';

useTestEnvironment({ queues: false, bucket: false });

const stateChange = (tenantId: string, id: string, condition?: string) => ({
  Put: { TableName: tableName(), Item: { pk: `TENANT#${tenantId}#THING#${id}`, sk: 'THING', n: 1 }, ...(condition ? { ConditionExpression: condition } : {}) },
});

async function allPending() {
  const shards = await Promise.all(Array.from({ length: OUTBOX_SHARDS }, (_, s) => pendingEvents(s, 1000)));
  return shards.flat();
}

describe('the transactional outbox on DynamoDB Local', () => {
  it('commits the event and its relay marker with the state change, oldest first in the tenant log', async () => {
    const tenantId = newId('ten');
    const at = new Date('2026-11-24T10:00:00Z');
    const first = outboxItems(tenantId, 'call.queued', { call_id: 'cal_1' }, at);
    const second = outboxItems(tenantId, 'call.completed', { call_id: 'cal_1' }, at);
    await db().send(new TransactWriteCommand({ TransactItems: [stateChange(tenantId, 'a'), ...first.items] }));
    await db().send(new TransactWriteCommand({ TransactItems: [stateChange(tenantId, 'b'), ...second.items] }));
    expect((await listTenantEvents(tenantId)).map((e) => e.type)).toEqual(['call.queued', 'call.completed']);
    expect(await getEvent(tenantId, first.event.id)).toEqual({
      id: first.event.id,
      type: 'call.queued',
      tenant_id: tenantId,
      created_at: at.toISOString(),
      data: { call_id: 'cal_1' },
    });
    const pending = (await allPending()).filter((p) => p.tenant_id === tenantId);
    expect(pending.map((p) => p.event_id).sort()).toEqual([first.event.id, second.event.id].sort());
    expect(outboxKeys.pending(first.event.id).pk).toMatch(/^PLATFORM#OUTBOX#[0-3]$/);

    await markRelayed(first.event.id);
    expect((await allPending()).filter((p) => p.tenant_id === tenantId).map((p) => p.event_id)).toEqual([second.event.id]);
    expect(await getEvent(tenantId, first.event.id)).toBeDefined();
  });

  it('a state change refused by its condition commits no event and no marker', async () => {
    const tenantId = newId('ten');
    const { event, items } = outboxItems(tenantId, 'call.dialing', {}, new Date());
    await expect(db().send(new TransactWriteCommand({ TransactItems: [stateChange(tenantId, 'c', 'attribute_exists(pk)'), ...items] }))).rejects.toBeInstanceOf(
      TransactionCanceledException,
    );
    expect(await listTenantEvents(tenantId)).toEqual([]);
    expect(await getEvent(tenantId, event.id)).toBeUndefined();
    expect((await allPending()).some((p) => p.event_id === event.id)).toBe(false);
  });
});
