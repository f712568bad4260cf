/**
 * The whole local runtime in one call: DynamoDB Local + the SQS/S3 emulator on free
 * ports, the table/queues/bucket from the shared definitions, seeded platform data, the
 * HTTP API on API Gateway v2 events, and SQS pollers feeding the workers.
 *
 * The environment (endpoints, table, queue URLs, secrets, Powertools switches) is set
 * BEFORE any handler or shared module is imported, exactly as Lambda would have it.
 * process.env is global, so only one stack may run per process at a time.
 */

import type { Server } from 'node:http';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { DEFAULT_LOCAL_TABLE_NAME } from '../../shared/db/table-definition.js';
import type { QueueName } from '../../shared/queues/definitions.js';
import { fallbackRoute, routes as manifestRoutes } from '../../shared/routes.js';
import { VOICE_RUNTIME_RELAY_PATH } from '../../shared/telephony/endpoints.js';
import type { ReplyModel } from '../../shared/voice/ports.js';
import { workers as manifestWorkers } from '../../shared/workers.js';
import { newEdgeToken, startCarrierEdge } from './carrier-edge.js';
import { type DynamoDbLocal, startDynamoDbLocal } from './dynamodb-local.js';
import { type Emulator, startEmulator } from './emulator.js';
import { applyEnv, localEnv, resetSharedCaches, restoreEnv } from './env.js';
import { createHandlerLoader } from './handlers.js';
import { createLambdaContext } from './lambda-context.js';
import { repoRoot, resolveModuleFile } from './paths.js';
import { type Pollers, type SqsHandler, startPollers } from './pollers.js';
import { localDynamoClient, localS3Client, localSqsClient, type ProvisionedQueues, provisionBucket, provisionQueues, provisionTable } from './provision.js';
import type { CreateRelaySession } from './relay-session.js';
import { sandboxClock, sandboxClockRoutes } from './sandbox-clock.js';
import { type LocalSecrets, loadOrCreateCredentialsKey, loadOrCreateSecrets, randomCredentialsKey, randomSecrets, secretsFile } from './secrets.js';
import { closeServer, createHttpServer, type HttpHandler, listen, type ServedRoute } from './server.js';
import { claimDataDir, releaseDataDir, writeStackFile } from './stack-file.js';

export interface LocalStackOptions {
  /** HTTP port; 0 = a free one. Default 3000. */
  port?: number;
  /** Interface to serve on. Default 127.0.0.1. */
  host?: string;
  /** Where DynamoDB data (<dataDir>/dynamodb), secrets.json and stack.json live. Default <repo>/.local. */
  dataDir?: string;
  /** Nothing on disk: in-memory DynamoDB, random secrets, no stack.json (tests). */
  inMemory?: boolean;
  tableName?: string;
  /** Reuse a running DynamoDB Local instead of spawning one. */
  dynamoEndpoint?: string;
  /** Reuse a running SQS/S3 emulator instead of starting one. */
  sqsEndpoint?: string;
  /** Run the SQS pollers. Default true. */
  workers?: boolean;
  /** Seed platform data (shared/seed/platform.ts). Default true. */
  seed?: boolean;
  log?: (line: string) => void;
  /** Prefix for queue names, to share one emulator between stacks (tests). */
  queueNamePrefix?: string;
  /** Bucket for imports. Default voice-control-imports. */
  importBucket?: string;
  /** Replace the worker module for a queue (tests). */
  workerHandlers?: Partial<Record<QueueName, SqsHandler>>;
  /** Replace a route's handler module, by route id (tests). */
  routeHandlers?: Record<string, HttpHandler>;
  /** Serve these routes instead of the manifest (tests). */
  routes?: readonly ServedRoute[];
  /** Secrets to use instead of loading/creating them. */
  secrets?: LocalSecrets;
  /** POWERTOOLS_DEV=true: human-readable logs. Default false. */
  prettyLogs?: boolean;
  /** ReceiveMessage long-poll wait (seconds). Default 1. */
  pollWaitTimeSeconds?: number;
  /**
   * How often the call scheduler ticks while workers run (what EventBridge runs every minute
   * on AWS: due deferred calls sent, stuck dials reconciled). Default SCHEDULER_TICK_MS or 1000.
   */
  schedulerTickMs?: number;
  /** How often the outbox relay runs while workers run. Default OUTBOX_RELAY_TICK_MS or 250. */
  relayTickMs?: number;
  /** How often due account deletions run while workers run. Default DELETION_TICK_MS or 60000. */
  deletionTickMs?: number;
  /**
   * The voice runtime's ConversationRelay socket on the API's port: the session factory and
   * the reply model (tests pass their own; defaults: shared/voice/session.ts and a placeholder model).
   */
  relay?: { createSession?: CreateRelaySession; model?: ReplyModel };
}

