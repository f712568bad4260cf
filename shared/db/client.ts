import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { env, localCredentials } from '../config.js';
import { backoff, CONFLICT } from '../retry.js';

let doc: DynamoDBDocumentClient | undefined;

/** One document client per container, created on first use (keeps cold start lean). */
export function db(): DynamoDBDocumentClient {
  if (!doc) {
    const endpoint = env.dynamoEndpoint;
    const base = new DynamoDBClient(endpoint ? { endpoint, region: env.region, credentials: localCredentials } : {});
    addTransactionConflictRetry(base);
    doc = DynamoDBDocumentClient.from(base, {
      // convertClassInstanceToMap: the marshaller decides "plain object" by its
      // `constructor`, so a user key named `constructor` (contact attributes, consent
      // scope) would be refused as a class instance. Every object we store is plain JSON.
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
    });
  }
  return doc;
}

/** Test hook: drop the cached client after changing the environment. */
export function resetDbClient(): void {
  doc = undefined;
}

export const tableName = (): string => env.tableName;

/** One cheap read of a key no item has: proves the table answers (readiness). */
export async function probeTable(): Promise<void> {
  await db().send(new GetCommand({ TableName: tableName(), Key: { pk: 'READINESS', sk: 'PROBE' } }));
}

/**
 * A transaction cancelled only because another transaction was touching the same items
 * (`TransactionConflict`) wrote nothing and had none of its conditions fail: sending it
 * again is exactly as safe as the first send, and its conditions are checked afresh. The
 * SDK's own retry strategy does not retry cancellations, so without this a busy item turns
 * an ordinary request into a 500. Applied once, to the shared client, so every
 * repository's transactions get it (the class of defect, not one route).
 */
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
