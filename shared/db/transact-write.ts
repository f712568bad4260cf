/**
 * One TransactWriteItems of items gathered from several stores: how a service commits a
 * change that spans aggregates (each store hands over its items; the service commits them
 * here, all or nothing).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** All or nothing; a refused condition throws TransactionCanceledException (`failedConditionIndex` and `lostRace` below read it). */
export async function transactWrite(items: TransactItem[]): Promise<void> {
  await db().send(new TransactWriteCommand({ TransactItems: items }));
}

/** All or nothing; false when a condition (or a concurrent transaction) refused it. */
export async function tryTransactWrite(items: TransactItem[]): Promise<boolean> {
  try {
    await transactWrite(items);
    return true;
  } catch (err) {
    if (err instanceof TransactionCanceledException) return false;
    throw err;
  }
}

/** A Put that creates the item or fails the transaction (the item must not exist yet). */
export const putNew = (Item: Record<string, unknown>): TransactItem => ({
  Put: { TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' },
});

/**
 * One transaction for several entries, each owning a run of items under its own conditions,
 * plus `shared` items built from the entries kept (e.g. a count summed over them): an entry
 * whose own condition refused the transaction is left out and the rest tried again, so one
 * event taken by another worker does not hold up the others. A refusal that names no owned
 * condition (throttling, a conflict) is thrown. Answers the entries written.
 */
export async function transactWriteEach<T>(
  entries: readonly T[],
  own: (entry: T) => TransactItem[],
  shared: (kept: readonly T[]) => TransactItem[] = () => [],
): Promise<T[]> {
  let kept = [...entries];
  while (kept.length > 0) {
    const owned = kept.map(own);
    try {
      await transactWrite([...owned.flat(), ...shared(kept)]);
      return kept;
    } catch (err) {
      if (!(err instanceof TransactionCanceledException)) throw err;
      const reasons = err.CancellationReasons ?? [];
      const refused = new Set<number>();
      let first = 0;
      owned.forEach((items, k) => {
        if (items.some((_, j) => reasons[first + j]?.Code === 'ConditionalCheckFailed')) refused.add(k);
        first += items.length;
      });
      if (refused.size === 0) throw err;
      kept = kept.filter((_, k) => !refused.has(k));
    }
  }
  return [];
}

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
