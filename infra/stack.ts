/**
 * The stack: one HTTP API, one Lambda per manifest route (in a nested stack per area),
 * one worker per queue consumer,
 * one table, the work queues, the import bucket, the application secret and the
 * post-deploy hook that seeds platform data and templates. Everything
 * per-endpoint comes from shared/routes.ts and shared/workers.ts; nothing here names a route.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { Construct } from 'constructs';
import { type QueueName, queues } from '../shared/queues/definitions.js';
import { fallbackRoute, routes as manifestRoutes, type RouteDefinition, routeKey, type TableAccess } from '../shared/routes.js';
import { scheduledJobs as manifestScheduledJobs, workers as manifestWorkers, type ScheduledJobDefinition, type WorkerDefinition } from '../shared/workers.js';
import { PASSWORD_MODULES } from './bundling.js';
import { Alarms } from './constructs/alarms.js';
import { AppFunction, SharedLogGroups } from './constructs/app-function.js';
import { AppSecret } from './constructs/app-secret.js';
import { CredentialsKey } from './constructs/credentials-key.js';
import { DataTable } from './constructs/data-table.js';
import { HttpApi } from './constructs/http-api.js';
import { IMPORT_OBJECTS_PATTERN, ImportBucket } from './constructs/import-bucket.js';
import {
  acknowledgeBucketObjects,
  acknowledgeRouteAuthorization,
  acknowledgeSecretRotation,
  acknowledgeStreamFailureQueue,
  acknowledgeStreamTrigger,
  acknowledgeTableIndexes,
} from './constructs/nag-acknowledgements.js';
import { PlatformSeed } from './constructs/platform-seed.js';
import { llmSettings, RelayApi } from './constructs/relay-api.js';
import { areaId, RouteArea } from './constructs/route-area.js';
import { DLQ_RETENTION, WorkQueues } from './constructs/work-queues.js';

/** Repository root (this file lives in <root>/infra). */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');

export const DEFAULT_STACK_NAME = 'VoiceControlApi';
/** API Gateway HTTP APIs give up on an integration after 30 s. */
const MAX_ROUTE_TIMEOUT_SECONDS = 29;
const DEFAULT_ROUTE_TIMEOUT_SECONDS = 10;

/** A worker may also enqueue (e.g. outbox → webhook delivery); optional in the manifest. */
type WorkerWithSends = WorkerDefinition & { readonly queues?: readonly QueueName[] };

export interface VoiceControlStackProps extends StackProps {
  readonly projectRoot?: string;
  readonly routes?: readonly RouteDefinition[];
  readonly workers?: readonly WorkerDefinition[];
  readonly scheduledJobs?: readonly ScheduledJobDefinition[];
}

/**
 * What a route may do to the table. Bearer authentication looks the API key up in the
 * table, so an authenticated route reads the table even when its own work does not.
 */
export function effectiveTableAccess(route: RouteDefinition): TableAccess {
  // A session route slides the session's idle expiry (a write) even when its own work only reads.
  if (route.auth === 'session') return 'write';
  if (route.table !== 'none') return route.table;
  return route.auth === 'bearer' ? 'read' : 'none';
}

/** The API key pepper is needed to authenticate; readiness checks need the secret too. */
export function needsAppSecret(route: RouteDefinition): boolean {
  return route.auth === 'bearer' || route.auth === 'session' || effectiveTableAccess(route) !== 'none';
}

/** The carrier callbacks answer with TwiML, which hands answered calls to the voice runtime's relay URL. */
export const rendersTwiml = (route: RouteDefinition): boolean => route.handler.startsWith('functions/carrier/');

/** Which browser origins a route must know (Origin checks, links in mails). */
export function neededOrigins(route: RouteDefinition): { dashboard: boolean; portal: boolean } {
  return {
    dashboard: route.auth === 'session' || route.auth === 'dashboard_origin' || route.mail === true,
    portal: route.auth === 'portal_origin' || route.mail === true,
  };
}

/**
 * The dashboard's origin when the `dashboardOrigin` context is not set: the origin (scheme,
 * host, port) of `publicBaseUrl` when that is set (a custom domain serves the API and so the
 * dashboard's same-host calls), else the execute-api origin.
 */
export function defaultDashboardOrigin(publicBaseUrl: string | undefined, apiOrigin: string): string {
  if (!publicBaseUrl) return apiOrigin;
  return new URL(publicBaseUrl).origin;
}

