/**
 * Sign-in throttle counters (see docs/decisions/auth-and-sessions.md): `PLATFORM#THROTTLE#<scope>#<sha256(subject)>` /
 * `WINDOW#<start>`, a conditional counter per window, expired by TTL. `reserve` takes a slot
 * only while the window has one (`n < max`, one conditional UpdateItem, exact under
 * concurrency); `release` gives it back.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { db, tableName } from '../db/client.js';
import { platformKeys } from '../db/keys.js';
import { THROTTLES, windowEnd, windowStart, type ThrottleScope } from '../auth/throttle-rules.js';

const subjectHash = (subject: string) => createHash('sha256').update(subject.toLowerCase()).digest('hex');
const keyOf = (scope: ThrottleScope, subject: string, at: Date) => platformKeys.throttle(scope, subjectHash(subject), windowStart(at, THROTTLES[scope]));

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
