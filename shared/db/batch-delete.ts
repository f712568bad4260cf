/**
 * Delete many items by key: BatchWriteItem 25 at a time, retrying what DynamoDB leaves
 * unprocessed with full-jitter backoff (shared/retry.ts), and giving up (an error the caller's retry or
 * checkpoint handles) when the table keeps refusing. One place for what the deletion
 * sweep, session revocation and the outbox relay each used to write out.
 */
import { BatchWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { backoff, mayRetry, UNPROCESSED } from '../retry.js';
import { db, tableName } from './client.js';

type Requests = NonNullable<BatchWriteCommandInput['RequestItems']>[string];

const BATCH = 25;

export async function deleteKeys(keys: readonly { pk: string; sk: string }[]): Promise<void> {
  for (let i = 0; i < keys.length; i += BATCH) {
    let requests: Requests = keys.slice(i, i + BATCH).map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } } }));
    for (let attempt = 1; requests.length; attempt++) {
      const out = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
      requests = (out.UnprocessedItems?.[tableName()] ?? []) as Requests;
      if (!requests.length) break;
      if (!mayRetry(UNPROCESSED, attempt)) throw new Error(`the table kept refusing deletes (${requests.length} left after ${attempt} attempts)`);
      await backoff(UNPROCESSED, attempt);
    }
  }
}
