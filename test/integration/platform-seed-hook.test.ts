/**
 * The post-deploy seed hook (functions/deploy/seed-platform.ts) as CloudFormation drives it:
 * a custom resource event in, a PUT of the result to the event's ResponseURL (here a local
 * HTTP server standing in for S3), against DynamoDB Local.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler, SEED_RESOURCE_ID } from '../../functions/deploy/seed-platform.js';
import { PLANS } from '../../shared/policy/billing/plans.js';
import { getTemplate } from '../../shared/repositories/agent-templates.js';
import { TEMPLATES } from '../../shared/schemas/template-catalogue.js';
import { useTestEnvironment } from '../support/environment.js';

useTestEnvironment({ queues: false, bucket: false });

interface Received {
  method: string;
  contentType: string | undefined;
  body: Record<string, any>;
}
let server: Server;
let responseUrl: string;
const received: Received[] = [];
let answer = 200;

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      received.push({ method: req.method!, contentType: req.headers['content-type'], body: JSON.parse(text) });
      res.statusCode = answer;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  responseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/presigned?X-Amz-Signature=abc`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const event = (type: 'Create' | 'Update' | 'Delete'): CloudFormationCustomResourceEvent =>
  ({
    RequestType: type,
    ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:seed',
    ResponseURL: responseUrl,
    StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/VoiceControlApi/1',
    RequestId: `req-${Math.random().toString(36).slice(2)}`,
    LogicalResourceId: 'PlatformSeedRun',
    ResourceType: 'Custom::PlatformSeed',
    ResourceProperties: { ServiceToken: 'x', TableName: 't', SeedContentHash: 'h' },
    ...(type === 'Create' ? {} : { PhysicalResourceId: SEED_RESOURCE_ID }),
    ...(type === 'Update' ? { OldResourceProperties: { ServiceToken: 'x', TableName: 't', SeedContentHash: 'old' } } : {}),
  }) as CloudFormationCustomResourceEvent;

const last = () => received.at(-1)!;

describe('the platform seed hook', () => {
  it('Create seeds every template and answers SUCCESS to the ResponseURL (PUT, empty Content-Type, the event ids)', async () => {
    const e = event('Create');
    const result = await handler(e);
    expect(result.status).toBe('SUCCESS');
    for (const t of TEMPLATES) expect(await getTemplate(t.id), t.id).toMatchObject({ id: t.id, version: 1, status: t.status });
    expect(last()).toEqual({
      method: 'PUT',
      contentType: '',
      body: {
        Status: 'SUCCESS',
        Reason: expect.stringMatching(/^Seeded: \d+ written/),
        PhysicalResourceId: SEED_RESOURCE_ID,
        StackId: e.StackId,
        RequestId: e.RequestId,
        LogicalResourceId: 'PlatformSeedRun',
        Data: { written: TEMPLATES.length + 1 + PLANS.length, existing: 0 },
      },
    });
  });

  it('Update (the seed content changed) runs the seed again, idempotently, on the same physical id', async () => {
    await handler(event('Update'));
    expect(last().body).toMatchObject({
      Status: 'SUCCESS',
      PhysicalResourceId: SEED_RESOURCE_ID,
      Data: { written: 0, existing: TEMPLATES.length + 1 + PLANS.length },
    });
  });

  it('Delete writes nothing and succeeds', async () => {
    const before = await getTemplate(TEMPLATES[0]!.id);
    await handler(event('Delete'));
    expect(last().body).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: SEED_RESOURCE_ID });
    expect(last().body.Data).toBeUndefined();
    expect(await getTemplate(TEMPLATES[0]!.id)).toEqual(before);
  });

  it('a failing seed still answers, FAILED with its reason (the deploy fails instead of waiting)', async () => {
    const saved = process.env.TABLE_NAME;
    process.env.TABLE_NAME = 'no-such-table';
    try {
      const result = await handler(event('Create'));
      expect(result.status).toBe('FAILED');
    } finally {
      process.env.TABLE_NAME = saved;
    }
    expect(last().body).toMatchObject({ Status: 'FAILED', PhysicalResourceId: SEED_RESOURCE_ID, Reason: expect.stringMatching(/^Seeding failed: .+/) });
  });

  it('an answer the ResponseURL refuses is an error of the invocation (Lambda logs it; CloudFormation times the resource out)', async () => {
    answer = 403;
    try {
      await expect(handler(event('Delete'))).rejects.toThrow(/403/);
    } finally {
      answer = 200;
    }
  });
});
