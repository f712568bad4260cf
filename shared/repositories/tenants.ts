import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { keys } from '../db/keys.js';

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

/** A tenant whose credentials (API keys, sessions, sign-in) still work: not being deleted nor deleted. */
export const tenantUsable = (tenant: Pick<Tenant, 'status'> | undefined): tenant is Tenant => Boolean(tenant) && tenant!.status !== 'deleting' && tenant!.status !== 'deleted';
