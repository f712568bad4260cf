/**
 * The account's dial pacing items, under `PLATFORM#CPS#<t>#<tac>` (shared/policy/dial-pacing.ts):
 *
 * `PACE` (`next_at`: the instant, epoch ms, of its next free grant; `seq`: grants so far), taken
 * by every dispatcher at once. paceDial in two atomic forms, so a grant is ONE conditional write
 * and concurrent dispatchers never read-modify-write:
 *   backlog: `next_at` within [at, at + maxWait] → `next_at += spacing` (the grant: the old value);
 *   idle:    `next_at` absent, before `at`, or past STALE_AHEAD_MS (a clock that moved back)
 *            → `next_at = at + spacing` (the grant: at).
 * A `next_at` beyond at + maxWait (and not stale) refuses (busy), nothing taken. Both forms add
 * one to `seq`, and the grant's `seq` names its lane.
 *
 * `LANE#<i>` (`at`, `release`, `seq`, `call_id`): the dial holding lane i. Taking it is one
 * conditional write whose condition is laneFreeAt ≤ the instant asked for; releasing it is one
 * more, only by its holder. Each lane is its own item, so a write costs 1 WCU whatever the cps.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db, tableName } from '../db/client.js';
import { dispatchKeys } from '../db/keys.js';
import { ABANDONED_AFTER_MS, type LaneHolder, STALE_AHEAD_MS } from '../policy/dial-pacing.js';

export type DialGrant = { grantAt: number; seq: number } | { busyUntil: number };

/** Rounds of "the form's condition changed under us" before giving up (each round is one write). */
const ROUNDS = 8;
/** Lanes and the pace outlive their last use by an hour, then go (TTL). */
const ttlAfter = (ms: number) => Math.ceil(ms / 1000) + 3600;

export async function takeDialGrant(tenantId: string, accountId: string, at: number, spacing: number, maxWaitMs: number): Promise<DialGrant> {
  const Key = dispatchKeys.cps(tenantId, accountId);
  const latest = at + maxWaitMs;
  const ttl = ttlAfter(latest);
  for (let round = 0; round < ROUNDS; round++) {
    try {
      const out = await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: 'SET next_at = next_at + :spacing, #ttl = :ttl ADD seq :one',
          ConditionExpression: 'next_at >= :at AND next_at <= :latest',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':spacing': spacing, ':at': at, ':latest': latest, ':ttl': ttl, ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { grantAt: (out.Attributes?.next_at as number) - spacing, seq: out.Attributes?.seq as number };
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
    try {
      const out = await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: 'SET next_at = :next, #ttl = :ttl, #type = :type ADD seq :one',
          ConditionExpression: 'attribute_not_exists(next_at) OR next_at < :at OR next_at > :stale',
          ExpressionAttributeNames: { '#ttl': 'ttl', '#type': 'type' },
          ExpressionAttributeValues: { ':next': at + spacing, ':at': at, ':stale': at + STALE_AHEAD_MS, ':ttl': ttl, ':type': 'dial_pace', ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { grantAt: at, seq: out.Attributes?.seq as number };
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
      const next = Number(err.Item?.next_at?.N);
      if (next > latest && next <= at + STALE_AHEAD_MS) return { busyUntil: next };
      // Another dispatcher moved it into [at, latest] meanwhile: the backlog form again.
    }
  }
  throw new Error(`account ${accountId}: the dial pacing item kept changing under ${ROUNDS} rounds`);
}

/**
 * Takes lane `lane` for the dial `seq` (of call `callId`) from `sendAt`, if the lane is free by
 * then as laneFreeAt says, seen at `now`. Refused: the lane's holder as it stands (null: none).
 */
export async function takeDialLane(
  tenantId: string,
  accountId: string,
  lane: number,
  claim: { seq: number; callId: string; sendAt: number; now: number },
): Promise<{ taken: true } | { taken: false; holder: LaneHolder | null }> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: dispatchKeys.cpsLane(tenantId, accountId, lane),
        UpdateExpression: 'SET #at = :at, seq = :seq, call_id = :call, #ttl = :ttl, #type = :type REMOVE #release',
        ConditionExpression:
          'attribute_not_exists(#at) OR #release <= :at OR (attribute_not_exists(#release) AND #at <= :abandoned) OR #at > :ahead OR #release > :ahead',
        ExpressionAttributeNames: { '#at': 'at', '#release': 'release', '#ttl': 'ttl', '#type': 'type' },
        ExpressionAttributeValues: {
          ':at': claim.sendAt,
          ':seq': claim.seq,
          ':call': claim.callId,
          ':abandoned': claim.sendAt - ABANDONED_AFTER_MS,
          ':ahead': claim.now + STALE_AHEAD_MS,
          ':ttl': ttlAfter(claim.sendAt + ABANDONED_AFTER_MS),
          ':type': 'dial_lane',
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { taken: true };
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    if (!err.Item) return { taken: false, holder: null };
    const item = unmarshall(err.Item);
    return {
      taken: false,
      holder: { at: item.at as number, release: typeof item.release === 'number' ? item.release : null, seq: item.seq as number | undefined },
    };
  }
}

/** The holder of lane `lane` (dial `seq`) lets it go from `release`; a lane another dial took meanwhile (ours was thought abandoned) is left alone. */
export async function releaseDialLane(tenantId: string, accountId: string, lane: number, seq: number, release: number): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: dispatchKeys.cpsLane(tenantId, accountId, lane),
        UpdateExpression: 'SET #release = :release, #ttl = :ttl',
        ConditionExpression: 'seq = :seq AND attribute_not_exists(#release)',
        ExpressionAttributeNames: { '#release': 'release', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':release': release, ':seq': seq, ':ttl': ttlAfter(release) },
      }),
    );
    return true;
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    return false;
  }
}
