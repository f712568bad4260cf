import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { keys } from '../db/keys.js';

export interface Tenant {
  id: string;
  name: string;
  status: 'active' | 'suspended';
  created_at: string;
}

export const tenantItem = (t: Tenant) => ({ ...keys.tenant(t.id), type: 'tenant', ...t });

export async function getTenant(tenantId: string): Promise<Tenant | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.tenant(tenantId) }));
  if (!out.Item) return undefined;
  const { id, name, status, created_at } = out.Item as Tenant;
  return { id, name, status, created_at };
}
