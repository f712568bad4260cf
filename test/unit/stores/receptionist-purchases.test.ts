/** Receptionist purchases (shared/repositories/receptionist-purchases.ts): priced on the plan, one conditional transaction, retried on contention. */
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { billingKeys, keys } from '../../../shared/db/keys.js';
import { PLANS } from '../../../shared/policy/billing/plans.js';
import { connectionsBoughtSince, getReceptionistPurchase, purchaseReceptionistConnections } from '../../../shared/repositories/receptionist-purchases.js';
import { ddb, inputsOf, memoryTable, transactionCancelled } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const plan = PLANS[0]!;
const at = new Date('2026-11-18T15:00:00.000Z');
beforeEach(() => {
  table.reset();
  table.put({ ...keys.tenant(T), id: T, created_at: 'c' });
  table.put({ ...billingKeys.account(T), tenant_id: T, plan_id: plan.id, receptionist_connections: 2, canceled_at: null, created_at: 'c', updated_at: 'c' });
});

describe('purchaseReceptionistConnections', () => {
  it('prices on the plan and moves the count from what was read, with its event, in one transaction', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const p = await purchaseReceptionistConnections(T, 3, at);
    expect(p).toMatchObject({
      status: 'confirmed',
      receptionist_connections: 3,
      total_inbound_connections: plan.included_inbound_connections + 5,
      amount_due_minor: 3 * plan.receptionist_connection_price_minor,
      recurring_connections_minor: 5 * plan.receptionist_connection_price_minor,
      currency: plan.currency,
    });
    const [put, update, ...outbox] = inputsOf(TransactWriteCommand)[0]!.TransactItems;
    expect(put.Put).toMatchObject({ Item: { ...billingKeys.purchase(T, p.id), plan_id: plan.id }, ConditionExpression: 'attribute_not_exists(pk)' });
    expect(update.Update.ConditionExpression).toBe(
      'receptionist_connections = :from AND (attribute_not_exists(canceled_at) OR attribute_type(canceled_at, :null_type))',
    );
    expect(update.Update.ExpressionAttributeValues).toMatchObject({ ':from': 2, ':to': 5 });
    expect(JSON.stringify(outbox)).toContain('subscription.receptionist_purchased');
  });

  it('a canceled subscription buys nothing (409); contention on every attempt is 409 purchase_contended', async () => {
    table.put({ ...table.get(billingKeys.account(T))!, ...billingKeys.account(T), canceled_at: '2026-11-01T00:00:00.000Z' });
    await expect(purchaseReceptionistConnections(T, 1, at)).rejects.toMatchObject({ code: 'subscription_canceled' });
    expect(inputsOf(TransactWriteCommand)).toHaveLength(0);
    table.put({ ...table.get(billingKeys.account(T))!, ...billingKeys.account(T), canceled_at: null });
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'ConditionalCheckFailed']));
    await expect(purchaseReceptionistConnections(T, 1, at)).rejects.toMatchObject({ code: 'purchase_contended' });
    expect(inputsOf(TransactWriteCommand)).toHaveLength(8);
  });

  it('reads a purchase back; counts the connections bought since an instant across pages', async () => {
    table.put({
      ...billingKeys.purchase(T, 'rcp_01JAAAAAAAAAAAAAAAAAAAAAAA'),
      id: 'rcp_01JAAAAAAAAAAAAAAAAAAAAAAA',
      status: 'confirmed',
      receptionist_connections: 2,
    });
    expect(await getReceptionistPurchase(T, 'rcp_01JAAAAAAAAAAAAAAAAAAAAAAA')).toMatchObject({ receptionist_connections: 2 });
    expect(await getReceptionistPurchase(T, 'a#b')).toBeUndefined();
    ddb.reset();
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ receptionist_connections: 2 }], LastEvaluatedKey: { pk: 'p', sk: 's' } })
      .resolves({ Items: [{ receptionist_connections: 3 }] });
    expect(await connectionsBoughtSince(T, at)).toBe(5);
    const [first, second] = inputsOf(QueryCommand);
    expect(first).toMatchObject({ FilterExpression: 'created_at >= :since', ConsistentRead: true, ExpressionAttributeValues: { ':since': at.toISOString() } });
    expect(second!.ExclusiveStartKey).toEqual({ pk: 'p', sk: 's' });
  });
});