export class VoiceControlStack extends Stack {
  readonly api: HttpApi;
  readonly table: DataTable;
  readonly queues: WorkQueues;
  readonly importBucket: ImportBucket;
  readonly appSecret: AppSecret;
  readonly credentialsKey: CredentialsKey;
  /** Seeds platform data and templates after every deploy that changes them. */
  readonly platformSeed: PlatformSeed;
  /** The nested stack of each manifest tag: its route functions, routes and invoke role. */
  readonly routeAreas = new Map<string, RouteArea>();
  /** Keyed by manifest id. */
  readonly routeFunctions = new Map<string, AppFunction>();
  readonly workerFunctions = new Map<string, AppFunction>();
  readonly scheduledFunctions = new Map<string, AppFunction>();
  /** Answers API Gateway's $default route (no manifest route matched). */
  fallbackFunction!: AppFunction;
  /** The voice runtime's WebSocket API (Twilio ConversationRelay). */
  readonly relay: RelayApi;
  /** What pages an operator, through one encrypted SNS topic. */
  readonly alarms: Alarms;
  /** Stream batches a table-stream job gave up on (after its retries, bisected), keyed by job id. */
  readonly streamFailureQueues = new Map<string, sqs.Queue>();

  constructor(scope: Construct, id: string, props: VoiceControlStackProps = {}) {
    const { projectRoot = PROJECT_ROOT, routes: routeList, workers: workerList, scheduledJobs: jobList, ...stackProps } = props;
    super(scope, id, {
      description: 'Voice Agent Control API: HTTP API, per-route Lambda functions, DynamoDB, SQS workers',
      ...stackProps,
    });
    const routes: readonly RouteDefinition[] = routeList ?? manifestRoutes;
    const workers: readonly WorkerWithSends[] = workerList ?? manifestWorkers;
    const jobs: readonly ScheduledJobDefinition[] = jobList ?? manifestScheduledJobs;

    this.table = new DataTable(this, 'Data');
    this.queues = new WorkQueues(this, 'Queues');
    this.importBucket = new ImportBucket(this, 'Imports');
    this.appSecret = new AppSecret(this, 'AppSecret');
    this.api = new HttpApi(this, 'Http');
    this.credentialsKey = new CredentialsKey(this, 'CredentialsKey');
    // Where carriers reach us (signed callback URLs) and where the Twilio adapter reaches
    // Twilio: deployment settings (context publicBaseUrl for a custom domain; twilioApiBaseUrl).
    const publicBaseUrlContext = this.node.tryGetContext('publicBaseUrl') as string | undefined;
    const publicBaseUrl = publicBaseUrlContext ?? this.api.url;
    const twilioApiBaseUrl = (this.node.tryGetContext('twilioApiBaseUrl') as string | undefined) ?? 'https://api.twilio.com';
    // Dashboard (see docs/decisions/auth-and-sessions.md): deployment settings. dashboardOrigin is what state-changing cookie
    // routes demand as Origin; portalOrigin is the only origin that may submit an emailed
    // deletion proof (default: the dashboard's). Mail goes out through SES from mailFrom.
    const apiOrigin = `https://${this.api.api.apiId}.execute-api.${this.region}.${this.urlSuffix}`;
    const dashboardOrigin = (this.node.tryGetContext('dashboardOrigin') as string | undefined) ?? defaultDashboardOrigin(publicBaseUrlContext, apiOrigin);
    const portalOrigin = (this.node.tryGetContext('portalOrigin') as string | undefined) ?? dashboardOrigin;
    const mailFrom = (this.node.tryGetContext('mailFrom') as string | undefined) ?? 'no-reply@example.com';
    const mailIdentity = mailFrom.slice(mailFrom.lastIndexOf('@') + 1);
    // Google (calendar connections): unset = Google's own hosts; `<api url>/sandbox/google` = the deployment's sandbox Google.
    const googleApiBaseUrl = this.node.tryGetContext('googleApiBaseUrl') as string | undefined;

    // The LLM registry's deployment settings (context llmModels, defaultLlmRoute): the relay runs
    // the chain; every route validating an agent's llm_route must know the same models.
    const llm = { models: jsonContext(this.node.tryGetContext('llmModels')), defaultRoute: jsonContext(this.node.tryGetContext('defaultLlmRoute')) };
    const llmEnvironment = llmSettings(llm).environment;

    const table = this.table.table;
    // The voice runtime's socket: its URL goes into the TwiML the carrier routes render.
    this.relay = new RelayApi(this, 'Relay', {
      projectRoot,
      table,
      appSecret: this.appSecret.secret,
      credentialsKey: this.credentialsKey,
      publicBaseUrl,
      relayUrl: this.node.tryGetContext('voiceRuntimeRelayUrl') as string | undefined,
      provisionedConcurrency: Number(this.node.tryGetContext('relayProvisionedConcurrency') ?? 0),
      warmUpMinutes: Number(this.node.tryGetContext('relayWarmUpMinutes') ?? 5),
      llm,
    });
    this.platformSeed = new PlatformSeed(this, 'PlatformSeed', { table, projectRoot });
    acknowledgeSecretRotation(this.appSecret.secret, 'app');
    for (const seed of this.appSecret.seeds) acknowledgeSecretRotation(seed, 'seed');

    const grantTable = (fn: AppFunction, access: TableAccess): void => {
      if (access === 'none') return;
      if (access === 'read') table.grantReadData(fn.role);
      else table.grantReadWriteData(fn.role);
      acknowledgeTableIndexes(fn.role, table);
    };
    const grantSends = (fn: AppFunction, names: readonly QueueName[] | undefined): void => {
      for (const name of names ?? []) {
        const { queue } = this.queues.get(name);
        queue.grantSendMessages(fn.role);
        fn.addEnvironment(queues[name].envVar, queue.queueUrl);
      }
    };

    const logGroups = new SharedLogGroups(this, 'LogGroups');
    const routeScope = new Construct(this, 'Routes');
    const areaOf = (tag: string): RouteArea => {
      let area = this.routeAreas.get(tag);
      if (!area) {
        area = new RouteArea(routeScope, areaId(tag), { area: tag, api: this.api.api });
        this.routeAreas.set(tag, area);
      }
      return area;
    };
    for (const route of routes) {
      const area = areaOf(route.tag);
      const timeoutSeconds = route.timeoutSeconds ?? DEFAULT_ROUTE_TIMEOUT_SECONDS;
      if (timeoutSeconds > MAX_ROUTE_TIMEOUT_SECONDS) {
        throw new Error(`route ${route.id}: timeout ${timeoutSeconds}s exceeds the HTTP API limit`);
      }
      const fn = new AppFunction(area, route.id, {
        entry: join(projectRoot, `${route.handler}.ts`),
        projectRoot,
        description: `${routeKey(route)}: ${route.summary}`,
        timeout: Duration.seconds(timeoutSeconds),
        memorySize: route.memoryMb,
        environment: {
          TABLE_NAME: table.tableName,
          PUBLIC_BASE_URL: publicBaseUrl,
          TWILIO_API_BASE_URL: twilioApiBaseUrl,
          ...(googleApiBaseUrl ? { GOOGLE_API_BASE_URL: googleApiBaseUrl } : {}),
          ...(rendersTwiml(route) ? { VOICE_RUNTIME_RELAY_URL: this.relay.url } : {}),
          ...llmEnvironment,
        },
        logGroup: area.logGroup,
        route,
        ...(route.passwords ? { nodeModules: PASSWORD_MODULES } : {}),
      });
      grantTable(fn, effectiveTableAccess(route));
      if (route.kms) {
        this.credentialsKey.grant(fn.role, route.kms);
        fn.addEnvironment('CREDENTIALS_KMS_KEY_ID', this.credentialsKey.key.keyArn);
      }
      if (needsAppSecret(route)) {
        this.appSecret.secret.grantRead(fn.role);
        fn.addEnvironment('APP_SECRET_ARN', this.appSecret.secret.secretArn);
      }
      grantSends(fn, route.queues);
      const origins = neededOrigins(route);
      if (origins.dashboard) fn.addEnvironment('DASHBOARD_ORIGIN', dashboardOrigin);
      if (origins.portal) fn.addEnvironment('PORTAL_ORIGIN', portalOrigin);
      if (route.mail) {
        fn.addEnvironment('MAIL_TRANSPORT', 'ses');
        fn.addEnvironment('MAIL_FROM', mailFrom);
        fn.role.addToPrincipalPolicy(
          new PolicyStatement({
            actions: ['ses:SendEmail'],
            resources: [
              this.formatArn({ service: 'ses', resource: 'identity', resourceName: mailIdentity }),
              this.formatArn({ service: 'ses', resource: 'identity', resourceName: mailFrom }),
            ],
          }),
        );
      }
      if (route.bucket) {
        this.importBucket.grantObjects(fn.role, route.bucket);
        acknowledgeBucketObjects(fn.role, this.importBucket.bucket, IMPORT_OBJECTS_PATTERN);
        fn.addEnvironment('IMPORT_BUCKET', this.importBucket.bucket.bucketName);
      }
      const httpRoute = area.addLambdaRoute(route.id, route.method, route.path, fn.function);
      acknowledgeRouteAuthorization(httpRoute, route.auth);
      this.routeFunctions.set(route.id, fn);
    }

    // Unknown paths answer in the contract's error shape instead of API Gateway's own 404.
    const fallback = new AppFunction(routeScope, fallbackRoute.id, {
      entry: join(projectRoot, `${fallbackRoute.handler}.ts`),
      projectRoot,
      description: `$default: ${fallbackRoute.summary}`,
      timeout: Duration.seconds(DEFAULT_ROUTE_TIMEOUT_SECONDS),
    });
    acknowledgeRouteAuthorization(this.api.addDefaultRoute(fallbackRoute.id, fallback.function), 'none');
    this.fallbackFunction = fallback;

    const workerScope = new Construct(this, 'Workers');
    for (const worker of workers) {
      const def = queues[worker.queue];
      if (def.visibilityTimeoutSeconds < worker.timeoutSeconds) {
        throw new Error(`worker ${worker.id}: queue visibility timeout is shorter than the function timeout`);
      }
      const fn = new AppFunction(workerScope, worker.id, {
        entry: join(projectRoot, `${worker.handler}.ts`),
        projectRoot,
        description: `SQS ${def.name}: ${worker.summary}`,
        timeout: Duration.seconds(worker.timeoutSeconds),
        environment: { TABLE_NAME: table.tableName },
        logGroup: logGroups.get('Workers'),
      });
      grantTable(fn, worker.table);
      grantSends(fn, worker.queues);
      if (worker.sendsToOwnDlq) {
        const { deadLetterQueue } = this.queues.get(worker.queue);
        deadLetterQueue.grantSendMessages(fn.role);
        fn.addEnvironment((def as { dlqEnvVar?: string }).dlqEnvVar ?? `${def.envVar.replace(/_URL$/, '')}_DLQ_URL`, deadLetterQueue.queueUrl);
      }
      if (worker.kms) {
        this.credentialsKey.grant(fn.role, worker.kms);
        fn.addEnvironment('CREDENTIALS_KMS_KEY_ID', this.credentialsKey.key.keyArn);
      }
      if (worker.publicUrls) {
        fn.addEnvironment('PUBLIC_BASE_URL', publicBaseUrl);
        fn.addEnvironment('TWILIO_API_BASE_URL', twilioApiBaseUrl);
      }
      if (worker.appSecret) {
        this.appSecret.secret.grantRead(fn.role);
        fn.addEnvironment('APP_SECRET_ARN', this.appSecret.secret.secretArn);
      }
      // Grants consume rights (receive/delete/change visibility) on this queue only.
      fn.function.addEventSource(
        new SqsEventSource(this.queues.get(worker.queue).queue, {
          batchSize: worker.batchSize,
          reportBatchItemFailures: true,
        }),
      );
      this.workerFunctions.set(worker.id, fn);
    }

    // Scheduled jobs: an EventBridge rule each (the local runtime runs them on an interval).
    const scheduleScope = new Construct(this, 'Schedules');
    for (const job of jobs) {
      const fn = new AppFunction(scheduleScope, job.id, {
        entry: join(projectRoot, `${job.handler}.ts`),
        projectRoot,
        description: `Every ${job.everyMinutes} min: ${job.summary}`,
        timeout: Duration.seconds(job.timeoutSeconds),
        environment: { TABLE_NAME: table.tableName },
        logGroup: logGroups.get('Schedules'),
      });
      grantTable(fn, job.table);
      grantSends(fn, job.queues);
      if (job.tableStream) {
        // A batch that keeps failing is split to find the record at fault; what still fails goes
        // to a queue of its own (its records' markers stay, so the scheduled run relays them anyway).
        const failures = new sqs.Queue(scheduleScope, `${job.id}StreamFailures`, {
          retentionPeriod: DLQ_RETENTION,
          encryption: sqs.QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          removalPolicy: RemovalPolicy.DESTROY,
        });
        acknowledgeStreamFailureQueue(failures);
        this.streamFailureQueues.set(job.id, failures);
        // Only INSERTs of the job's items reach it (the outbox markers), within a second of the commit.
        fn.function.addEventSource(
          new DynamoEventSource(table, {
            startingPosition: StartingPosition.LATEST,
            batchSize: 100,
            retryAttempts: 10,
            bisectBatchOnError: true,
            onFailure: new SqsDlq(failures),
            filters: [FilterCriteria.filter({ eventName: FilterRule.isEqual('INSERT'), dynamodb: { Keys: { pk: { S: [{ prefix: job.tableStream }] } } } })],
          }),
        );
        acknowledgeStreamTrigger(fn.role);
      }
      if (job.kms) {
        this.credentialsKey.grant(fn.role, job.kms);
        fn.addEnvironment('CREDENTIALS_KMS_KEY_ID', this.credentialsKey.key.keyArn);
      }
      if (job.publicUrls) {
        fn.addEnvironment('PUBLIC_BASE_URL', publicBaseUrl);
        fn.addEnvironment('TWILIO_API_BASE_URL', twilioApiBaseUrl);
      }
      if (job.appSecret) {
        this.appSecret.secret.grantRead(fn.role);
        fn.addEnvironment('APP_SECRET_ARN', this.appSecret.secret.secretArn);
      }
      if ('bucket' in job && job.bucket) {
        this.importBucket.grantErasure(fn.role);
        acknowledgeBucketObjects(fn.role, this.importBucket.bucket, IMPORT_OBJECTS_PATTERN);
        fn.addEnvironment('IMPORT_BUCKET', this.importBucket.bucket.bucketName);
      }
      new Rule(scheduleScope, `${job.id}Rule`, {
        description: job.summary,
        schedule: Schedule.rate(Duration.minutes(job.everyMinutes)),
        targets: [new LambdaFunction(fn.function, { retryAttempts: 0 })],
      });
      this.scheduledFunctions.set(job.id, fn);
    }

    this.alarms = new Alarms(this, 'Alarms');
    for (const [name, { deadLetterQueue }] of this.queues.all()) this.alarms.deadLetterQueue(name, deadLetterQueue);
    for (const [id, queue] of this.streamFailureQueues) {
      this.alarms.deadLetterQueue(`${id}Stream`, queue);
      this.alarms.streamIteratorAge(id, this.scheduledFunctions.get(id)!.function);
    }
    this.alarms.apiServerErrors(
      this.api.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      this.api.api.metricCount({ period: Duration.minutes(5), statistic: 'Sum' }),
    );
    for (const area of this.routeAreas.values()) this.alarms.functions(area, 'Routes', area.functions);
    this.alarms.functions(
      this.alarms,
      'Workers',
      [...this.workerFunctions.values()].map((f) => f.function),
    );
    this.alarms.functions(
      this.alarms,
      'Schedules',
      [...this.scheduledFunctions.values()].map((f) => f.function),
    );
    this.alarms.functions(
      this.alarms,
      'Relay',
      [...this.relay.functions.values()].map((f) => f.function),
    );
    this.alarms.webhookEventsFailed(logGroups.get('Workers'));

    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn, description: 'Subscribe the on-call pager or mail to it' });
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the HTTP API' });
    new CfnOutput(this, 'VoiceRuntimeRelayUrl', {
      value: this.relay.url,
      description: 'Twilio ConversationRelay URL of the voice runtime (TwiML adds ?token=)',
    });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'AppSecretArn', { value: this.appSecret.secret.secretArn });
    new CfnOutput(this, 'CredentialsKeyArn', { value: this.credentialsKey.key.keyArn, description: 'For the operator CLI (--kms-key-id)' });
    new CfnOutput(this, 'ImportBucketName', { value: this.importBucket.bucket.bucketName });
    for (const [name, { queue, deadLetterQueue }] of this.queues.all()) {
      const prefix = name.charAt(0).toUpperCase() + name.slice(1);
      new CfnOutput(this, `${prefix}QueueUrl`, { value: queue.queueUrl });
      new CfnOutput(this, `${prefix}DeadLetterQueueUrl`, { value: deadLetterQueue.queueUrl });
    }
  }
}

export interface BuildAppOptions {
  /** Extra context (overrides cdk.json's feature flags). */
  readonly context?: Record<string, unknown>;
  readonly stackName?: string;
  readonly projectRoot?: string;
}

/** A JSON setting given as context: cdk.json holds it as JSON, `-c name='…'` as text. */
function jsonContext(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Build the app and the stack without synthesizing, with cdk-nag's AwsSolutions checks
 * registered so every synth (CLI or test) runs them. bin/app.ts calls this and synth().
 */
export function buildApp(options: BuildAppOptions = {}): { app: App; stack: VoiceControlStack } {
  const projectRoot = options.projectRoot ?? PROJECT_ROOT;
  // The CLI passes cdk.json's context itself; reading it here gives tests the same flags.
  const cdkJson = JSON.parse(readFileSync(join(projectRoot, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  const app = new App({ context: { ...cdkJson.context, ...options.context } });
  const stackName = options.stackName ?? (app.node.tryGetContext('stackName') as string | undefined) ?? DEFAULT_STACK_NAME;
  const stack = new VoiceControlStack(app, stackName, { projectRoot });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true }));
  return { app, stack };
}
