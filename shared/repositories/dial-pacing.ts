/**
 * The account's dial pacing item, `PLATFORM#CPS#<t>#<tac>` / `PACE` (`next_at`: the instant,
 * epoch ms, of its next free grant), taken by every dispatcher at once. paceDial
 * (shared/policy/dial-pacing.ts) in two atomic forms, so a grant is ONE conditional write and
 * concurrent dispatchers never read-modify-write:
 *   backlog: `next_at` within [at, at + maxWait] → `next_at += spacing` (the grant: the old value);
 *   idle:    `next_at` absent, before `at`, or past STALE_AHEAD_MS (a clock that moved back)
 *            → `next_at = at + spacing` (the grant: at).
 * A `next_at` beyond at + maxWait (and not stale) refuses (busy), nothing taken.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { dispatchKeys } from '../db/keys.js';
import { STALE_AHEAD_MS } from '../policy/dial-pacing.js';

export type DialGrant = { grantAt: number } | { busyUntil: number };

/** Rounds of "the form's condition changed under us" before giving up (each round is one write). */
const ROUNDS = 8;

export async function takeDialGrant(tenantId: string, accountId: string, at: number, spacing: number, maxWaitMs: number): Promise<DialGrant> {
  const Key = dispatchKeys.cps(tenantId, accountId);
  const latest = at + maxWaitMs;
  const ttl = Math.ceil(latest / 1000) + 3600;
  for (let round = 0; round < ROUNDS; round++) {
    try {
      const out = await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: 'SET next_at = next_at + :spacing, #ttl = :ttl',
          ConditionExpression: 'next_at >= :at AND next_at <= :latest',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':spacing': spacing, ':at': at, ':latest': latest, ':ttl': ttl },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { grantAt: (out.Attributes?.next_at as number) - spacing };
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: 'SET next_at = :next, #ttl = :ttl, #type = :type',
          ConditionExpression: 'attribute_not_exists(next_at) OR next_at < :at OR next_at > :stale',
          ExpressionAttributeNames: { '#ttl': 'ttl', '#type': 'type' },
          ExpressionAttributeValues: { ':next': at + spacing, ':at': at, ':stale': at + STALE_AHEAD_MS, ':ttl': ttl, ':type': 'dial_pace' },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { grantAt: at };
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
      const next = Number(err.Item?.next_at?.N);
      if (next > latest && next <= at + STALE_AHEAD_MS) return { busyUntil: next };
      // Another dispatcher moved it into [at, latest] meanwhile: the backlog form again.
    }
  }
  throw new Error(`account ${accountId}: the dial pacing item kept changing under ${ROUNDS} rounds`);
}
