import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { collections, keys } from '../db/keys.js';
import { isId } from '../ids.js';
import { type Page, queryPage } from '../pagination/page.js';
import type { ApiKeyRecord } from './api-key-credentials.js';

export const apiKeyItem = (k: ApiKeyRecord) => ({ ...keys.apiKey(k.tenant_id, k.id), type: 'api_key', ...k });

/** Strongly consistent: a key retired a millisecond ago is refused on the next request. */
export async function getApiKey(tenantId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
  if (!isId(keyId)) return undefined; // a malformed id names nothing, like a missing one
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.apiKey(tenantId, keyId), ConsistentRead: true }));
  return out.Item as ApiKeyRecord | undefined;
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
