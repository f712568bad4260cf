/**
 * Dashboard sessions (issue 16): `TENANT#<t>` / `SESSION#<sha256(secret)>`, a server-side
 * record (user, created, last used, expiries) the cookie only points at. Revoking = deleting
 * the record; DynamoDB's TTL removes expired ones (reads check the expiry themselves).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { keys } from '../db/keys.js';
import { mintToken, parseToken } from '../auth/opaque-token.js';
import { absoluteExpiry, needsTouch, sessionActive, sessionExpiry, SESSION_TOKEN_PREFIX } from '../auth/session-rules.js';

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
  const { token, hash } = mintToken(SESSION_TOKEN_PREFIX, [tenantId]);
  const record: SessionRecord = { tenant_id: tenantId, user_id: userId, secret_hash: hash, created_at: at.toISOString(), last_used_at: at.toISOString() };
  return { cookieValue: token, record, item: { ...keys.session(tenantId, hash), type: 'session', ...record, ttl: ttlOf(record) } };
}

export async function createSession(tenantId: string, userId: string, at: Date): Promise<{ cookieValue: string; record: SessionRecord }> {
  const s = newSession(tenantId, userId, at);
  await db().send(new PutCommand({ TableName: tableName(), Item: s.item, ConditionExpression: 'attribute_not_exists(pk)' }));
  return s;
}

/** The live session a cookie value names (and slides its idle expiry), or undefined. */
export async function useSession(cookieValue: string, at: Date): Promise<SessionRecord | undefined> {
  const parsed = parseToken(SESSION_TOKEN_PREFIX, cookieValue, 1);
  if (!parsed) return undefined;
  const tenantId = parsed.scope[0]!;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.session(tenantId, parsed.hash), ConsistentRead: true }));
  const item = out.Item as (SessionRecord & { tenant_id: string }) | undefined;
  if (!item || item.tenant_id !== tenantId) return undefined;
  const record: SessionRecord = { tenant_id: item.tenant_id, user_id: item.user_id, secret_hash: item.secret_hash, created_at: item.created_at, last_used_at: item.last_used_at };
  if (!sessionActive(record, at)) return undefined;
  if (needsTouch(record, at)) {
    // Only a still-existing session slides (a concurrent sign-out wins).
    await db()
      .send(new UpdateCommand({ TableName: tableName(), Key: keys.session(tenantId, parsed.hash), UpdateExpression: 'SET last_used_at = :at', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':at': at.toISOString() } }))
      .catch((err: unknown) => {
        if (!(err instanceof ConditionalCheckFailedException)) throw err;
      });
    record.last_used_at = at.toISOString();
  }
  return record;
}

export const sessionExpiresAt = (s: SessionRecord): string => new Date(sessionExpiry(s)).toISOString();

export async function revokeSession(tenantId: string, secretHash: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.session(tenantId, secretHash) }));
}
