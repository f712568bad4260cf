/**
 * Idempotency records (the design), enforced by DynamoDB conditional writes.
 *
 * Scope: tenant + route + key, kept 24 h (TTL plus a read-time expiry check, because TTL
 * deletes late). A claim is a conditional put that succeeds when no live record exists,
 * or when the previous holder's lock expired (it died mid-request). The owner token
 * stops a holder whose lock was taken over from writing its result over the new one.
 *
 * A route whose work is one transaction may instead skip the claim: it reads the record
 * (with its credential, one BatchGetItem) and commits the completed record inside its
 * transaction under the claim's own condition (completedRecordPut), so of two requests
 * with one key at most one commits, and the other reads the winner's result.
 */

import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
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

/** The record's key, for a caller that reads it together with other items. */
export const idempotencyRecordKey = itemKey;

/** The condition of every first write of a key: no live record (absent, expired, or a claim whose holder died). */
const FREE = 'attribute_not_exists(pk) OR expires_at < :now OR (#status = :in_progress AND lock_expires_at < :now)';

/** What a record read means: the key is free to take, or the claim's answer (replay / in progress). */
export function recordOutcome(item: Record<string, unknown> | undefined, now: number): { outcome: 'free' } | Exclude<ClaimResult, { outcome: 'claimed' }> {
  if (!item || (item.expires_at as number) < now) return { outcome: 'free' };
  const old = item as { status: string; fingerprint: string; response?: StoredResponse; lock_expires_at?: number };
  if (old.status === 'completed' && old.response) return { outcome: 'replay', response: old.response, fingerprint: old.fingerprint };
  if (old.status === 'in_progress' && (old.lock_expires_at ?? 0) < now) return { outcome: 'free' };
  return { outcome: 'in_progress', fingerprint: old.fingerprint };
}

/** The record, strongly consistent (after a transaction carrying completedRecordPut was cancelled). */
export async function readRecord(scope: IdempotencyScope): Promise<Record<string, unknown> | undefined> {
  return (await db().send(new GetCommand({ TableName: tableName(), Key: itemKey(scope), ConsistentRead: true }))).Item;
}

/** The completed record as the first write of the key: inside the work's transaction, or alone. */
export function completedRecordPut(scope: IdempotencyScope, fingerprint: string, response: StoredResponse, now: number) {
  return {
    TableName: tableName(),
    Item: {
      ...itemKey(scope),
      type: 'idempotency',
      status: 'completed',
      fingerprint,
      owner: randomUUID(),
      response,
      expires_at: now + RETENTION_MS,
      ttl: Math.ceil((now + RETENTION_MS) / 1000),
    },
    ConditionExpression: FREE,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':now': now, ':in_progress': 'in_progress' },
  };
}

export async function putCompletedRecord(scope: IdempotencyScope, fingerprint: string, response: StoredResponse, now: number): Promise<void> {
  await db().send(new PutCommand(completedRecordPut(scope, fingerprint, response, now)));
}

export async function claim(scope: IdempotencyScope, fingerprint: string, now: number): Promise<ClaimResult> {
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
        ConditionExpression: FREE,
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