export interface LocalStack {
  readonly baseUrl: string;
  /** Twilio ConversationRelay's URL for this stack (ws://…/runtime/v1/relay; TwiML adds ?token=). */
  readonly relayUrl: string;
  readonly port: number;
  /** Every environment variable the stack set (secrets included: do not log it). */
  readonly env: Readonly<Record<string, string>>;
  readonly tableName: string;
  readonly region: string;
  readonly dynamoEndpoint: string;
  readonly sqsEndpoint: string;
  /** The SQS client the queue pollers receive and delete with (a bench counts its calls). */
  readonly sqs: SQSClient;
  readonly queues: ProvisionedQueues;
  readonly importBucket: string;
  /** Set when the stack uses a data dir. */
  readonly dataDir?: string;
  /** How many scheduler ticks have finished (0 without workers): tests wait on it, not on time. */
  schedulerTicks(): number;
  /**
   * Holds the outbox relay (nothing committed moves to the delivery queue) once its current run
   * is over; the answer lets it go again, with a run at once. A bench commits a backlog first
   * and then times its drain. Without workers there is no relay to hold.
   */
  holdOutboxRelay(): Promise<() => void>;
  stop(): Promise<void>;
}

export const LOCAL_REGION = 'us-east-1';
export const DEFAULT_IMPORT_BUCKET = 'voice-control-imports';

let active = false;

