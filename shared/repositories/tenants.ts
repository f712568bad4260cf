import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { keys } from '../db/keys.js';
import type { TransactItem } from '../db/transact-write.js';

export interface Tenant {
  id: string;
  name: string;
  /** `deleting` from the moment an account deletion starts, `deleted` after (the tombstone): both refuse every credential. */
  status: 'active' | 'suspended' | 'deleting' | 'deleted';
  created_at: string;
}

export const tenantItem = (t: Tenant) => ({ ...keys.tenant(t.id), type: 'tenant', ...t });

export async function getTenant(tenantId: string): Promise<Tenant | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.tenant(tenantId), ConsistentRead: true }));
  return out.Item ? tenantOf(out.Item) : undefined;
}

export const tenantItemKey = (tenantId: string) => keys.tenant(tenantId);

/** The tenant an item read holds (its storage keys and bookkeeping left out). */
export function tenantOf(item: Record<string, unknown>): Tenant {
  const { id, name, status, created_at } = item as unknown as Tenant;
  return { id, name, status, created_at };
}

/** The tenant record's move to `deleting` (never undoing a tombstone), for the transaction that starts a deletion. */
export const tenantDeletingItem = (tenantId: string) =>
  ({
    Update: {
      TableName: tableName(),
      Key: keys.tenant(tenantId),
      UpdateExpression: 'SET #s = :deleting',
      ConditionExpression: 'attribute_not_exists(#s) OR #s <> :deleted',
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: { ':deleting': 'deleting', ':deleted': 'deleted' },
    },
  }) satisfies TransactItem;

/** The same move on its own (a deletion run that started before the status existed). */
export async function markTenantDeleting(tenantId: string): Promise<void> {
  await db().send(new UpdateCommand(tenantDeletingItem(tenantId).Update));
}

/** The tenant record replaced by its tombstone (the kept form after a deletion). */
export async function putTenantTombstone(tombstone: { pk: string; sk: string } & Record<string, unknown>): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: tombstone }));
}

/** A tenant whose credentials (API keys, sessions, sign-in) still work: not being deleted nor deleted. */
export const tenantUsable = (tenant: Pick<Tenant, 'status'> | undefined): tenant is Tenant =>
  Boolean(tenant) && tenant!.status !== 'deleting' && tenant!.status !== 'deleted';
