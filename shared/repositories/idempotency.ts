/**
 * Idempotency records (the design), enforced by DynamoDB conditional writes.
 *
 * Scope: tenant + route + key, kept 24 h (TTL plus a read-time expiry check, because TTL
 * deletes late). A claim is a conditional put that succeeds when no live record exists,
 * or when the previous holder's lock expired (it died mid-request). The owner token
 * stops a holder whose lock was taken over from writing its result over the new one.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { randomUUID } from 'node:crypto';
import { db, tableName } from '../db/client.js';
import { keys } from '../db/keys.js';

export const RETENTION_MS = 24 * 60 * 60 * 1000;
/** Longer than any function timeout: a lock older than this belongs to a dead request. */
export const LOCK_MS = 60 * 1000;

export interface StoredResponse {
  status: number;
  body: string;
}

export type ClaimResult =
  | { outcome: 'claimed'; owner: string }
  | { outcome: 'replay'; response: StoredResponse; fingerprint: string }
  | { outcome: 'in_progress'; fingerprint: string };

export interface IdempotencyScope {
  tenantId: string;
  routeId: string;
  key: string;
}

const itemKey = (s: IdempotencyScope) => keys.idempotency(s.tenantId, s.routeId, s.key);

export async function claim(scope: IdempotencyScope, fingerprint: string, now = Date.now()): Promise<ClaimResult> {
  const owner = randomUUID();
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...itemKey(scope),
          type: 'idempotency',
          status: 'in_progress',
          fingerprint,
          owner,
          lock_expires_at: now + LOCK_MS,
          expires_at: now + RETENTION_MS,
          ttl: Math.ceil((now + RETENTION_MS) / 1000),
        },
        ConditionExpression:
          'attribute_not_exists(pk) OR expires_at < :now OR (#status = :in_progress AND lock_expires_at < :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':now': now, ':in_progress': 'in_progress' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { outcome: 'claimed', owner };
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException) || !err.Item) throw err;
    const old = unmarshall(err.Item) as { status: string; fingerprint: string; response?: StoredResponse };
    if (old.status === 'completed' && old.response) {
      return { outcome: 'replay', response: old.response, fingerprint: old.fingerprint };
    }
    return { outcome: 'in_progress', fingerprint: old.fingerprint };
  }
}

/** The update that records the result; usable alone or inside the work's own transaction. */
export function completionUpdate(scope: IdempotencyScope, owner: string, response: StoredResponse) {
  return {
    TableName: tableName(),
    Key: itemKey(scope),
    UpdateExpression: 'SET #status = :completed, #response = :response REMOVE lock_expires_at',
    ConditionExpression: '#status = :in_progress AND #owner = :owner',
    ExpressionAttributeNames: { '#status': 'status', '#response': 'response', '#owner': 'owner' },
    ExpressionAttributeValues: { ':completed': 'completed', ':in_progress': 'in_progress', ':owner': owner, ':response': response },
  };
}

export async function complete(scope: IdempotencyScope, owner: string, response: StoredResponse): Promise<void> {
  await db().send(new UpdateCommand(completionUpdate(scope, owner, response)));
}

/** Forget a claim whose request failed, so the client may retry with the same key. */
export async function release(scope: IdempotencyScope, owner: string): Promise<void> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: itemKey(scope),
        ConditionExpression: '#owner = :owner AND #status = :in_progress',
        ExpressionAttributeNames: { '#owner': 'owner', '#status': 'status' },
        ExpressionAttributeValues: { ':owner': owner, ':in_progress': 'in_progress' },
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
  }
}
