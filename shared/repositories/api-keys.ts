import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, type ItemKey, type ItemsByKey, itemAt, pickItems } from '../db/batch-get.js';
import { db, tableName } from '../db/client.js';
import { collections, keys } from '../db/keys.js';
import { isId } from '../ids.js';
import { type Page, queryPage } from '../pagination/page.js';
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

export const apiKeyItem = (k: ApiKeyRecord) => ({ ...keys.apiKey(k.tenant_id, k.id), type: 'api_key', ...k });

/** Strongly consistent: a key retired a millisecond ago is refused on the next request. */
export async function getApiKey(tenantId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
  if (!isId(keyId)) return undefined; // a malformed id names nothing, like a missing one
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.apiKey(tenantId, keyId), ConsistentRead: true }));
  return out.Item as ApiKeyRecord | undefined;
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

export function listApiKeys(tenantId: string, opts: { limit: number; cursor?: string }): Promise<Page<ApiKeyRecord>> {
  return queryPage({
    tenantId,
    scope: 'api_keys',
    skPrefix: collections.apiKeys,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    map: (item) => item as unknown as ApiKeyRecord,
  });
}

export async function putApiKey(record: ApiKeyRecord): Promise<void> {
  await db().send(
    new TransactWriteCommand({
      TransactItems: [{ Put: { TableName: tableName(), Item: apiKeyItem(record), ConditionExpression: 'attribute_not_exists(pk)' } }],
    }),
  );
}

/**
 * Retire `old` and store `replacement` in one transaction. The retire is conditional on
 * the key still being active, so two concurrent rotations cannot both mint a successor.
 */
export async function rotateApiKey(old: ApiKeyRecord, replacement: ApiKeyRecord, now: string): Promise<void> {
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: tableName(),
            Key: keys.apiKey(old.tenant_id, old.id),
            UpdateExpression: 'SET #status = :retired, retired_at = :now, replaced_by_key_id = :next',
            ConditionExpression: '#status = :active',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':retired': 'retired', ':active': 'active', ':now': now, ':next': replacement.id },
          },
        },
        { Put: { TableName: tableName(), Item: apiKeyItem(replacement), ConditionExpression: 'attribute_not_exists(pk)' } },
      ],
    }),
  );
}
