/**
 * Dashboard sessions (see docs/decisions/auth-and-sessions.md): `PLATFORM#SESSION#<sha256(secret)>` / `SESSION`, a
 * server-side record (tenant, user, created, last used, expiries) the cookie only points at;
 * the cookie is `vas_<secret>` and names no tenant. gsi1 `TENANT#<t>#SESSIONS` /
 * `USER#<usr>#<hash>` lists a tenant's or a user's sessions (revoked by account deletion and
 * by a password change). Revoking = deleting the record; DynamoDB's TTL removes expired ones
 * (reads check the expiry themselves: shared/sessions/session-cookie.ts).
 */

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deleteKeys } from '../db/batch-write.js';
import { db, tableName } from '../db/client.js';
import { platformKeys } from '../db/keys.js';
import { collectionPages, queryPages } from '../db/query.js';

export interface SessionRecord {
  tenant_id: string;
  user_id: string;
  secret_hash: string;
  created_at: string;
  last_used_at: string;
}

/** The item a session writes (alone, or in a link-spending transaction); `ttl` in epoch seconds. */
export const sessionItem = (record: SessionRecord, ttl: number): Record<string, unknown> => ({
  ...platformKeys.session(record.secret_hash),
  ...platformKeys.sessionIndex(record.tenant_id, record.user_id, record.secret_hash),
  type: 'session',
  ...record,
  ttl,
});

/** Store a new session (never over another with the same secret). */
export async function putSession(item: Record<string, unknown>): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
}

/** The session stored under this secret hash, or undefined. */
export async function getSession(secretHash: string): Promise<SessionRecord | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.session(secretHash), ConsistentRead: true }));
  const item = out.Item as SessionRecord | undefined;
  if (!item || item.secret_hash !== secretHash) return undefined;
  return { tenant_id: item.tenant_id, user_id: item.user_id, secret_hash: item.secret_hash, created_at: item.created_at, last_used_at: item.last_used_at };
}

/** Slide a session's last use to `at`; only a still-existing session slides (a concurrent sign-out wins). */
export async function touchSession(secretHash: string, at: Date): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: platformKeys.session(secretHash),
        UpdateExpression: 'SET last_used_at = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at.toISOString() },
      }),
    )
    .catch((err: unknown) => {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    });
}

export async function revokeSession(secretHash: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: platformKeys.session(secretHash) }));
}

/** Revoke every session of the tenant, or of one of its users (account deletion; a password change). */
export async function revokeSessions(tenantId: string, userId?: string): Promise<number> {
  let revoked = 0;
  const pk = platformKeys.sessionsIndexPartition(tenantId);
  const pages = userId
    ? collectionPages({ index: 'gsi1', pk, prefix: `USER#${userId}#` })
    : queryPages({ IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': pk } });
  for await (const page of pages) {
    const items = (page.Items ?? []) as { pk: string; sk: string }[];
    await deleteKeys(items);
    revoked += items.length;
  }
  return revoked;
}
