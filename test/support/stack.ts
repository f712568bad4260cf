/**
 * The full local runtime in-process, for e2e tests over real HTTP: the server on a free
 * port, the run's shared DynamoDB Local and emulator, a table/queues/bucket of its own.
 *
 *   const stack = useTestStack();              // beforeAll/afterAll
 *   it('...', async () => { await fetch(`${stack.baseUrl}/healthz`); });
 *
 * One stack per test file at a time (process.env is process-wide).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localDynamoClient, localSqsClient } from '../../infra/local/provision.js';
import { type LocalStack, type LocalStackOptions, startLocalStack } from '../../infra/local/stack.js';
import { deleteResources, emulatorEndpoints, uniqueSuffix, useForFile } from './environment.js';

export type TestStackOptions = Omit<LocalStackOptions, 'dynamoEndpoint' | 'sqsEndpoint' | 'inMemory' | 'dataDir'>;

export interface TestStack extends LocalStack {
  /** fetch() against the stack: `stack.fetch('/v1/me', { headers })`. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

export async function startTestStack(opts: TestStackOptions = {}): Promise<TestStack> {
  const { dynamoEndpoint, sqsEndpoint } = emulatorEndpoints();
  const id = uniqueSuffix();
  const stack = await startLocalStack({
    port: 0,
    inMemory: true,
    tableName: `e2e-${id}`,
    queueNamePrefix: `e2e-${id}-`,
    importBucket: `e2e-${id}-imports`,
    log: process.env.LOCAL_STACK_DEBUG ? (line) => process.stderr.write(`[stack] ${line}\n`) : undefined,
    ...opts,
    dynamoEndpoint,
    sqsEndpoint,
  });
  let stopped: Promise<void> | undefined;
  return {
    ...stack,
    fetch: (path, init) => fetch(new URL(path, stack.baseUrl), init),
    stop: () =>
      (stopped ??= (async () => {
        await stack.stop();
        const ddb = localDynamoClient(dynamoEndpoint, stack.region);
        const sqs = localSqsClient(sqsEndpoint, stack.region);
        await deleteResources(ddb, sqs, stack.tableName, stack.queues);
        ddb.destroy();
        sqs.destroy();
      })()),
  };
}

/** beforeAll/afterAll wrapper around startTestStack(). */
export function useTestStack(opts: TestStackOptions = {}): TestStack {
  return useForFile(
    () => startTestStack(opts),
    (stack) => stack.stop(),
    'useTestStack()',
  );
}

/**
 * A whole local stack of its own (workers, scheduler, stack file) on a fresh data dir, on the
 * run's DynamoDB Local and emulator with its own table and queues: what a person's shell finds
 * with LOCAL_DIR, for tests that drive the CLI or the README against it.
 */
export async function freshLocalStack(name: string): Promise<{ stack: LocalStack; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), `vc-${name}-`));
  const { dynamoEndpoint, sqsEndpoint } = emulatorEndpoints();
  const stack = await startLocalStack({
    port: 0,
    dataDir: dir,
    dynamoEndpoint,
    sqsEndpoint,
    tableName: `${name}-${uniqueSuffix()}`,
    queueNamePrefix: `${name}-${uniqueSuffix()}-`,
  });
  return { stack, dir };
}
