/**
 * Dashboard sessions (see docs/decisions/auth-and-sessions.md): `PLATFORM#SESSION#<sha256(secret)>` / `SESSION`, a
 * server-side record (tenant, user, created, last used, expiries) the cookie only points at;
 * the cookie is `vas_<secret>` and names no tenant. gsi1 `TENANT#<t>#SESSIONS` /
 * `USER#<usr>#<hash>` lists a tenant's or a user's sessions (revoked by account deletion and
 * by a password change). Revoking = deleting the record; DynamoDB's TTL removes expired ones
 * (reads check the expiry themselves).
 */
import { deleteKeys } from '../db/batch-delete.js';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { platformKeys } from '../db/keys.js';
import { mintToken, parseToken } from '../auth/opaque-token.js';
import { absoluteExpiry, needsTouch, sessionActive, SESSION_TOKEN_PREFIX } from '../auth/session-rules.js';

export interface SessionRecord {
  tenant_id: string;
  user_id: string;
  secret_hash: string;
  created_at: string;
  last_used_at: string;
}

const ttlOf = (s: SessionRecord) => Math.ceil(absoluteExpiry(s) / 1000) + 3600;

/** The item a new session writes (alone, or in a link-spending transaction). */
export function newSession(tenantId: string, userId: string, at: Date): { cookieValue: string; record: SessionRecord; item: Record<string, unknown> } {
  const { token, hash } = mintToken(SESSION_TOKEN_PREFIX, []);
  const record: SessionRecord = { tenant_id: tenantId, user_id: userId, secret_hash: hash, created_at: at.toISOString(), last_used_at: at.toISOString() };
  return { cookieValue: token, record, item: { ...platformKeys.session(hash), ...platformKeys.sessionIndex(tenantId, userId, hash), type: 'session', ...record, ttl: ttlOf(record) } };
}

export async function createSession(tenantId: string, userId: string, at: Date): Promise<{ cookieValue: string; record: SessionRecord }> {
  const s = newSession(tenantId, userId, at);
  await db().send(new PutCommand({ TableName: tableName(), Item: s.item, ConditionExpression: 'attribute_not_exists(pk)' }));
  return s;
}

/** The live session a cookie value names (and slides its idle expiry), or undefined. */
export async function useSession(cookieValue: string, at: Date): Promise<SessionRecord | undefined> {
  const parsed = parseToken(SESSION_TOKEN_PREFIX, cookieValue, 0);
  if (!parsed) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.session(parsed.hash), ConsistentRead: true }));
  const item = out.Item as (SessionRecord & { tenant_id: string }) | undefined;
  if (!item || item.secret_hash !== parsed.hash) return undefined;
  const record: SessionRecord = { tenant_id: item.tenant_id, user_id: item.user_id, secret_hash: item.secret_hash, created_at: item.created_at, last_used_at: item.last_used_at };
  if (!sessionActive(record, at)) return undefined;
  if (needsTouch(record, at)) {
    // Only a still-existing session slides (a concurrent sign-out wins).
    await db()
      .send(new UpdateCommand({ TableName: tableName(), Key: platformKeys.session(parsed.hash), UpdateExpression: 'SET last_used_at = :at', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':at': at.toISOString() } }))
      .catch((err: unknown) => {
        if (!(err instanceof ConditionalCheckFailedException)) throw err;
      });
    record.last_used_at = at.toISOString();
  }
  return record;
}

export async function revokeSession(secretHash: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: platformKeys.session(secretHash) }));
}

/** Revoke every session of the tenant, or of one of its users (account deletion; a password change). */
export async function revokeSessions(tenantId: string, userId?: string): Promise<number> {
  let revoked = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: userId ? 'gsi1pk = :p AND begins_with(gsi1sk, :u)' : 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': platformKeys.sessionsIndexPartition(tenantId), ...(userId ? { ':u': `USER#${userId}#` } : {}) },
        ExclusiveStartKey: start,
      }),
    );
    const items = (page.Items ?? []) as { pk: string; sk: string }[];
    await deleteKeys(items);
    revoked += items.length;
    start = page.LastEvaluatedKey;
  } while (start);
  return revoked;
}
