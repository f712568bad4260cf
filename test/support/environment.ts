/**
 * Per-test-file isolation on the run's shared emulators: a table, queues and a bucket
 * with random names, and process.env pointing the application code at them.
 *
 *   const env = useTestEnvironment();          // registers beforeAll/afterAll
 *   it('...', async () => { env.tableName; ... });
 *
 * or, by hand: `const env = await createTestEnvironment(); ... await env.cleanup();`
 */
import { randomBytes } from 'node:crypto';
import { DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { DeleteQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, inject } from 'vitest';
import { applyEnv, localEnv, resetSharedCaches, restoreEnv } from '../../infra/local/env.js';
import {
  localDynamoClient,
  localS3Client,
  localSqsClient,
  type ProvisionedQueues,
  provisionBucket,
  provisionQueues,
  provisionTable,
} from '../../infra/local/provision.js';
import { type LocalSecrets, randomCredentialsKey, randomSecrets } from '../../infra/local/secrets.js';
import './provided.js';

export const TEST_REGION = 'us-east-1';

/** The run's shared DynamoDB Local and SQS/S3 emulator (from global-setup.ts). */
export function emulatorEndpoints(): { dynamoEndpoint: string; sqsEndpoint: string } {
  const dynamoEndpoint = inject('dynamoEndpoint');
  const sqsEndpoint = inject('sqsEndpoint');
  if (!dynamoEndpoint || !sqsEndpoint) {
    throw new Error('emulator endpoints missing: run tests with vitest.config.ts (globalSetup test/support/global-setup.ts)');
  }
  return { dynamoEndpoint, sqsEndpoint };
}

/** Short random suffix for resource names that must not collide across test files. */
export const uniqueSuffix = (): string => randomBytes(5).toString('hex');

export interface TestEnvironmentOptions {
  /** Create the queues (and their DLQs). Default true. */
  queues?: boolean;
  /** Create the import bucket. Default true. */
  bucket?: boolean;
}

export interface TestEnvironment {
  readonly tableName: string;
  readonly region: string;
  readonly dynamoEndpoint: string;
  readonly sqsEndpoint: string;
  /** Empty object when created with { queues: false }. */
  readonly queues: ProvisionedQueues;
  readonly importBucket: string;
  readonly secrets: LocalSecrets;
  /** The variables set in process.env. */
  readonly env: Readonly<Record<string, string>>;
  /** Raw SDK clients on the emulators, for arranging and asserting. */
  readonly ddb: DynamoDBClient;
  readonly sqs: SQSClient;
  readonly s3: S3Client;
  /** Deletes the table and queues, restores process.env, resets cached clients. */
  cleanup(): Promise<void>;
}

export async function createTestEnvironment(opts: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
  const { dynamoEndpoint, sqsEndpoint } = emulatorEndpoints();
  const id = uniqueSuffix();
  const tableName = `test-${id}`;
  const importBucket = `test-${id}-imports`;
  const ddb = localDynamoClient(dynamoEndpoint, TEST_REGION);
  const sqs = localSqsClient(sqsEndpoint, TEST_REGION);
  const s3 = localS3Client(sqsEndpoint, TEST_REGION);

  const [, queues] = await Promise.all([
    provisionTable(ddb, tableName),
    opts.queues === false ? ({} as ProvisionedQueues) : provisionQueues(sqs, { namePrefix: `test-${id}-` }),
    opts.bucket === false ? undefined : provisionBucket(s3, importBucket),
  ]);
  const secrets = randomSecrets();
  const env = localEnv({
    tableName,
    region: TEST_REGION,
    dynamoEndpoint,
    sqsEndpoint,
    queues,
    importBucket,
    secrets,
    credentialsKey: { inline: randomCredentialsKey() },
  });
  const previous = applyEnv(env);
  await resetSharedCaches();

  let cleaned: Promise<void> | undefined;
  return {
    tableName,
    region: TEST_REGION,
    dynamoEndpoint,
    sqsEndpoint,
    queues,
    importBucket,
    secrets,
    env,
    ddb,
    sqs,
    s3,
    cleanup: () =>
      (cleaned ??= (async () => {
        restoreEnv(previous);
        await resetSharedCaches();
        await deleteResources(ddb, sqs, tableName, queues);
        ddb.destroy();
        sqs.destroy();
        s3.destroy();
      })()),
  };
}

/** Deletes a test's table and queues (best effort: the emulators die with the run anyway). */
export async function deleteResources(ddb: DynamoDBClient, sqs: SQSClient, tableName: string, queues: ProvisionedQueues): Promise<void> {
  await Promise.allSettled([
    ddb.send(new DeleteTableCommand({ TableName: tableName })),
    ...Object.values(queues).flatMap((q) => [sqs.send(new DeleteQueueCommand({ QueueUrl: q.url })), sqs.send(new DeleteQueueCommand({ QueueUrl: q.dlqUrl }))]),
  ]);
}

/**
 * Registers beforeAll/afterAll hooks that create and clean up a test environment, and
 * returns a handle whose fields are usable from beforeAll on (reading them earlier throws).
 */
export function useTestEnvironment(opts: TestEnvironmentOptions = {}): TestEnvironment {
  return useForFile(
    () => createTestEnvironment(opts),
    (env) => env.cleanup(),
    'useTestEnvironment()',
  );
}

/** beforeAll creates the value, afterAll disposes of it; the handle forwards to it meanwhile. */
export function useForFile<T extends object>(create: () => Promise<T>, dispose: (value: T) => Promise<void>, what: string): T {
  let current: T | undefined;
  beforeAll(async () => {
    current = await create();
  });
  afterAll(async () => {
    if (current) await dispose(current);
    current = undefined;
  });
  return lateBound(() => current, what);
}

/** A stand-in object that forwards to the value once a hook has created it. */
export function lateBound<T extends object>(get: () => T | undefined, what: string): T {
  return new Proxy({} as T, {
    get(_target, prop) {
      const value = get();
      if (!value) throw new Error(`${what} is not ready: use it inside tests or hooks, not at collection time`);
      const field = Reflect.get(value, prop) as unknown;
      return typeof field === 'function' ? (field as (...a: unknown[]) => unknown).bind(value) : field;
    },
  });
}
