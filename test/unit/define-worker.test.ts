import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createLambdaContext } from '../../infra/local/lambda-context.js';
import { toSqsEvent } from '../../infra/local/sqs-event.js';
import { defineWorker } from '../../shared/workers/define-worker.js';

/** A batch as the local poller hands it over: one message per id, its body { id }. */
const batch = (...ids: string[]): SQSEvent =>
  toSqsEvent(
    ids.map((id) => ({ MessageId: id, ReceiptHandle: `r-${id}`, Body: JSON.stringify({ id }) })),
    'arn:aws:sqs:us-east-1:000000000000:q',
    'us-east-1',
  );

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

    const runA = worker(batch('a1', 'a2'), context('a'));
    await aHasStarted;
    const b = await worker(batch('b1', 'b2'), context('b'));
    endA2();
    const a = await runA;

    expect(b).toEqual({ batchItemFailures: [] });
    expect(a).toEqual({ batchItemFailures: [{ itemIdentifier: 'a1' }] });
  });
});
