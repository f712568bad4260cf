/**
 * What checking an API key reads: the key and its tenant (and whatever else the request asks)
 * in one BatchGetItem. Apart from api-keys.ts (creation, rotation, lists) so every bearer
 * route's bundle carries this read and none of the write side or the pages.
 */
import { batchGetItems, type ItemKey, type ItemsByKey, itemAt, pickItems } from '../db/batch-get.js';
import { keys } from '../db/keys.js';
import { isId } from '../ids.js';
import type { Role } from '../policy/auth/roles.js';
import { type Tenant, tenantItemKey, tenantOf } from './tenants.js';

export type Actor = { type: 'api_key' | 'user' | 'operator'; id: string | null };

/** Stored form. secret_hash never leaves the repository layer's callers in a response. */
export interface ApiKeyRecord {
  id: string;
  tenant_id: string;
  name: string;
  role: Role;
  status: 'active' | 'retired';
  secret_hash: string;
  secret_last4: string;
  created_at: string;
  created_by: Actor;
  retired_at: string | null;
  replaces_key_id: string | null;
  replaced_by_key_id: string | null;
}

/**
 * A credential's items in ONE strongly consistent BatchGetItem: the key, its tenant (a tenant
 * being deleted refuses every key) and, when asked, more items of the same request (the
 * route's idempotency record, a call's first point reads), so a request's first read is a
 * single call. `also`: the asked items found (see itemAt).
 */
export async function readCredential(
  tenantId: string,
  keyId: string,
  also: readonly ItemKey[] = [],
): Promise<{ key: ApiKeyRecord | undefined; tenant: Tenant | undefined; also: ItemsByKey }> {
  if (!isId(keyId)) return { key: undefined, tenant: undefined, also: new Map() };
  const keyKey = keys.apiKey(tenantId, keyId);
  const tenantKey = tenantItemKey(tenantId);
  const items = await batchGetItems([keyKey, tenantKey, ...also]);
  const tenant = itemAt(items, tenantKey);
  return { key: itemAt(items, keyKey) as ApiKeyRecord | undefined, tenant: tenant && tenantOf(tenant), also: pickItems(items, also) };
}
