import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { env, localCredentials } from '../config.js';
import { addTransactionConflictRetry } from './transaction-conflict-retry.js';

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
