/**
 * Receptionist purchases (see docs/decisions/billing.md): a purchase of receptionist connections, priced on the
 * tenant's plan, recorded (`RECEPTIONIST_PURCHASE#<rcp>`) and added to the billing account's
 * connections in ONE conditional transaction with its event; the connections are billed
 * monthly on the invoices from then on (a `receptionist_connections` line). A canceled
 * subscription takes no purchase: 409 `subscription_canceled`, nothing written.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { commit, conditionalTransaction } from '../db/conditional-transaction.js';
import { billingKeys, tenantPk } from '../db/keys.js';
import { queryCollection } from '../db/query.js';
import { conflict } from '../errors.js';
import { outboxItems } from '../events/outbox.js';
import { newId } from '../ids.js';
import { ensureBillingAccount, getPlan } from './billing.js';

export interface ReceptionistPurchase {
  id: string;
  status: 'confirmed';
  receptionist_connections: number;
  total_inbound_connections: number;
  amount_due_minor: number;
  recurring_connections_minor: number;
  currency: string;
}

const present = (r: Record<string, unknown>): ReceptionistPurchase => ({
  id: r.id as string,
  status: r.status as 'confirmed',
  receptionist_connections: r.receptionist_connections as number,
  total_inbound_connections: r.total_inbound_connections as number,
  amount_due_minor: r.amount_due_minor as number,
  recurring_connections_minor: r.recurring_connections_minor as number,
  currency: r.currency as string,
});

/**
 * Prices and records the purchase: amount_due = connections × the plan's monthly price
 * (what it adds to each invoice, no proration), recurring = every purchased connection ×
 * price, total_inbound_connections = the plan's included ones + every purchased one.
 */
export async function purchaseReceptionistConnections(tenantId: string, connections: number, at: Date): Promise<ReceptionistPurchase> {
  // Another purchase changing the count between the read and the write: price again on what is now held.
  return conditionalTransaction({
    decide: async () => {
      const account = await ensureBillingAccount(tenantId);
      if (!account) throw new Error(`tenant ${tenantId} has no billing account`);
      if (account.canceled_at) throw subscriptionCanceled(account.canceled_at);
      const plan = await getPlan(account.plan_id);
      if (!plan) throw new Error(`plan ${account.plan_id} is not seeded`);
      const purchased = account.receptionist_connections + connections;
      const nowIso = at.toISOString();
      const purchase = {
        id: newId('rcp'),
        status: 'confirmed' as const,
        receptionist_connections: connections,
        total_inbound_connections: plan.included_inbound_connections + purchased,
        amount_due_minor: connections * plan.receptionist_connection_price_minor,
        recurring_connections_minor: purchased * plan.receptionist_connection_price_minor,
        currency: plan.currency,
      };
      return commit(
        [
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...billingKeys.purchase(tenantId, purchase.id),
                type: 'receptionist_purchase',
                tenant_id: tenantId,
                plan_id: plan.id,
                ...purchase,
                created_at: nowIso,
                updated_at: nowIso,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: billingKeys.account(tenantId),
              UpdateExpression: 'SET receptionist_connections = :to, updated_at = :now',
              // Still not canceled (stored null until then): a cancel between the read and here sends us round to the 409.
              ConditionExpression: 'receptionist_connections = :from AND (attribute_not_exists(canceled_at) OR attribute_type(canceled_at, :null_type))',
              ExpressionAttributeValues: { ':to': purchased, ':from': account.receptionist_connections, ':now': nowIso, ':null_type': 'NULL' },
            },
          },
          ...outboxItems(tenantId, 'subscription.receptionist_purchased', { purchase_id: purchase.id, ...purchase, at: nowIso }, at).items,
        ],
        purchase,
      );
    },
    // Contention, not a fault: nothing was written, and the client may simply send it again.
    exhausted: (_err, attempts) =>
      conflict(
        'purchase_contended',
        `Other purchases changed the subscription under each of ${attempts} attempts; nothing was bought. Send the purchase again.`,
      ),
  });
}

/** A canceled subscription buys nothing more: its invoices stop after the period of the cancel. */
const subscriptionCanceled = (at: string) =>
  conflict('subscription_canceled', `The subscription was canceled at ${at}; it takes no new purchases. Nothing was bought.`);

export async function getReceptionistPurchase(tenantId: string, purchaseId: string): Promise<ReceptionistPurchase | undefined> {
  if (purchaseId.includes('#')) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: billingKeys.purchase(tenantId, purchaseId) }));
  return out.Item ? present(out.Item) : undefined;
}

/**
 * Connections bought at or after `since` (the invoice of a closed period counts the
 * connections held at its end: the account's count minus these). One Query of the tenant's
 * purchases, filtered on `created_at`.
 */
export async function connectionsBoughtSince(tenantId: string, since: Date): Promise<number> {
  const items = await queryCollection(
    { pk: tenantPk(tenantId), prefix: 'RECEPTIONIST_PURCHASE#' },
    { FilterExpression: 'created_at >= :since', ExpressionAttributeValues: { ':since': since.toISOString() }, ConsistentRead: true },
  );
  return items.reduce((total, item) => total + Number(item.receptionist_connections ?? 0), 0);
}
