/**
 * The local poller hands a worker several batches at once when its manifest entry says so
 * (as Lambda runs batches concurrently): a batch held by a slow message does not stop the
 * next one; with one batch in flight (the default) it does.
 */
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { type SqsHandler, startPollers } from '../../infra/local/pollers.js';
import { useTestEnvironment } from '../support/environment.js';
import { waitFor } from '../support/wait-for.js';

const env = useTestEnvironment({ bucket: false });

/** Runs a poller on `queue` whose worker holds any batch naming "hold" until released. */
async function run(queue: 'webhookDelivery' | 'callAnalysis', batchesInFlight: number | undefined) {
  // A queue per test: a stopped poller's abandoned long poll may still take a message in the emulator.
  const q = env.queues[queue];
  const handled: string[] = [];
  let release = () => {};
  let holding = false;
  const held = new Promise<void>((r) => (release = r));
  const handler: SqsHandler = async (event: SQSEvent) => {
    const bodies = event.Records.map((r) => r.body);
    if (bodies.includes('hold')) {
      holding = true;
      await held;
    }
    handled.push(...bodies);
  };
  const pollers = startPollers({
    sqs: env.sqs,
    region: env.region,
    waitTimeSeconds: 1,
    loader: { load: async () => handler },
    workers: [{ id: 'w', handler: 'unused', queueUrl: q.url, queueArn: q.arn, batchSize: 1, timeoutSeconds: 30, batchesInFlight }],
  });
  await env.sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'hold' }));
  await waitFor(() => holding, { message: 'the held batch taken' });
  for (const body of ['a', 'b']) await env.sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: body }));
  return { handled, release, stop: () => pollers.stop(), url: q.url };
}

describe('the local poller', () => {
  it('with batches in flight, handles later batches while one is held', async () => {
    const p = await run('webhookDelivery', 3);
    try {
      await waitFor(() => p.handled.includes('a') && p.handled.includes('b'), { message: 'a and b handled beside the held batch' });
      expect(p.handled).not.toContain('hold');
    } finally {
      p.release();
      await p.stop();
    }
  });

  it('with one batch in flight, handles nothing else while it is held', async () => {
    const p = await run('callAnalysis', undefined);
    try {
      // The held batch is taken; a and b wait on the queue until it is released.
      await waitFor(
        async () => {
          const { Attributes } = await env.sqs.send(
            new GetQueueAttributesCommand({ QueueUrl: p.url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
          );
          return Attributes?.ApproximateNumberOfMessages === '2' && Attributes?.ApproximateNumberOfMessagesNotVisible === '1';
        },
        { message: 'hold in flight, a and b still queued' },
      );
      expect(p.handled).toEqual([]);
      p.release();
      await waitFor(() => p.handled.length === 3, { message: 'all handled once released' });
      expect(p.handled[0]).toBe('hold');
    } finally {
      p.release();
      await p.stop();
    }
  });
});
