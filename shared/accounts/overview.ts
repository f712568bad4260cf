/**
 * AccountDeletionOverview (see docs/decisions/account-deletion.md): what deleting the account would remove now, and the
 * protected request's status. Counts are exact (paged COUNT queries on the tenant's own keys).
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { callKeys, collections, contactKeys, tenantPk } from '../db/keys.js';
import { getTenant } from '../repositories/tenants.js';
import { getDeletionRequest } from '../repositories/account-deletion.js';
import { ACTIVE_CAMPAIGN_STATUSES, confirmationPhrase, GRACE_PERIOD_DAYS, RELEASABLE_NUMBER_STATUSES } from './deletion-rules.js';
import type { AccountDeletionOverview } from '../schemas/account-deletion.js';

async function count(input: Omit<QueryCommandInput, 'TableName' | 'Select'>): Promise<number> {
  let total = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new QueryCommand({ ...input, TableName: tableName(), Select: 'COUNT', ExclusiveStartKey: start }));
    total += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return total;
}

const inList = (name: string, values: readonly string[]) => ({
  expr: `#f IN (${values.map((_, i) => `:v${i}`).join(', ')})`,
  names: { '#f': name },
  values: Object.fromEntries(values.map((v, i) => [`:v${i}`, v])),
});

const tenantItemsWith = (tenantId: string, skPrefix: string, field: string, values: readonly string[]) => {
  const f = inList(field, values);
  return count({ KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', FilterExpression: f.expr, ExpressionAttributeNames: f.names, ExpressionAttributeValues: { ':pk': tenantPk(tenantId), ':p': skPrefix, ...f.values } });
};

export async function accountDeletionOverview(tenantId: string): Promise<AccountDeletionOverview> {
  const [tenant, request, contacts, calls, numbers, campaigns, invoices] = await Promise.all([
    getTenant(tenantId),
    getDeletionRequest(tenantId),
    count({ IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :p', ExpressionAttributeValues: { ':p': contactKeys.contactsIndexPartition(tenantId) } }),
    count({ IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :p', ExpressionAttributeValues: { ':p': callKeys.callsIndexPartition(tenantId) } }),
    tenantItemsWith(tenantId, collections.phoneNumbers, 'status', RELEASABLE_NUMBER_STATUSES),
    tenantItemsWith(tenantId, collections.campaigns, 'status', ACTIVE_CAMPAIGN_STATUSES),
    // Invoices are the billing area's items (`INVOICE#…`, status open; docs/decisions/billing.md).
    tenantItemsWith(tenantId, collections.invoices, 'status', ['open']),
  ]);
  const name = tenant?.name ?? '';
  return {
    object: 'account_deletion',
    tenant: { id: tenantId, name },
    impact: { contacts, calls, phone_numbers_to_release: numbers, active_campaigns: campaigns, open_invoices: invoices },
    request: request
      ? {
          status: request.status,
          requested_at: request.requested_at,
          scheduled_for: request.status === 'pending' || request.status === 'deleting' ? request.scheduled_for : null,
          confirmed_by: request.confirmed_by,
          cancelled_at: request.cancelled_at,
          completed_at: request.completed_at,
        }
      : { status: 'none', requested_at: null, scheduled_for: null, confirmed_by: null, cancelled_at: null, completed_at: null },
    grace_period_days: GRACE_PERIOD_DAYS,
    confirmation_phrase: confirmationPhrase(name),
  };
}
