/**
 * GET /v1/me through the local runtime (real HTTP, real handler, DynamoDB Local) next to
 * a raw GetItem on the same DynamoDB Local, and the DynamoDB calls each request makes.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../infra/local/stack.js';
import { createTenant } from '../../shared/admin/bootstrap.js';
import { db } from '../../shared/db/client.js';
import { keys } from '../../shared/db/keys.js';
import { requestJson } from './http-client.js';
import { fmt, percentile } from './stats.js';

export interface MeFigures {
  requests: number;
  meP50: number;
  meP99: number;
  rawP50: number;
  rawP99: number;
  dynamoCallsPerRequest: number;
}

export async function measureMe(stack: LocalStack, requests = 500): Promise<MeFigures> {
  const t = await createTenant({ name: 'Bench', adminEmail: 'bench@bench.test' });
  const headers = { authorization: `Bearer ${t.api_key.secret}` };
  let calls = 0;
  db().middlewareStack.add(
    (next) => async (args) => {
      calls++;
      return next(args);
    },
    { step: 'initialize', name: 'benchCallCounter' },
  );

  const time = async (fn: () => Promise<unknown>) => {
    const s = performance.now();
    await fn();
    return performance.now() - s;
  };
  const me = async () => {
    const { status } = await requestJson(stack.baseUrl, 'GET', '/v1/me', { headers });
    if (status !== 200) throw new Error(`GET /v1/me answered ${status}`);
  };
  for (let i = 0; i < 50; i++) await me(); // warm: module load, connections, JIT
  calls = 0;
  const meTimes: number[] = [];
  for (let i = 0; i < requests; i++) meTimes.push(await time(me));
  const dynamoCallsPerRequest = calls / requests;

  const raw = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: stack.dynamoEndpoint, region: stack.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  );
  const get = () => raw.send(new GetCommand({ TableName: stack.tableName, Key: keys.apiKey(t.tenant_id, t.api_key.id), ConsistentRead: true }));
  for (let i = 0; i < 50; i++) await get();
  const rawTimes: number[] = [];
  for (let i = 0; i < requests; i++) rawTimes.push(await time(get));
  raw.destroy();
  return {
    requests,
    meP50: percentile(meTimes, 50),
    meP99: percentile(meTimes, 99),
    rawP50: percentile(rawTimes, 50),
    rawP99: percentile(rawTimes, 99),
    dynamoCallsPerRequest,
  };
}

export function printMe(f: MeFigures): void {
  console.log(`\nGET /v1/me through the local runtime, ${f.requests} sequential requests (target ≤ 2 DynamoDB calls per request)`);
  console.log(`  GET /v1/me      p50 ${fmt(f.meP50, 2)} ms   p99 ${fmt(f.meP99, 2)} ms`);
  console.log(`  raw GetItem     p50 ${fmt(f.rawP50, 2)} ms   p99 ${fmt(f.rawP99, 2)} ms`);
  console.log(`  DynamoDB calls per request: ${fmt(f.dynamoCallsPerRequest, 2)}`);
}
