/**
 * The one read → decide → conditional write loop. A store reads what its decision depends
 * on, decides (the items to commit, each conditioned on what was read — or "no change"),
 * and commits in one TransactWrite. When another writer got there first (the transaction is
 * cancelled with ConditionalCheckFailed or TransactionConflict) the read is stale: read
 * again and decide again, after a full-jitter pause, a bounded number of times
 * (shared/retry.ts RACE). Anything else a write throws is the caller's, at once.
 */
import { backoff, mayRetry, RACE, type RetryPolicy } from '../retry.js';
import { lostRace, type TransactItem, transactWrite } from './transact-write.js';

export type { TransactItem };

/** What a decision asks for: commit `items` and answer `result`, or answer `result` with nothing written. */
export type Decision<T> = { items: TransactItem[]; result: T } | { noChange: true; result: T };

export const commit = <T>(items: TransactItem[], result: T): Decision<T> => ({ items, result });
export const noChange = <T>(result: T): Decision<T> => ({ noChange: true, result });

export interface ConditionalTransaction<T> {
  /** Reads, decides and returns the decision; called again after every lost race. */
  decide: (attempt: number) => Promise<Decision<T>>;
  /**
   * A cancelled write the caller settles itself instead of retrying (e.g. "a condition on
   * item 0 failed: someone else took it" is an answer, not a race): return `{ result }`.
   */
  settle?: (err: unknown) => { result: T } | undefined;
  /** The error thrown when every attempt lost (default: the last cancellation). */
  exhausted?: (err: unknown, attempts: number) => Error;
  /** Which failures are lost races (default: ConditionalCheckFailed or TransactionConflict). */
  raced?: (err: unknown) => boolean;
  policy?: RetryPolicy;
}

export async function conditionalTransaction<T>(tx: ConditionalTransaction<T>): Promise<T> {
  const policy = tx.policy ?? RACE;
  const raced = tx.raced ?? lostRace;
  for (let attempt = 1; ; attempt++) {
    const decision = await tx.decide(attempt);
    if ('noChange' in decision) return decision.result;
    try {
      await transactWrite(decision.items);
      return decision.result;
    } catch (err) {
      const settled = tx.settle?.(err);
      if (settled) return settled.result;
      if (!raced(err)) throw err;
      if (!mayRetry(policy, attempt)) throw tx.exhausted ? tx.exhausted(err, attempt) : err;
      await backoff(policy, attempt);
    }
  }
}
