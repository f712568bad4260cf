/**
 * vitest globalSetup: ONE in-memory DynamoDB Local and ONE SQS/S3 emulator per run, on
 * free ports, shared by every test file (each file isolates itself with its own table and
 * queue names: see environment.ts). Endpoints reach the tests via provide/inject.
 *
 * Set TEST_DYNAMODB_ENDPOINT / TEST_SQS_ENDPOINT to reuse already running ones.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local.js';
import { startEmulator } from '../../infra/local/emulator.js';
import './provided.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const [dynamo, emulator] = await Promise.all([
    process.env.TEST_DYNAMODB_ENDPOINT ? undefined : startDynamoDbLocal({ startupTimeoutMs: 45_000 }),
    process.env.TEST_SQS_ENDPOINT ? undefined : startEmulator(),
  ]);
  const dynamoEndpoint = process.env.TEST_DYNAMODB_ENDPOINT ?? dynamo!.endpoint;
  const sqsEndpoint = process.env.TEST_SQS_ENDPOINT ?? emulator!.endpoint;
  project.provide('dynamoEndpoint', dynamoEndpoint);
  project.provide('sqsEndpoint', sqsEndpoint);
  if (process.env.TEST_SETUP_TIMING) {
    process.stderr.write(`[global-setup] DynamoDB Local ${dynamoEndpoint}, emulator ${sqsEndpoint} ready in ${Date.now() - started} ms\n`);
  }
  return async () => {
    await Promise.all([emulator?.stop(), dynamo?.stop()]);
  };
}
