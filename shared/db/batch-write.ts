/**
 * Many puts and deletes by BatchWriteItem, 25 to a request, retrying what DynamoDB leaves
 * unprocessed with full-jitter backoff (shared/retry.ts UNPROCESSED), and giving up (an error the
 * caller's retry or checkpoint handles) when the table keeps refusing. One place for what the
 * deletion sweep, session revocation, the outbox relay, the DNC loader and the knowledge
 * blobs each used to write out. Not atomic: a failure may leave some requests written.
 */
import { BatchWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { backoff, mayRetry, UNPROCESSED } from '../retry.js';
import { db, tableName } from './client.js';

type Requests = NonNullable<BatchWriteCommandInput['RequestItems']>[string];
type WriteRequest = Requests[number];

const BATCH = 25;

async function writeChunk(chunk: Requests): Promise<void> {
  let requests = chunk;
  for (let attempt = 1; requests.length; attempt++) {
    const out = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
    requests = (out.UnprocessedItems?.[tableName()] ?? []) as Requests;
    if (!requests.length) break;
    if (!mayRetry(UNPROCESSED, attempt)) throw new Error(`the table kept refusing writes (${requests.length} left after ${attempt} attempts)`);
    await backoff(UNPROCESSED, attempt);
  }
}

/** Every request written, 25 to a BatchWriteItem, `parallel` requests in flight (default one at a time, in order). */
async function writeBatch(requests: readonly WriteRequest[], opts: { parallel?: number } = {}): Promise<void> {
  const chunks: Requests[] = [];
  for (let i = 0; i < requests.length; i += BATCH) chunks.push(requests.slice(i, i + BATCH));
  let next = 0;
  const worker = async () => {
    while (next < chunks.length) await writeChunk(chunks[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(opts.parallel ?? 1, chunks.length) }, worker));
}

export const putItems = (items: readonly Record<string, unknown>[], opts?: { parallel?: number }): Promise<void> =>
  writeBatch(
    items.map((Item) => ({ PutRequest: { Item } })),
    opts,
  );

export const deleteKeys = (keys: readonly { pk: string; sk: string }[], opts?: { parallel?: number }): Promise<void> =>
  writeBatch(
    keys.map((k) => ({ DeleteRequest: { Key: { pk: k.pk, sk: k.sk } } })),
    opts,
  );
