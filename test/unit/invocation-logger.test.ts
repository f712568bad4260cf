import '../support/debug-log-level.js';
import type { Context, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHandlerLoader } from '../../infra/local/handlers.js';
import { createLambdaContext } from '../../infra/local/lambda-context.js';
import { logger } from '../../shared/observability.js';
import { defineWorker } from '../../shared/workers/define-worker.js';
import { captureLogs } from '../support/log-capture.js';

const logs = captureLogs();

type Handler = (event: SQSEvent, context: Context) => Promise<unknown>;

const sqsEvent = (body: unknown): SQSEvent => ({
  Records: [
    {
      messageId: `m-${JSON.stringify(body).length}`,
      receiptHandle: 'r',
      body: JSON.stringify(body),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:q',
      awsRegion: 'us-east-1',
    },
  ],
});

const lines = (marker: string) =>
  logs
    .text()
    .split('\n')
    .filter((l) => l.includes(marker))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('one process, many functions: every log line names its own invocation', () => {
  it('two interleaved invocations of different handlers keep their own function_name, request id and keys', async () => {
    // A starts, appends its keys, then waits while B runs start to finish and logs; then A logs.
    // With one shared logger, A's line would carry B's function name, request id and call id.
    let releaseA!: () => void;
    const aWaits = new Promise<void>((r) => (releaseA = r));
    let aStarted!: () => void;
    const aHasStarted = new Promise<void>((r) => (aStarted = r));
    const message = z.object({ call_id: z.string() });
    const first = defineWorker('first', message, async (m) => {
      logger.appendKeys({ call_id: m.call_id });
      aStarted();
      await aWaits;
      logger.info('marker-first');
    });
    const second = defineWorker('second', message, async (m) => {
      logger.appendKeys({ call_id: m.call_id });
      logger.info('marker-second');
    });
    const loader = createHandlerLoader<Handler>({ overrides: { postCallEvents: first as unknown as Handler, queueCall: second as unknown as Handler } });
    const [a, b] = await Promise.all([loader.load('postCallEvents', 'unused'), loader.load('queueCall', 'unused')]);
    const contextA = createLambdaContext({ functionName: 'postCallEvents', timeoutSeconds: 10, awsRequestId: 'request-a' });
    const contextB = createLambdaContext({ functionName: 'queueCall', timeoutSeconds: 10, awsRequestId: 'request-b' });

    const runA = a(sqsEvent({ call_id: 'call-a' }), contextA);
    await aHasStarted;
    await b(sqsEvent({ call_id: 'call-b' }), contextB);
    releaseA();
    await runA;

    const [lineA] = lines('marker-first');
    const [lineB] = lines('marker-second');
    expect(lineA).toMatchObject({ function_name: 'postCallEvents', function_request_id: 'request-a', call_id: 'call-a' });
    expect(lineB).toMatchObject({ function_name: 'queueCall', function_request_id: 'request-b', call_id: 'call-b' });
  });

  it('outside any invocation the container logger is used, and an invocation leaves it untouched', async () => {
    const loader = createHandlerLoader<Handler>({
      overrides: {
        keyed: (async () => {
          logger.appendKeys({ tenant_id: 'tenant-inside' });
          logger.info('marker-inside');
        }) as Handler,
      },
    });
    await (await loader.load('keyed', 'unused'))(sqsEvent({}), createLambdaContext({ functionName: 'keyed', timeoutSeconds: 10, awsRequestId: 'request-k' }));
    logger.info('marker-outside');
    expect(lines('marker-inside')[0]).toMatchObject({ function_name: 'keyed', function_request_id: 'request-k', tenant_id: 'tenant-inside' });
    const [outside] = lines('marker-outside');
    expect(outside).not.toHaveProperty('tenant_id');
    expect(outside).not.toHaveProperty('function_name');
  });
});
