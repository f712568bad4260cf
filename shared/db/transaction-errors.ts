import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';

/** Which item of a cancelled transaction failed its condition (index into TransactItems), or -1. */
export const failedConditionIndex = (err: unknown): number =>
  err instanceof TransactionCanceledException ? (err.CancellationReasons ?? []).findIndex((r) => r.Code === 'ConditionalCheckFailed') : -1;

/**
 * A transaction another writer beat (an item's condition no longer held, or a concurrent
 * transaction held an item): the caller's read is stale, so it reads again and retries.
 */
export const lostRace = (err: unknown): boolean =>
  err instanceof TransactionCanceledException &&
  (err.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed' || r.Code === 'TransactionConflict');
