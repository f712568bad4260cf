/**
 * The local runtime against the run's DynamoDB Local and SQS emulator: provisioning from
 * the shared definitions, the HTTP front door (real requests → API Gateway v2 events),
 * and the SQS pollers honouring batchItemFailures. Handlers are test doubles injected
 * through the runtime's override options, so this file tests the runtime, not the routes.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { ChangeMessageVisibilityCommand, GetQueueAttributesCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { localSqsClient, provisionQueues, provisionTable } from '../../infra/local/provision.js';
import { tableDefinition } from '../../shared/db/table-definition.js';
import { queues as queueDefinitions } from '../../shared/queues/definitions.js';
import { routes } from '../../shared/routes.js';
import { useTestEnvironment } from '../support/environment.js';
import { useTestStack } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';

describe('provisioning from the shared definitions', () => {
  const env = useTestEnvironment();

  it('creates the table with its keys, every GSI and TTL', async () => {
    const { Table } = await env.ddb.send(new DescribeTableCommand({ TableName: env.tableName }));
    expect(Table?.KeySchema).toEqual([
      { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
    ]);
    for (const def of tableDefinition.globalSecondaryIndexes) {
      const index = Table?.GlobalSecondaryIndexes?.find((i) => i.IndexName === def.indexName);
      expect(index, def.indexName).toBeDefined();
      expect(index?.KeySchema).toEqual([
        { AttributeName: def.partitionKey, KeyType: 'HASH' },
        { AttributeName: def.sortKey, KeyType: 'RANGE' },
      ]);
      expect(index?.Projection?.ProjectionType).toBe('ALL');
    }
    const ttl = await env.ddb.send(new DescribeTimeToLiveCommand({ TableName: env.tableName }));
    expect(ttl.TimeToLiveDescription).toMatchObject({ TimeToLiveStatus: 'ENABLED', AttributeName: tableDefinition.ttlAttribute });
  });

  it('creates each queue with its DLQ, redrive policy and visibility timeout', async () => {
    for (const [key, def] of Object.entries(queueDefinitions)) {
      const q = env.queues[key as keyof typeof queueDefinitions];
      const { Attributes } = await env.sqs.send(new GetQueueAttributesCommand({ QueueUrl: q.url, AttributeNames: ['All'] }));
      expect(Attributes?.VisibilityTimeout).toBe(String(def.visibilityTimeoutSeconds));
      expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toEqual({
        deadLetterTargetArn: q.dlqArn,
        maxReceiveCount: def.maxReceiveCount,
      });
      expect(process.env[def.envVar]).toBe(q.url);
    }
    await expect(env.s3.send(new HeadBucketCommand({ Bucket: env.importBucket }))).resolves.toBeDefined();
    expect(process.env.TABLE_NAME).toBe(env.tableName);
    expect(JSON.parse(process.env.APP_SECRETS_JSON!)).toEqual(env.secrets);
  });

  it('is idempotent: running it again changes nothing', async () => {
    await provisionTable(env.ddb, env.tableName);
    const prefix = env.queues.callDispatch.name.slice(0, -queueDefinitions.callDispatch.name.length);
    const again = await provisionQueues(env.sqs, { namePrefix: prefix });
    expect(again).toEqual(env.queues);
  });
});

// --- The HTTP front door and the pollers ---------------------------------------------

// A real handler module on disk (plain JS, so it needs no transform), counting its loads.
const moduleDir = mkdtempSync(join(tmpdir(), 'vc-handler-'));
writeFileSync(
  join(moduleDir, 'echo.mjs'),
  `globalThis.__echoLoads = (globalThis.__echoLoads ?? 0) + 1;
export const handler = async (event, context) => ({ statusCode: 200, headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ routeKey: event.routeKey, fn: context.functionName, loads: globalThis.__echoLoads }) });
`,
);
afterAll(() => rmSync(moduleDir, { recursive: true, force: true }));

const seenHttp: { event: APIGatewayProxyEventV2; context: Context }[] = [];
const dispatchBatches: SQSRecord[][] = [];
const deliveryBatches: SQSRecord[][] = [];

describe('local runtime', () => {
  const stack = useTestStack({
    seed: false,
    routes: [
      ...routes,
      { id: 'testThrows', method: 'GET', path: '/test/throws', handler: 'functions/test/throws' },
      { id: 'testMissing', method: 'GET', path: '/test/missing', handler: 'functions/__does_not_exist__/nope' },
      { id: 'testEcho', method: 'GET', path: '/test/echo/{name}', handler: join(moduleDir, 'echo') },
    ],
    routeHandlers: {
      rotateApiKey: async (event, context) => {
        seenHttp.push({ event, context });
        return {
          statusCode: 201,
          headers: { 'content-type': 'application/json', 'x-route': context.functionName },
          cookies: ['session=abc; HttpOnly', 'theme=dark'],
          body: JSON.stringify({ key_id: event.pathParameters?.key_id }),
        };
      },
      testThrows: async () => {
        throw new Error('boom: must not leak');
      },
    },
    workerHandlers: {
      // Fails bodies starting with "fail" on their first delivery, accepts everything else.
      callDispatch: async (event: SQSEvent) => {
        dispatchBatches.push(event.Records);
        return {
          batchItemFailures: event.Records.filter((r) => r.body.startsWith('fail') && r.attributes.ApproximateReceiveCount === '1').map((r) => ({
            itemIdentifier: r.messageId,
          })),
        };
      },
      webhookDelivery: async (event: SQSEvent) => {
        deliveryBatches.push(event.Records);
        throw new Error('worker crashed');
      },
    },
  });

  it('imports a handler module on first use and keeps it loaded', async () => {
    const first = await stack.fetch('/test/echo/a');
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ routeKey: 'GET /test/echo/{name}', fn: 'testEcho', loads: 1 });
    const second = await stack.fetch('/test/echo/b');
    expect(await second.json()).toEqual({ routeKey: 'GET /test/echo/{name}', fn: 'testEcho', loads: 1 });
  });

  it('hands the handler a genuine API Gateway v2 event built from the real request', async () => {
    const res = await send(`${stack.baseUrl}/v1/api-keys/key%2042/rotate?expand=a&expand=b`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Dup': ['one', 'two'], Cookie: 'a=1; b=2', 'User-Agent': 'vitest' },
      body: '{"name":"ci"}',
    });
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body)).toEqual({ key_id: 'key 42' });
    expect(res.headers['set-cookie']).toEqual(['session=abc; HttpOnly', 'theme=dark']);
    expect(res.headers['x-route']).toBe('rotateApiKey');

    const { event, context } = seenHttp.at(-1)!;
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'POST /v1/api-keys/{key_id}/rotate',
      rawPath: '/v1/api-keys/key%2042/rotate',
      rawQueryString: 'expand=a&expand=b',
      queryStringParameters: { expand: 'a,b' },
      pathParameters: { key_id: 'key 42' },
      cookies: ['a=1', 'b=2'],
      body: '{"name":"ci"}',
      isBase64Encoded: false,
      requestContext: {
        routeKey: 'POST /v1/api-keys/{key_id}/rotate',
        stage: '$default',
        http: { method: 'POST', path: '/v1/api-keys/key%2042/rotate', sourceIp: '127.0.0.1', userAgent: 'vitest', protocol: 'HTTP/1.1' },
      },
    });
    expect(event.headers['x-dup']).toBe('one,two');
    expect(event.headers['content-type']).toBe('application/json');
    expect(event.headers).not.toHaveProperty('cookie');
    expect(event.requestContext.requestId).toBe(res.headers['apigw-requestid']);
    expect(context.functionName).toBe('rotateApiKey');
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(0);
  });

  it('base64-encodes form bodies, as API Gateway does', async () => {
    await send(`${stack.baseUrl}/v1/api-keys/k1/rotate`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'CallSid=CA1&To=%2B15550100',
    });
    const { event } = seenHttp.at(-1)!;
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body!, 'base64').toString()).toBe('CallSid=CA1&To=%2B15550100');
  });

  it('answers unknown paths 404 and known paths with the wrong method 405, in JSON', async () => {
    const notFound = await stack.fetch('/v1/nothing-here');
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('content-type')).toMatch(/application\/json/);
    expect(await notFound.json()).toEqual({ detail: 'Not Found', code: 'not_found' });

    const wrongMethod = await stack.fetch('/v1/api-keys/k1/rotate', { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect(await wrongMethod.json()).toEqual({ detail: 'Method Not Allowed', code: 'method_not_allowed' });
  });

  it('turns a throwing handler into a 500 with a request id and nothing internal', async () => {
    const res = await stack.fetch('/test/throws');
    expect(res.status).toBe(500);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ detail: 'Internal Server Error', code: 'internal_error', request_id: res.headers.get('apigw-requestid') });
    expect(JSON.stringify(body)).not.toContain('boom');
  });

  it('fails only the route whose handler module is missing', async () => {
    const missing = await stack.fetch('/test/missing');
    expect(missing.status).toBe(500);
    expect(((await missing.json()) as { code: string }).code).toBe('internal_error');
    const fine = await stack.fetch('/v1/api-keys/k2/rotate', { method: 'POST' });
    expect(fine.status).toBe(201);
  });

  it('delivers SQS events to the worker and deletes only the messages it acknowledged', async () => {
    const q = stack.queues.callDispatch;
    const sqs = localSqsClient(stack.sqsEndpoint);
    try {
      for (const body of ['ok-1', 'fail-2', 'ok-3']) {
        await sqs.send(
          new SendMessageCommand({
            QueueUrl: q.url,
            MessageBody: body,
            MessageAttributes: { tenant: { DataType: 'String', StringValue: 'ten_1' } },
          }),
        );
      }
      const firstDeliveries = await waitFor(
        (): SQSRecord[] | undefined => {
          const records = dispatchBatches.flat();
          return ['ok-1', 'fail-2', 'ok-3'].every((b) => records.some((r) => r.body === b)) ? records : undefined;
        },
        { message: 'all three messages delivered' },
      );

      const failed = firstDeliveries.find((r) => r.body === 'fail-2')!;
      expect(failed).toMatchObject({
        eventSource: 'aws:sqs',
        eventSourceARN: q.arn,
        awsRegion: 'us-east-1',
        md5OfBody: createHash('md5').update('fail-2').digest('hex'),
        attributes: { ApproximateReceiveCount: '1', SentTimestamp: expect.stringMatching(/^\d{13}$/) },
        messageAttributes: { tenant: { stringValue: 'ten_1', dataType: 'String', stringListValues: [], binaryListValues: [] } },
      });

      // The two acknowledged messages are deleted; the failed one is in flight until its
      // visibility timeout (180 s) — it is not deleted.
      await waitFor(
        async () => {
          const c = await counts(sqs, q.url);
          return c.visible === 0 && c.inFlight === 1;
        },
        { message: 'only the failed message left, in flight' },
      );

      // Make it visible again (as its timeout would): it comes back with receive count 2.
      await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: q.url, ReceiptHandle: failed.receiptHandle, VisibilityTimeout: 0 }));
      await waitFor(() => dispatchBatches.flat().some((r) => r.body === 'fail-2' && r.attributes.ApproximateReceiveCount === '2'), {
        message: 'failed message redelivered',
      });
      await waitFor(
        async () => {
          const c = await counts(sqs, q.url);
          return c.visible === 0 && c.inFlight === 0;
        },
        { message: 'queue empty after the retry succeeded' },
      );
    } finally {
      sqs.destroy();
    }
  });

  it('deletes nothing when the worker throws', async () => {
    const q = stack.queues.webhookDelivery;
    const sqs = localSqsClient(stack.sqsEndpoint);
    try {
      await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'evt-1' }));
      await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'evt-2' }));
      await waitFor(() => deliveryBatches.flat().filter((r) => r.body.startsWith('evt-')).length >= 2, { message: 'both delivered' });
      // A later message is only received after the earlier batches were fully handled,
      // so once the marker is seen, any (wrong) delete of evt-1/evt-2 would have happened.
      await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: 'marker' }));
      await waitFor(() => deliveryBatches.flat().some((r) => r.body === 'marker'), { message: 'marker delivered' });
      await waitFor(async () => (await counts(sqs, q.url)).inFlight === 3, { message: 'all three still in flight' });
      expect(await counts(sqs, q.url)).toEqual({ visible: 0, inFlight: 3 });
    } finally {
      sqs.destroy();
    }
  });
});

async function counts(sqs: SQSClient, url: string): Promise<{ visible: number; inFlight: number }> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    visible: Number(Attributes?.ApproximateNumberOfMessages),
    inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible),
  };
}

/** node:http, because fetch cannot send a header twice. */
function send(
  url: string,
  opts: { method: string; headers: Record<string, string | string[]>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: opts.method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    for (const [name, value] of Object.entries(opts.headers)) req.setHeader(name, value);
    req.on('error', reject);
    req.end(opts.body);
  });
}
