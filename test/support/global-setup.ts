/**
 * vitest globalSetup: ONE in-memory DynamoDB Local and ONE SQS/S3 emulator per run, on
 * free ports, shared by every test file (each file isolates itself with its own table and
 * queue names: see environment.ts). Endpoints reach the tests via provide/inject.
 *
 * Both stack projects (the files run several at once, and the speed-judged ones run one at a
 * time) name this setup; vitest runs it once per project in the same process, so the first
 * call starts the services and the last teardown stops them.
 *
 * Set TEST_DYNAMODB_ENDPOINT / TEST_SQS_ENDPOINT to reuse already running ones.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local.js';
import { startEmulator } from '../../infra/local/emulator.js';
import './provided.js';

interface Services {
  dynamoEndpoint: string;
  sqsEndpoint: string;
  stop(): Promise<void>;
}

// Module state is per project (each loads this file anew); globalThis is the run's.
const shared = globalThis as { __stackServices?: { started: Promise<Services>; users: number } };

async function startServices(): Promise<Services> {
  const started = Date.now();
  const [dynamo, emulator] = await Promise.all([
    process.env.TEST_DYNAMODB_ENDPOINT ? undefined : startDynamoDbLocal({ startupTimeoutMs: 45_000 }),
    process.env.TEST_SQS_ENDPOINT ? undefined : startEmulator(),
  ]);
  const dynamoEndpoint = process.env.TEST_DYNAMODB_ENDPOINT ?? dynamo!.endpoint;
  const sqsEndpoint = process.env.TEST_SQS_ENDPOINT ?? emulator!.endpoint;
  if (process.env.TEST_SETUP_TIMING) {
    process.stderr.write(`[global-setup] DynamoDB Local ${dynamoEndpoint}, emulator ${sqsEndpoint} ready in ${Date.now() - started} ms\n`);
  }
  return {
    dynamoEndpoint,
    sqsEndpoint,
    stop: async () => {
      await Promise.all([emulator?.stop(), dynamo?.stop()]);
    },
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.__stackServices ??= { started: startServices(), users: 0 };
  const entry = shared.__stackServices;
  entry.users += 1;
  const services = await entry.started;
  project.provide('dynamoEndpoint', services.dynamoEndpoint);
  project.provide('sqsEndpoint', services.sqsEndpoint);
  return async () => {
    entry.users -= 1;
    if (entry.users > 0) return;
    shared.__stackServices = undefined;
    await services.stop();
  };
}
