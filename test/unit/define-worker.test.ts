import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createLambdaContext } from '../../infra/local/lambda-context.js';
import { defineWorker } from '../../shared/workers/define-worker.js';

const record = (id: string, body: unknown): SQSRecord => ({
  messageId: id,
  receiptHandle: `r-${id}`,
  body: JSON.stringify(body),
  attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:q',
  awsRegion: 'us-east-1',
});
const batch = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

describe('defineWorker', () => {
  // Lambda runs one batch per container at a time; the local runtime hands a worker several at once.
  it('reports each batch its own failures when batches run at once', async () => {
    // Batch a: a1 fails at once, a2 is still running when batch b runs whole; then a2 ends.
    let endA2!: () => void;
    const a2Ends = new Promise<void>((r) => (endA2 = r));
    let aStarted!: () => void;
    const aHasStarted = new Promise<void>((r) => (aStarted = r));
    const worker = defineWorker('concurrent', z.object({ id: z.string() }), async ({ id }) => {
      if (id === 'a1') throw new Error('a1 fails');
      if (id === 'a2') {
        aStarted();
        await a2Ends;
      }
    });
    const context = (name: string) => createLambdaContext({ functionName: 'concurrent', timeoutSeconds: 10, awsRequestId: name });

    const runA = worker(batch(record('a1', { id: 'a1' }), record('a2', { id: 'a2' })), context('a'));
    await aHasStarted;
    const b = await worker(batch(record('b1', { id: 'b1' }), record('b2', { id: 'b2' })), context('b'));
    endA2();
    const a = await runA;

    expect(b).toEqual({ batchItemFailures: [] });
    expect(a).toEqual({ batchItemFailures: [{ itemIdentifier: 'a1' }] });
  });
});
