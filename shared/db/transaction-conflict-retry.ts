/**
 * A transaction cancelled only because another transaction was touching the same items
 * (`TransactionConflict`) wrote nothing and had none of its conditions fail: sending it
 * again is exactly as safe as the first send, and its conditions are checked afresh. The
 * SDK's own retry strategy does not retry cancellations, so without this a busy item turns
 * an ordinary request into a 500. Applied once, to the shared client, so every
 * repository's transactions get it (the class of defect, not one route).
 */
import { type DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { backoff, CONFLICT } from '../retry.js';

export const CONFLICT_RETRIES = CONFLICT.attempts - 1;

/** Cancelled by a concurrent transaction and by nothing else (no condition failed). */
export function onlyConflicted(err: unknown): boolean {
  if (!(err instanceof TransactionCanceledException)) return false;
  const codes = (err.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
  return codes.includes('TransactionConflict') && codes.every((c) => c === 'None' || c === 'TransactionConflict');
}

/** One send of a command: what the middleware wraps. */
type Send<A, R> = (args: A) => Promise<R>;

function retryTransactionConflicts<A, R>(next: Send<A, R>, commandName: string | undefined, retries = CONFLICT_RETRIES): Send<A, R> {
  if (commandName !== 'TransactWriteItemsCommand') return next;
  return async (args) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await next(args);
      } catch (err) {
        if (attempt >= retries || !onlyConflicted(err)) throw err;
        await backoff(CONFLICT, attempt + 1);
      }
    }
  };
}

/** Installs the retry outermost on the client's stack, so each try is a whole send. */
export function addTransactionConflictRetry(client: DynamoDBClient): void {
  client.middlewareStack.add((next, context) => retryTransactionConflicts(next, context.commandName), {
    step: 'initialize',
    name: 'transactionConflictRetry',
    override: true,
  });
}
