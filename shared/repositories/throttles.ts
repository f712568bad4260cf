/**
 * Sign-in throttle counters (see docs/decisions/auth-and-sessions.md).
 *
 * Passwords: `PLATFORM#THROTTLE#<scope>#<sha256(subject)>` / `BACKOFF`, one progressive-delay
 * counter per scope and subject. An attempt is admitted by one transaction over its scopes,
 * each put conditioned on the version read, so concurrent guesses cannot share one opening.
 *
 * Emailed links: `…` / `WINDOW#<start>`, a conditional counter per fixed window, expired by
 * TTL. `reserveSlot` takes a slot only while the window has one (`n < max`, one conditional
 * UpdateItem, exact under concurrency).
 */

import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import type { TransactItem } from '../db/conditional-transaction.js';
import { platformKeys } from '../db/keys.js';
import {
  type BackoffState,
  backoffExpiry,
  PASSWORD_BACKOFF,
  type PasswordScope,
  THROTTLES,
  type ThrottleScope,
  windowEnd,
  windowStart,
} from '../policy/auth/throttle-rules.js';

const subjectHash = (subject: string) => createHash('sha256').update(subject.toLowerCase()).digest('hex');
const keyOf = (scope: ThrottleScope, subject: string, at: Date) => platformKeys.throttle(scope, subjectHash(subject), windowStart(at, THROTTLES[scope]));
const backoffKey = (scope: PasswordScope, subject: string) => platformKeys.throttleBackoff(scope, subjectHash(subject));

/** A password counter as stored, with the version its next write is conditioned on (0 = none stored). */
export interface StoredBackoff {
  readonly state: BackoffState | undefined;
  readonly version: number;
}

export async function readBackoff(scope: PasswordScope, subject: string): Promise<StoredBackoff> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: backoffKey(scope, subject), ConsistentRead: true }));
  if (!Item) return { state: undefined, version: 0 };
  return { state: { failures: Item.failures as number, lastAt: Item.last_at as number, nextAt: Item.next_at as number }, version: Item.version as number };
}

/** The put that stores a counter's next state, only if nobody wrote it since `read`. */
export function backoffPut(scope: PasswordScope, subject: string, read: StoredBackoff, next: BackoffState): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...backoffKey(scope, subject),
        type: 'throttle',
        failures: next.failures,
        last_at: next.lastAt,
        next_at: next.nextAt,
        version: read.version + 1,
        ttl: backoffExpiry(next, PASSWORD_BACKOFF[scope]),
      },
      ConditionExpression: read.version === 0 ? 'attribute_not_exists(pk)' : 'version = :v',
      ...(read.version === 0 ? {} : { ExpressionAttributeValues: { ':v': read.version } }),
    },
  };
}

/** A success on the account: its counter starts over. */
export async function clearBackoff(scope: PasswordScope, subject: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: backoffKey(scope, subject) }));
}

/** A success from a source: the attempt admitted as a failure is given back. */
export async function giveBackFailure(scope: PasswordScope, subject: string): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: backoffKey(scope, subject),
        UpdateExpression: 'ADD failures :minus, version :one',
        ConditionExpression: 'failures > :zero',
        ExpressionAttributeValues: { ':minus': -1, ':one': 1, ':zero': 0 },
      }),
    )
    .catch((err: unknown) => {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    });
}

export async function reserveSlot(scope: ThrottleScope, subject: string, at: Date): Promise<boolean> {
  const limit = THROTTLES[scope];
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(scope, subject, at),
        UpdateExpression: 'ADD n :one SET #ttl = :ttl, #type = :type',
        ConditionExpression: 'attribute_not_exists(n) OR n < :max',
        ExpressionAttributeNames: { '#ttl': 'ttl', '#type': 'type' },
        ExpressionAttributeValues: { ':one': 1, ':max': limit.max, ':ttl': windowEnd(at, limit) + 60, ':type': 'throttle' },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

export async function releaseSlot(scope: ThrottleScope, subject: string, at: Date): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(scope, subject, at),
        UpdateExpression: 'ADD n :minus',
        ConditionExpression: 'n > :zero',
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      }),
    )
    .catch((err: unknown) => {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    });
}