export async function startLocalStack(opts: LocalStackOptions = {}): Promise<LocalStack> {
  if (active) throw new Error('a local stack is already running in this process (process.env is shared); stop it first');
  active = true;
  const started = Date.now();
  const log = opts.log ?? (() => {});
  const region = LOCAL_REGION;
  const dataDir = opts.inMemory ? undefined : resolveDir(opts.dataDir ?? '.local');
  const cleanups: (() => Promise<void> | void)[] = [];
  let schedulerTicks = () => 0;
  let holdOutboxRelay = async (): Promise<() => void> => () => {};
  const cleanup = async () => {
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        log(`stop: ${(err as Error)?.message ?? err}`);
      }
    }
    active = false;
  };

  try {
    if (dataDir) {
      claimDataDir(dataDir);
      cleanups.push(() => releaseDataDir(dataDir));
    }

    // 1. Emulators, in parallel (Java is the slow one).
    // allSettled: if one fails, the other must still be registered for cleanup.
    const [dynamoResult, emulatorResult] = await Promise.allSettled([
      opts.dynamoEndpoint ? undefined : startDynamoDbLocal({ dbPath: dataDir ? join(dataDir, 'dynamodb') : undefined, log }),
      opts.sqsEndpoint ? undefined : startEmulator({ region }),
    ]);
    const dynamo: DynamoDbLocal | undefined = dynamoResult.status === 'fulfilled' ? dynamoResult.value : undefined;
    const emulator: Emulator | undefined = emulatorResult.status === 'fulfilled' ? emulatorResult.value : undefined;
    if (dynamo) cleanups.push(() => dynamo.stop());
    if (emulator) cleanups.push(() => emulator.stop());
    if (dynamoResult.status === 'rejected') throw dynamoResult.reason;
    if (emulatorResult.status === 'rejected') throw emulatorResult.reason;
    const dynamoEndpoint = opts.dynamoEndpoint ?? dynamo!.endpoint;
    const sqsEndpoint = opts.sqsEndpoint ?? emulator!.endpoint;
    log(`dynamodb-local at ${dynamoEndpoint}, sqs/s3 emulator at ${sqsEndpoint}`);

    // 2. Resources, idempotently.
    const tableName = opts.tableName ?? DEFAULT_LOCAL_TABLE_NAME;
    const importBucket = opts.importBucket ?? DEFAULT_IMPORT_BUCKET;
    const ddb = localDynamoClient(dynamoEndpoint, region);
    const sqs = localSqsClient(sqsEndpoint, region);
    const s3 = localS3Client(sqsEndpoint, region);
    cleanups.push(() => {
      ddb.destroy();
      sqs.destroy();
      s3.destroy();
    });
    const [, provisionedQueues] = await Promise.all([
      provisionTable(ddb, tableName),
      provisionQueues(sqs, { namePrefix: opts.queueNamePrefix }),
      provisionBucket(s3, importBucket),
    ]);

    // 3. Environment, before any handler or shared module is imported.
    const secrets = opts.secrets ?? (dataDir ? loadOrCreateSecrets(dataDir) : randomSecrets());
    const env = localEnv({
      tableName,
      region,
      dynamoEndpoint,
      sqsEndpoint,
      queues: provisionedQueues,
      importBucket,
      secrets,
      credentialsKey: dataDir ? { file: loadOrCreateCredentialsKey(dataDir) } : { inline: randomCredentialsKey() },
      prettyLogs: opts.prettyLogs,
    });
    const previousEnv = applyEnv(env);
    cleanups.push(() => restoreEnv(previousEnv));
    await resetSharedCaches();

    // 4. Platform data.
    if (opts.seed !== false) await seedPlatformData(log);
    await seedSandboxPlatformAccount(secrets);

    // 5. HTTP API (and, off the manifest, the local sandbox clock).
    const clock = sandboxClock(log);
    cleanups.push(clock.reset);
    const loader = createHandlerLoader<HttpHandler>({
      overrides: { ...Object.fromEntries(sandboxClockRoutes.map((r) => [r.id, clock.handler])), ...opts.routeHandlers },
    });
    const edgeToken = newEdgeToken();
    const server: Server = createHttpServer({
      edgeToken,
      routes: opts.routes ?? [...manifestRoutes, ...sandboxClockRoutes],
      // Tests that serve their own route list keep the built-in 404/405.
      ...(opts.routes ? {} : { fallback: fallbackRoute }),
      loader,
      log,
    });
    const host = opts.host ?? '127.0.0.1';
    const wantedPort = opts.port ?? 3000;
    let port: number;
    try {
      port = await listen(server, wantedPort, host);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new Error(`port ${wantedPort} on ${host} is in use (another stack?). Pick another, e.g. PORT=${wantedPort + 1} npm start`);
      }
      throw err;
    }
    cleanups.push(() => closeServer(server));
    const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    // The sandbox carrier's requests arrive at its edge, a thread that stamps them (see carrier-edge.ts).
    const edge = await startCarrierEdge({ upstreamHost: host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host, upstreamPort: port, token: edgeToken });
    cleanups.push(() => edge.stop());
    // Known only once listening. Locally Twilio's REST API is the sandbox carrier's.
    // The dashboard and the portal are served from here too unless DASHBOARD_ORIGIN / PORTAL_ORIGIN say
    // otherwise; mail goes to the local sink (`npm run admin -- mail last --to …`). Google (calendar
    // connections) likewise: the sandbox's Google under /sandbox/google (see docs/decisions/call-analysis-and-outcomes.md).
    const dashboardOrigin = process.env.DASHBOARD_ORIGIN || baseUrl;
    const urls = {
      PUBLIC_BASE_URL: baseUrl,
      TWILIO_API_BASE_URL: `${edge.url}/sandbox/twilio`,
      SANDBOX_API_BASE_URL: `${edge.url}/sandbox/twilio`,
      GOOGLE_API_BASE_URL: `${baseUrl}/sandbox/google`,
      DASHBOARD_ORIGIN: dashboardOrigin,
      PORTAL_ORIGIN: process.env.PORTAL_ORIGIN || dashboardOrigin,
      MAIL_TRANSPORT: 'sink',
    };
    cleanups.push(
      (
        (previous) => () =>
          restoreEnv(previous)
      )(applyEnv(urls)),
    );
    Object.assign(env, urls);

    // The voice runtime's socket, on the same port (imported now: its modules read the env set above).
    const relay = await startRelay(server, opts.relay, log);
    cleanups.push(() => relay.close());
    // The runtime's own routes are loaded now, in the background, not by a call's first tool
    // (the contact waits on check_calendar) or first opt-out (spoken only once stored). A module
    // that fails to load is not cached: its first request tries again and answers the error.
    if (!opts.routes) for (const r of manifestRoutes) if (r.auth === 'stream_token') loader.load(r.id, r.handler).catch(() => undefined);
    const relayUrl = `${baseUrl.replace(/^http/, 'ws')}${VOICE_RUNTIME_RELAY_PATH}`;

    // 6. Queue pollers, after the recovery from whatever the last process left in flight.
    if (opts.workers !== false) {
      await recoverAfterRestart(log);
      const overrides: Record<string, SqsHandler> = {};
      for (const w of manifestWorkers) {
        const h = opts.workerHandlers?.[w.queue];
        if (h) overrides[w.id] = h;
      }
      const pollers: Pollers = startPollers({
        sqs,
        region,
        log,
        waitTimeSeconds: opts.pollWaitTimeSeconds,
        loader: createHandlerLoader<SqsHandler>({ overrides }),
        workers: manifestWorkers.map((w) => ({
          id: w.id,
          handler: w.handler,
          queueUrl: provisionedQueues[w.queue].url,
          queueArn: provisionedQueues[w.queue].arn,
          batchSize: w.batchSize,
          timeoutSeconds: w.timeoutSeconds,
          batchesInFlight: 'batchesInFlight' in w ? w.batchesInFlight : undefined,
        })),
      });
      cleanups.push(() => pollers.stop());
      // The manifest's scheduled jobs (EventBridge on AWS) on intervals: the call scheduler every
      // SCHEDULER_TICK_MS, the outbox relay every OUTBOX_RELAY_TICK_MS (on AWS the table stream
      // runs it within a second of a commit; the interval stands in for that here).
      // Both run once at once too: the first tick after a restart sweeps what waited (webhook retries included).
      const ticker = startJobTicks(
        'callScheduler',
        'functions/workers/call-scheduler',
        opts.schedulerTickMs ?? (Number(process.env.SCHEDULER_TICK_MS) || DEFAULT_SCHEDULER_TICK_MS),
        log,
        true,
      );
      const relay = startJobTicks(
        'outboxRelay',
        'functions/workers/outbox-relay',
        opts.relayTickMs ?? (Number(process.env.OUTBOX_RELAY_TICK_MS) || DEFAULT_RELAY_TICK_MS),
        log,
        true,
      );
      // Account deletions (every 15 minutes on AWS): due ones run within DELETION_TICK_MS locally.
      const deletions = startJobTicks(
        'accountDeletions',
        'functions/workers/account-deletions',
        opts.deletionTickMs ?? (Number(process.env.DELETION_TICK_MS) || DEFAULT_DELETION_TICK_MS),
        log,
      );
      // The invoice job (every 30 minutes on AWS) every INVOICE_JOB_TICK_MS: it closes the month before now, idempotently.
      const invoices = startJobTicks(
        'invoiceJob',
        'functions/workers/invoice-job',
        Number(process.env.INVOICE_JOB_TICK_MS) || DEFAULT_INVOICE_JOB_TICK_MS,
        log,
      );
      cleanups.push(ticker.stop, relay.stop, deletions.stop, invoices.stop);
      schedulerTicks = ticker.ticks;
      holdOutboxRelay = relay.hold;
    }

    if (dataDir) {
      writeStackFile(dataDir, {
        pid: process.pid,
        baseUrl,
        tableName,
        dynamoEndpoint,
        sqsEndpoint,
        s3Endpoint: sqsEndpoint,
        region,
        importBucket,
        queueUrls: Object.fromEntries(Object.values(provisionedQueues).map((q) => [q.envVar, q.url])),
        secretsFile: secretsFile(dataDir),
        startedAt: new Date().toISOString(),
      });
    }
    log(`local stack ready at ${baseUrl} in ${Date.now() - started} ms (dashboard origin ${dashboardOrigin})`);

    let stopping: Promise<void> | undefined;
    return {
      baseUrl,
      relayUrl,
      port,
      env,
      tableName,
      region,
      dynamoEndpoint,
      sqsEndpoint,
      sqs,
      queues: provisionedQueues,
      importBucket,
      ...(dataDir ? { dataDir } : {}),
      schedulerTicks: () => schedulerTicks(),
      holdOutboxRelay: () => holdOutboxRelay(),
      stop: () => (stopping ??= cleanup()),
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

function resolveDir(dir: string): string {
  return isAbsolute(dir) ? dir : resolve(repoRoot, dir);
}

async function seedPlatformData(log: (line: string) => void): Promise<void> {
  const file = resolveModuleFile('shared/seed/platform');
  if (!file) {
    log('seed: shared/seed/platform.ts not found; skipping');
    return;
  }
  const mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as { seedPlatformData?: () => Promise<unknown> };
  if (typeof mod.seedPlatformData !== 'function') throw new Error(`${file} does not export seedPlatformData()`);
  await mod.seedPlatformData();
  log('seed: platform data in place');
}

/** Locally the platform's own carrier account (managed telephony accounts) is a sandbox account. */
async function seedSandboxPlatformAccount(secrets: LocalSecrets): Promise<void> {
  if (!secrets.platform_twilio_account_sid || !secrets.platform_twilio_auth_token) return;
  const { putSandboxAccount } = await import('../../shared/sandbox/accounts.js');
  await putSandboxAccount(
    { account_sid: secrets.platform_twilio_account_sid, auth_token: secrets.platform_twilio_auth_token },
    { friendlyName: 'Platform carrier account (sandbox)' },
  );
}

async function startRelay(server: Server, relay: LocalStackOptions['relay'], log: (line: string) => void) {
  const [{ attachRelayServer }, { defaultCreateRelaySession }, { voiceRuntimeSettings }, { platformReplyModel }] = await Promise.all([
    import('./relay-server.js'),
    import('./relay-session.js'),
    import('../../shared/voice/runtime-settings.js'),
    import('../../shared/voice/llm/platform.js'),
  ]);
  const createSession = relay?.createSession ?? defaultCreateRelaySession;
  return attachRelayServer(server, { createSession, model: relay?.model ?? platformReplyModel(), settings: voiceRuntimeSettings(), log });
}

/**
 * This process alone owns the data (the data dir is claimed; a test stack owns its table), so
 * whatever the last process had in flight died with it: its queued messages (the emulator
 * keeps them in memory), dials, held callbacks. Before the workers poll, the sandbox carrier's
 * timelines are picked up again (shared/sandbox/resume.ts) and the scheduler's sweeps run with
 * their bounds at zero (recoverAfterRestart). A failure is logged; the ticks still retry it.
 */
async function recoverAfterRestart(log: (line: string) => void): Promise<void> {
  const [{ resumeSandboxTimelines }, scheduler, { now }, { withInvocationLogger }] = await Promise.all([
    import('../../shared/sandbox/resume.js'),
    import('../../shared/tick/dispatch-tick.js'),
    import('../../shared/clock.js'),
    import('../../shared/observability.js'),
  ]);
  const context = createLambdaContext({ functionName: 'restartRecovery', timeoutSeconds: SCHEDULED_JOB_TIMEOUT_SECONDS, region: LOCAL_REGION });
  try {
    const timelines = await withInvocationLogger(() => resumeSandboxTimelines(), context);
    const swept = await withInvocationLogger(() => scheduler.recoverAfterRestart(now()), context);
    const total = timelines.calls + timelines.messages + swept.sent + swept.reconciled + swept.unfinished + swept.reanalysed + swept.webhooksResent;
    if (total > 0) log(`recovered after a restart: ${JSON.stringify({ sandbox: timelines, ...swept })}`);
  } catch (err) {
    log(`restart recovery failed (the scheduler's ticks still sweep): ${(err as Error)?.stack ?? err}`);
  }
}

export const DEFAULT_SCHEDULER_TICK_MS = 1000;
export const DEFAULT_RELAY_TICK_MS = 250;
export const DEFAULT_DELETION_TICK_MS = 60_000;
export const DEFAULT_INVOICE_JOB_TICK_MS = 60_000;
const SCHEDULED_JOB_TIMEOUT_SECONDS = 50;
/** A scheduled job's EventBridge schedule, locally: its handler on an interval, never two runs at once. */
function startJobTicks(
  id: string,
  handler: string,
  everyMs: number,
  log: (line: string) => void,
  runNow = false,
): { stop: () => Promise<void>; ticks: () => number; hold: () => Promise<() => void> } {
  const loader = createHandlerLoader<(event: unknown, context: Context) => Promise<unknown>>();
  let running: Promise<void> | undefined;
  let stopped = false;
  let held = false;
  let done = 0;
  const tick = () => {
    if (running || stopped || held) return;
    running = (async () => {
      try {
        const tick = await loader.load(id, handler);
        // EventBridge's event and a context of its own: the job's lines name the job.
        await tick(
          { source: 'aws.events', 'detail-type': 'Scheduled Event' },
          createLambdaContext({ functionName: id, timeoutSeconds: SCHEDULED_JOB_TIMEOUT_SECONDS, region: LOCAL_REGION }),
        );
      } catch (err) {
        log(`${id}: tick failed: ${(err as Error)?.message ?? err}`);
      } finally {
        done++;
        running = undefined;
      }
    })();
  };
  const timer = setInterval(tick, Math.max(50, everyMs));
  timer.unref();
  if (runNow) tick();
  return {
    ticks: () => done,
    hold: async () => {
      held = true;
      await running;
      return () => {
        held = false;
        tick();
      };
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
