/**
 * Infra: assertions on the synthesized template (one synth per file) and the cdk-nag
 * AwsSolutions report. Nothing here reads a bundle, so esbuild is skipped (CDK's
 * bundling-stacks context); what a bundle holds is checked on a few real ones in
 * bundles.test.ts. Expectations are derived from the route and
 * worker manifests and the shared table/queue definitions, so a new manifest entry is
 * checked without touching this file.
 */
import { App, type CfnElement, Stack, Token, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppFunction } from '../../infra/constructs/app-function.js';
import { IMPORT_OBJECTS_PATTERN } from '../../infra/constructs/import-bucket.js';
import { buildApp, type VoiceControlStack } from '../../infra/stack.js';
import { tableDefinition } from '../../shared/db/table-definition.js';
import { type QueueName, queues } from '../../shared/queues/definitions.js';
import { type RouteDefinition, routeKey, routes } from '../../shared/routes.js';
import { TEMPLATES } from '../../shared/schemas/template-catalogue.js';
import { seedContentHash } from '../../shared/seed/platform.js';
import { DEFAULT_MODELS } from '../../shared/voice/llm/registry.js';
import { type ScheduledJobDefinition, scheduledJobs, type WorkerDefinition, workers } from '../../shared/workers.js';
import { type MergedTemplate, mergedTemplate } from '../support/merged-template.js';
import { SKIP_BUNDLING } from '../support/skip-bundling.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

const DYNAMO_WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:TransactWriteItems'];
const queueNames = Object.keys(queues) as QueueName[];

let app: App;
let stack: VoiceControlStack;
let template: Template;
let resources: Record<string, Json>;

let merged: MergedTemplate;
let parentResourceCount = 0;

beforeAll(() => {
  ({ app, stack } = buildApp({ context: SKIP_BUNDLING }));
  app.synth(); // once; Template.fromStack reads the synthesized templates
  template = Template.fromStack(stack);
  merged = mergedTemplate(stack);
  ({ resources, parentResourceCount } = merged);
}, 240_000);

// ---------------------------------------------------------------------------- helpers

const logicalId = (construct: IConstruct): string => merged.logicalId(construct);
const countOf = (type: string): number => Object.values(resources).filter((r) => r.Type === type).length;
const cfnOf = (construct: IConstruct): IConstruct => construct.node.defaultChild ?? construct;
const ref = (construct: IConstruct): Json => ({ Ref: logicalId(cfnOf(construct)) });
const arnOf = (construct: IConstruct): Json => ({ 'Fn::GetAtt': [logicalId(cfnOf(construct)), 'Arn'] });

function routeFn(route: RouteDefinition): AppFunction {
  const fn = stack.routeFunctions.get(route.id);
  if (!fn) throw new Error(`no function for route ${route.id}`);
  return fn;
}
function workerFn(worker: WorkerDefinition): AppFunction {
  const fn = stack.workerFunctions.get(worker.id);
  if (!fn) throw new Error(`no function for worker ${worker.id}`);
  return fn;
}
function fnResource(fn: AppFunction): Json {
  const res = resources[logicalId(cfnOf(fn.function))];
  if (!res) throw new Error('function resource not found');
  return res;
}
function envOf(fn: AppFunction): Record<string, unknown> {
  return (fnResource(fn).Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
}
/** Every Allow statement of every policy attached to the function's role (separate policies and the role's inline ones). */
function statementsOf(fn: AppFunction): Statement[] {
  const roleRef = ref(fn.role);
  const attached = Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .filter((r) => (r.Properties.Roles as unknown[]).some((x) => JSON.stringify(x) === JSON.stringify(roleRef)))
    .flatMap((r) => r.Properties.PolicyDocument.Statement as Statement[]);
  const inline = ((resources[logicalId(cfnOf(fn.role))]?.Properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]).flatMap(
    (p) => p.PolicyDocument.Statement,
  );
  return [...attached, ...inline];
}
/** Every policy document in the template: AWS::IAM::Policy resources and roles' inline policies. */
function allPolicyDocuments(): { Statement: Statement[] }[] {
  return Object.values(resources).flatMap((r) =>
    r.Type === 'AWS::IAM::Policy'
      ? [r.Properties.PolicyDocument]
      : r.Type === 'AWS::IAM::Role'
        ? ((r.Properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]).map((p) => p.PolicyDocument)
        : [],
  );
}
const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const resourcesOf = (s: Statement): unknown[] => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]);
const allActions = (fn: AppFunction): string[] => statementsOf(fn).flatMap(actionsOf);
const statementsWith = (fn: AppFunction, action: string): Statement[] => statementsOf(fn).filter((s) => actionsOf(s).includes(action));

/** Independent statement of the access rules (docs: bearer auth reads the key table). */
function expectedTableAccess(route: RouteDefinition): 'none' | 'read' | 'write' {
  // A dashboard session slides its idle expiry on use: a write, whatever the route's own work.
  if (route.auth === 'session') return 'write';
  if (route.table !== 'none') return route.table;
  return route.auth === 'bearer' ? 'read' : 'none';
}

function newestNodeRuntime(): string {
  const versions = lambda.Runtime.ALL.map((r) => /^nodejs(\d+)\.x$/.exec(r.name)?.[1])
    .filter((v): v is string => v !== undefined)
    .map(Number);
  return `nodejs${Math.max(...versions)}.x`;
}

// ---------------------------------------------------------------------------- functions

describe('functions', () => {
  it('has exactly one Lambda function per manifest route plus one per worker and scheduled job, the seed hook, and no helper functions', () => {
    expect(countOf('AWS::Lambda::Function')).toBe(routes.length + workers.length + scheduledJobs.length + 1 + 1 + 3); // + the $default fallback + the seed hook + the voice runtime relay's three
    expect(stack.scheduledFunctions.size).toBe(scheduledJobs.length);
    expect(stack.routeFunctions.size).toBe(routes.length);
    expect(stack.workerFunctions.size).toBe(workers.length);
    // No CDK singleton helpers (log retention, auto-delete objects, provider frameworks): the one
    // custom resource is the seed hook, served by our own function.
    const customTypes = Object.values(resources)
      .map((r) => r.Type as string)
      .filter((t) => t.startsWith('Custom::') || t === 'AWS::CloudFormation::CustomResource');
    expect(customTypes).toEqual(['Custom::PlatformSeed']);
  });

  it('gives every function the shared runtime, architecture, tracing, logging and env defaults', () => {
    const all = [...routes.map(routeFn), ...workers.map(workerFn), stack.platformSeed.fn];
    for (const fn of all) {
      const props = fnResource(fn).Properties;
      expect(props.Runtime).toBe(newestNodeRuntime());
      expect(props.Architectures).toEqual(['arm64']);
      expect(props.TracingConfig).toEqual({ Mode: 'Active' });
      expect(props.Handler).toBe('index.handler');
      // Explicit log group with retention: its area's (one per manifest tag, workers, schedules).
      expect(props.LoggingConfig.LogGroup).toEqual(ref(fn.logGroup));
      expect(resources[logicalId(cfnOf(fn.logGroup))]?.Properties.RetentionInDays).toBe(30);
      expect(envOf(fn)).toMatchObject({
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: expect.any(String),
        POWERTOOLS_METRICS_NAMESPACE: expect.any(String),
        TABLE_NAME: ref(stack.table.table),
      });
    }
  });

  it('applies manifest timeouts and memory sizes', () => {
    for (const route of routes) {
      const r: RouteDefinition = route;
      const props = fnResource(routeFn(route)).Properties;
      if (r.timeoutSeconds) expect(props.Timeout).toBe(r.timeoutSeconds);
      if (r.memoryMb) expect(props.MemorySize).toBe(r.memoryMb);
      expect(props.Timeout).toBeLessThan(30); // HTTP API integration limit
    }
    for (const worker of workers) {
      const props = fnResource(workerFn(worker)).Properties;
      expect(props.Timeout).toBe(worker.timeoutSeconds);
      expect(queues[worker.queue].visibilityTimeoutSeconds).toBeGreaterThanOrEqual(worker.timeoutSeconds);
    }
  });
});

// ---------------------------------------------------------------------------- API

describe('HTTP API', () => {
  it('has one route per manifest entry, each integrated with its own function', () => {
    expect(countOf('AWS::ApiGatewayV2::Route')).toBe(routes.length + 1 + 3); // + $default + the relay's $connect/$default/$disconnect
    const routeResources = Object.values(resources).filter(
      (r) => r.Type === 'AWS::ApiGatewayV2::Route' && JSON.stringify(r.Properties.ApiId) === JSON.stringify(ref(stack.api.api)),
    );
    for (const route of routes) {
      const found = routeResources.filter((r) => r.Properties.RouteKey === routeKey(route));
      expect(found, routeKey(route)).toHaveLength(1);
      // Target "integrations/<IntegrationId>" → IntegrationUri = this route's function.
      const target = JSON.stringify(found[0]?.Properties.Target);
      const integrationId = Object.keys(resources).find((id) => resources[id]?.Type === 'AWS::ApiGatewayV2::Integration' && target.includes(`"${id}"`));
      expect(integrationId, routeKey(route)).toBeDefined();
      expect(resources[integrationId!]?.Properties.IntegrationUri).toEqual(arnOf(routeFn(route).function));
    }
  });

  it('logs every request as JSON on the $default stage, with retention, and throttles by default', () => {
    const stage = Object.values(resources).find(
      (r) => r.Type === 'AWS::ApiGatewayV2::Stage' && JSON.stringify(r.Properties.ApiId) === JSON.stringify(ref(stack.api.api)),
    );
    expect(stage?.Properties.StageName).toBe('$default');
    expect(stage?.Properties.AutoDeploy).toBe(true);
    const settings = stage?.Properties.AccessLogSettings;
    expect(settings.DestinationArn).toEqual(arnOf(stack.api.accessLogs));
    expect(resources[logicalId(cfnOf(stack.api.accessLogs))]?.Properties.RetentionInDays).toBeGreaterThan(0);
    const format = JSON.parse(settings.Format as string) as Record<string, string>;
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      ip: '$context.identity.sourceIp',
      routeKey: '$context.routeKey',
      status: '$context.status',
      responseLatency: '$context.responseLatency',
      integrationLatency: '$context.integrationLatency',
    });
    expect(stage?.Properties.DefaultRouteSettings.ThrottlingRateLimit).toBeGreaterThan(0);
    expect(stage?.Properties.DefaultRouteSettings.ThrottlingBurstLimit).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------- data

describe('table', () => {
  it('is built from the shared table definition with TTL, PITR, encryption and retention', () => {
    expect(countOf('AWS::DynamoDB::Table')).toBe(1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        KeySchema: [
          { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
          { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
        GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((gsi) =>
          Match.objectLike({
            IndexName: gsi.indexName,
            KeySchema: [
              { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
              { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          }),
        ),
      }),
    });
  });
});

describe('queues', () => {
  it.each(queueNames)('%s has a dead-letter queue per the shared definition, SSE and TLS-only access', (name) => {
    const def = queues[name];
    const { queue, deadLetterQueue } = stack.queues.get(name);
    const main = resources[logicalId(cfnOf(queue))]?.Properties;
    const dlq = resources[logicalId(cfnOf(deadLetterQueue))]?.Properties;
    expect(main.RedrivePolicy).toEqual({ deadLetterTargetArn: arnOf(deadLetterQueue), maxReceiveCount: def.maxReceiveCount });
    expect(main.VisibilityTimeout).toBe(def.visibilityTimeoutSeconds);
    expect(main.SqsManagedSseEnabled).toBe(true);
    expect(dlq.SqsManagedSseEnabled).toBe(true);
    expect(dlq.MessageRetentionPeriod).toBe(def.dlqRetentionDays * 86_400);
    for (const q of [queue, deadLetterQueue]) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [ref(q)],
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        },
      });
    }
  });

  it('wires each worker to its queue with partial batch failure reporting', () => {
    const streamJobs = scheduledJobs.filter((j) => (j as ScheduledJobDefinition).tableStream);
    expect(countOf('AWS::Lambda::EventSourceMapping')).toBe(workers.length + streamJobs.length);
    for (const worker of workers) {
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: ref(workerFn(worker).function),
        EventSourceArn: arnOf(stack.queues.get(worker.queue).queue),
        BatchSize: worker.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    }
  });

  it('runs the outbox relay on the table stream, for inserted outbox markers only, and every minute', () => {
    const relay = stack.scheduledFunctions.get('outboxRelay')!;
    const table = resources[logicalId(cfnOf(stack.table.table))]!;
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'KEYS_ONLY' });
    const mapping = Object.values(resources).find(
      (r) => r.Type === 'AWS::Lambda::EventSourceMapping' && JSON.stringify(r.Properties.FunctionName) === JSON.stringify(ref(relay.function)),
    )!;
    expect(mapping.Properties.EventSourceArn).toEqual({ 'Fn::GetAtt': [logicalId(cfnOf(stack.table.table)), 'StreamArn'] });
    expect(JSON.parse(mapping.Properties.FilterCriteria.Filters[0].Pattern)).toEqual({
      eventName: ['INSERT'],
      dynamodb: { Keys: { pk: { S: [{ prefix: 'PLATFORM#OUTBOX#' }] } } },
    });
    expect(statementsWith(relay, 'dynamodb:GetRecords').flatMap(resourcesOf)).toContainEqual({
      'Fn::GetAtt': [logicalId(cfnOf(stack.table.table)), 'StreamArn'],
    });
    expect(envOf(relay)[queues.webhookDelivery.envVar]).toEqual(ref(stack.queues.get('webhookDelivery').queue));
  });

  it('lets the webhook worker send to its own queue (retries) and its dead-letter queue (a schedule run out), and open signing secrets', () => {
    const fn = workerFn(workers.find((w) => w.id === 'webhookDeliveryWorker')!);
    const { queue, deadLetterQueue } = stack.queues.get('webhookDelivery');
    expect(statementsWith(fn, 'sqs:SendMessage').flatMap(resourcesOf)).toEqual(expect.arrayContaining([arnOf(queue), arnOf(deadLetterQueue)]));
    expect(envOf(fn).WEBHOOK_DELIVERY_DLQ_URL).toEqual(ref(deadLetterQueue));
    expect(allActions(fn)).toContain('kms:Decrypt');
    expect(allActions(fn)).not.toContain('kms:Encrypt');
    expect(envOf(fn).WEBHOOK_ALLOW_LOOPBACK_HTTP).toBeUndefined();
  });
});

describe('import bucket', () => {
  it('is encrypted, private, versioned, TLS-only, retained and logs access to a separate bucket', () => {
    const bucket = resources[logicalId(cfnOf(stack.importBucket.bucket))];
    expect(bucket?.DeletionPolicy).toBe('Retain');
    const props = bucket?.Properties;
    expect(props.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    expect(props.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(props.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(props.LoggingConfiguration.DestinationBucketName).toEqual(ref(stack.importBucket.accessLogsBucket));
    for (const b of [stack.importBucket.bucket, stack.importBucket.accessLogsBucket]) {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: ref(b),
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        },
      });
    }
  });
});

describe('application secret', () => {
  it('is one secret holding api_key_pepper and cursor_key, composed from generated values only', () => {
    const secret = resources[logicalId(cfnOf(stack.appSecret.secret))];
    // SecretString = Fn::Join of literal JSON and Refs to the seeds: render Refs as <id>.
    const [, parts] = secret!.Properties.SecretString['Fn::Join'] as [string, unknown[]];
    const rendered = parts.map((p) => (typeof p === 'string' ? p : `<${(p as { Ref: string }).Ref}>`)).join('');
    const value = JSON.parse(rendered) as Record<string, string>;
    expect(Object.keys(value).sort()).toEqual(['api_key_pepper', 'cursor_key']);
    const seedIds = stack.appSecret.seeds.map((seed) => logicalId(cfnOf(seed)));
    expect(Object.values(value).sort()).toEqual(seedIds.map((id) => `{{resolve:secretsmanager:<${id}>:SecretString:::}}`).sort());
    for (const seed of stack.appSecret.seeds) {
      const props = resources[logicalId(cfnOf(seed))]?.Properties;
      expect(props.SecretString).toBeUndefined();
      expect(props.GenerateSecretString.PasswordLength).toBeGreaterThanOrEqual(32);
      expect(props.GenerateSecretString.ExcludePunctuation).toBe(true); // JSON-safe inside the composed secret
    }
  });
});

// ---------------------------------------------------------------------------- IAM

describe('least privilege', () => {
  it('never grants a wildcard action, and uses Resource "*" only for X-Ray', () => {
    expect(allPolicyDocuments().length).toBeGreaterThan(0);
    for (const document of allPolicyDocuments()) {
      for (const s of document.Statement) {
        for (const action of actionsOf(s)) {
          expect(action).not.toBe('*');
          expect(action).not.toContain('*'); // covers dynamodb:*, s3:GetObject*, ...
        }
        if (resourcesOf(s).includes('*')) {
          // Neither has a resource-level form: X-Ray's telemetry writes, and ListStreams for a stream trigger.
          expect(actionsOf(s).every((a) => a.startsWith('xray:') || a === 'dynamodb:ListStreams')).toBe(true);
        }
      }
    }
  });

  it('attaches no AWS managed policies to function roles', () => {
    for (const role of Object.values(resources).filter((r) => r.Type === 'AWS::IAM::Role')) {
      expect(role.Properties.ManagedPolicyArns ?? []).toEqual([]);
    }
  });

  it("lets each function write only to its area's log group", () => {
    for (const fn of [...stack.routeFunctions.values(), ...stack.workerFunctions.values(), ...stack.scheduledFunctions.values(), stack.platformSeed.fn]) {
      const logs = statementsWith(fn, 'logs:PutLogEvents');
      expect(logs).toHaveLength(1);
      expect(resourcesOf(logs[0]!)).toEqual([arnOf(fn.logGroup)]);
      expect(
        allActions(fn)
          .filter((a) => a.startsWith('logs:'))
          .sort(),
      ).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    }
  });

  it.each(routes.map((r) => [r.id, r] as const))('route %s gets table access matching the manifest', (_id, route) => {
    const fn = routeFn(route);
    const actions = allActions(fn);
    const dynamo = actions.filter((a) => a.startsWith('dynamodb:'));
    switch (expectedTableAccess(route)) {
      case 'none':
        expect(dynamo).toEqual([]);
        expect(envOf(fn).APP_SECRET_ARN).toBeUndefined();
        break;
      case 'read':
        expect(dynamo).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
        for (const write of DYNAMO_WRITE_ACTIONS) expect(dynamo).not.toContain(write);
        break;
      case 'write':
        expect(dynamo).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']));
        break;
    }
    for (const s of statementsOf(fn).filter((x) => actionsOf(x).some((a) => a.startsWith('dynamodb:')))) {
      const table = arnOf(stack.table.table);
      // The order of a statement's resources is the synthesizer's (it differs in a nested stack).
      const bySerialized = (list: unknown[]): string[] => list.map((r) => JSON.stringify(r)).sort();
      expect(bySerialized(resourcesOf(s))).toEqual(bySerialized([table, { 'Fn::Join': ['', [table, '/index/*']] }]));
    }
  });

  it.each((routes as readonly RouteDefinition[]).map((r) => [r.id, r] as const))(
    'route %s may use the credentials key exactly as its manifest says',
    (_id, route) => {
      const fn = routeFn(route);
      const kms = allActions(fn).filter((a) => a.startsWith('kms:'));
      const key = { 'Fn::GetAtt': [stack.getLogicalId(stack.credentialsKey.key.node.defaultChild as CfnElement), 'Arn'] };
      if (!route.kms) {
        expect(kms).toEqual([]);
        expect(envOf(fn).CREDENTIALS_KMS_KEY_ID).toBeUndefined();
        return;
      }
      expect(kms.sort()).toEqual(route.kms === 'encrypt_decrypt' ? ['kms:Decrypt', 'kms:Encrypt'] : [route.kms === 'encrypt' ? 'kms:Encrypt' : 'kms:Decrypt']);
      for (const s of statementsOf(fn).filter((x) => actionsOf(x).some((a) => a.startsWith('kms:')))) expect(resourcesOf(s)).toEqual([key]);
      expect(envOf(fn).CREDENTIALS_KMS_KEY_ID).toEqual(key);
    },
  );

  it.each(workers.map((w) => [w.id, w as WorkerDefinition] as const))('worker %s may use the credentials key exactly as its manifest says', (_id, worker) => {
    const fn = workerFn(worker);
    const kms = allActions(fn).filter((a) => a.startsWith('kms:'));
    const key = { 'Fn::GetAtt': [stack.getLogicalId(stack.credentialsKey.key.node.defaultChild as CfnElement), 'Arn'] };
    if (!worker.kms) {
      expect(kms).toEqual([]);
      expect(envOf(fn).CREDENTIALS_KMS_KEY_ID).toBeUndefined();
      return;
    }
    // The sandbox timeline signs callbacks with sealed auth tokens: it opens them, never seals.
    expect(kms).toEqual(['kms:Decrypt']);
    for (const s of statementsOf(fn).filter((x) => actionsOf(x).some((a) => a.startsWith('kms:')))) expect(resourcesOf(s)).toEqual([key]);
    expect(envOf(fn).CREDENTIALS_KMS_KEY_ID).toEqual(key);
  });

  it.each(workers.map((w) => [w.id, w as WorkerDefinition] as const))(
    'worker %s reads the app secret and knows the public URLs only as its manifest says',
    (_id, worker) => {
      const fn = workerFn(worker);
      const reads = statementsWith(fn, 'secretsmanager:GetSecretValue');
      if (worker.appSecret) {
        expect(reads.map(resourcesOf)).toEqual([[ref(stack.appSecret.secret)]]);
        expect(envOf(fn).APP_SECRET_ARN).toEqual(ref(stack.appSecret.secret));
      } else {
        expect(reads).toEqual([]);
        expect(envOf(fn).APP_SECRET_ARN).toBeUndefined();
      }
      if (worker.publicUrls) expect(Object.keys(envOf(fn))).toEqual(expect.arrayContaining(['PUBLIC_BASE_URL', 'TWILIO_API_BASE_URL']));
      else expect(envOf(fn).PUBLIC_BASE_URL).toBeUndefined();
    },
  );

  it.each(scheduledJobs.map((j) => [j.id, j] as const))(
    'scheduled job %s runs from an EventBridge rule at its rate, with the table and its queues only',
    (_id, job) => {
      const fn = stack.scheduledFunctions.get(job.id)!;
      const rules = Object.values(resources).filter(
        (r) => r.Type === 'AWS::Events::Rule' && JSON.stringify(r.Properties.Targets).includes(logicalId(cfnOf(fn.function))),
      );
      expect(rules).toHaveLength(1);
      expect(rules[0]!.Properties.ScheduleExpression).toBe(`rate(${job.everyMinutes} minute${job.everyMinutes === 1 ? '' : 's'})`);
      expect(rules[0]!.Properties.State).toBe('ENABLED');
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'events.amazonaws.com',
        FunctionName: arnOf(fn.function),
      });
      expect(fnResource(fn).Properties.Timeout).toBe(job.timeoutSeconds);
      const actions = allActions(fn);
      expect(actions.filter((a) => a === 'sqs:ReceiveMessage')).toEqual([]);
      // The import bucket only for a job that erases (the account deletion): list under imports/, delete objects there.
      const s3 = statementsOf(fn).filter((x) => actionsOf(x).some((a) => a.startsWith('s3:')));
      if ((job as ScheduledJobDefinition).bucket === 'erase') {
        expect(s3.flatMap(actionsOf).sort()).toEqual(['s3:DeleteObject', 's3:ListBucket']);
        const list = s3.find((x) => actionsOf(x).includes('s3:ListBucket')) as Statement & { Condition?: unknown };
        expect(list.Condition).toEqual({ StringLike: { 's3:prefix': [IMPORT_OBJECTS_PATTERN] } });
      } else expect(s3).toEqual([]);
      // The credentials key, the app secret and the carrier URLs exactly as its manifest says (the scheduler asks carriers about unfinished calls).
      const def = job as ScheduledJobDefinition;
      const key = { 'Fn::GetAtt': [stack.getLogicalId(stack.credentialsKey.key.node.defaultChild as CfnElement), 'Arn'] };
      expect(actions.filter((a) => a.startsWith('kms:'))).toEqual(def.kms ? ['kms:Decrypt'] : []);
      for (const s of statementsOf(fn).filter((x) => actionsOf(x).some((a) => a.startsWith('kms:')))) expect(resourcesOf(s)).toEqual([key]);
      expect(envOf(fn).CREDENTIALS_KMS_KEY_ID).toEqual(def.kms ? key : undefined);
      expect(statementsWith(fn, 'secretsmanager:GetSecretValue').map(resourcesOf)).toEqual(def.appSecret ? [[ref(stack.appSecret.secret)]] : []);
      expect(envOf(fn).APP_SECRET_ARN).toEqual(def.appSecret ? ref(stack.appSecret.secret) : undefined);
      if (def.publicUrls) expect(Object.keys(envOf(fn))).toEqual(expect.arrayContaining(['PUBLIC_BASE_URL', 'TWILIO_API_BASE_URL']));
      else expect(envOf(fn).PUBLIC_BASE_URL).toBeUndefined();
      const dynamo = actions.filter((a) => a.startsWith('dynamodb:'));
      expect(dynamo).toEqual(
        expect.arrayContaining(
          job.table === 'write' ? ['dynamodb:Query', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'] : ['dynamodb:Query'],
        ),
      );
    },
  );

  it('lets the seed hook get, put and update platform partitions of the table only, and nothing else', () => {
    const fn = stack.platformSeed.fn;
    const statements = statementsOf(fn).filter((s) => !actionsOf(s).every((a) => a.startsWith('logs:') || a.startsWith('xray:')));
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        Resource: arnOf(stack.table.table),
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PLATFORM', 'PLATFORM#*'] } },
      },
    ]);
    expect(
      Object.keys(envOf(fn)).filter(
        (k) => !['NODE_OPTIONS', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE', 'AWS_NODEJS_CONNECTION_REUSE_ENABLED'].includes(k),
      ),
    ).toEqual(['TABLE_NAME']);
  });

  it('keeps the credentials key outside the table, rotated and retained', () => {
    template.hasResource('AWS::KMS::Key', { Properties: { EnableKeyRotation: true }, DeletionPolicy: 'Retain' });
  });

  it.each(routes.map((r) => [r.id, r] as const))('route %s reads the app secret only if it authenticates or uses the table', (_id, route) => {
    const fn = routeFn(route);
    const needs = route.auth === 'bearer' || expectedTableAccess(route) !== 'none';
    const reads = statementsWith(fn, 'secretsmanager:GetSecretValue');
    if (needs) {
      expect(reads.map(resourcesOf)).toEqual([[ref(stack.appSecret.secret)]]);
      expect(envOf(fn).APP_SECRET_ARN).toEqual(ref(stack.appSecret.secret));
    } else {
      expect(reads).toEqual([]);
      expect(envOf(fn).APP_SECRET_ARN).toBeUndefined();
    }
  });

  it('never lets any function read the secret generation seeds', () => {
    const seedIds = stack.appSecret.seeds.map((s) => logicalId(cfnOf(s)));
    for (const document of allPolicyDocuments()) {
      const doc = JSON.stringify(document);
      for (const id of seedIds) expect(doc).not.toContain(id);
    }
  });

  it('lets a function send to a queue only when its manifest entry lists that queue', () => {
    const senders: [AppFunction, readonly QueueName[]][] = [
      ...routes.map((r): [AppFunction, readonly QueueName[]] => [routeFn(r), (r as RouteDefinition).queues ?? []]),
      ...workers.map((w): [AppFunction, readonly QueueName[]] => [workerFn(w), (w as WorkerDefinition & { queues?: readonly QueueName[] }).queues ?? []]),
      ...scheduledJobs.map((j): [AppFunction, readonly QueueName[]] => [stack.scheduledFunctions.get(j.id)!, j.queues ?? []]),
    ];
    for (const [fn, listed] of senders) {
      const ownDlq = [...stack.workerFunctions.entries()].some(([id, f]) => f === fn && (workers.find((w) => w.id === id) as WorkerDefinition).sendsToOwnDlq);
      // A table-stream job also sends the batches it gives up on to its stream-failure queue.
      const streamFailures = [...stack.streamFailureQueues.entries()].filter(([id]) => stack.scheduledFunctions.get(id) === fn).map(([, q]) => arnOf(q));
      const targets = statementsWith(fn, 'sqs:SendMessage').flatMap(resourcesOf);
      expect(targets).toEqual(expect.arrayContaining([...listed.map((q) => arnOf(stack.queues.get(q).queue)), ...streamFailures]));
      expect(targets).toHaveLength(listed.length + (ownDlq ? 1 : 0) + streamFailures.length);
      for (const name of queueNames) {
        const envVar = queues[name].envVar;
        if (listed.includes(name)) expect(envOf(fn)[envVar]).toEqual(ref(stack.queues.get(name).queue));
        else expect(envOf(fn)[envVar]).toBeUndefined();
      }
    }
  });

  it('gives bucket object access only to routes that declare it, read-only when declared read', () => {
    for (const route of routes as readonly RouteDefinition[]) {
      const fn = routeFn(route);
      const s3 = allActions(fn).filter((a) => a.startsWith('s3:'));
      if (!route.bucket) {
        expect(s3).toEqual([]);
        expect(envOf(fn).IMPORT_BUCKET).toBeUndefined();
        continue;
      }
      expect(envOf(fn).IMPORT_BUCKET).toEqual(ref(stack.importBucket.bucket));
      expect(s3.sort()).toEqual(route.bucket === 'write' ? ['s3:GetObject', 's3:PutObject'] : ['s3:GetObject']);
      const bucketArn = arnOf(stack.importBucket.bucket);
      for (const st of statementsOf(fn).filter((x) => actionsOf(x).some((a) => a.startsWith('s3:')))) {
        expect(resourcesOf(st)).toEqual([{ 'Fn::Join': ['', [bucketArn, '/imports/*']] }]);
      }
    }
  });

  it.each(workers.map((w) => [w.id, w] as const))('worker %s consumes only its own queue and has its table access', (_id, worker) => {
    const fn = workerFn(worker);
    const receive = statementsWith(fn, 'sqs:ReceiveMessage');
    expect(receive.flatMap(resourcesOf)).toEqual([arnOf(stack.queues.get(worker.queue).queue)]);
    const dynamo = allActions(fn).filter((a) => a.startsWith('dynamodb:'));
    expect(dynamo).toContain('dynamodb:GetItem');
    for (const write of DYNAMO_WRITE_ACTIONS.slice(0, 3)) {
      if (worker.table === 'write') expect(dynamo).toContain(write);
      else expect(dynamo).not.toContain(write);
    }
  });
});

// ---------------------------------------------------------------------------- outputs & env

describe('post-deploy seed', () => {
  it('runs the seed function as a custom resource once the table exists, re-run when the seed content changes, with a bounded wait', () => {
    const seed = resources[logicalId(stack.platformSeed.resource.node.defaultChild as CfnElement)]!;
    expect(seed.Type).toBe('Custom::PlatformSeed');
    expect(seed.Properties).toEqual({
      ServiceToken: arnOf(stack.platformSeed.fn.function),
      ServiceTimeout: '300',
      TableName: ref(stack.table.table),
      SeedContentHash: seedContentHash(),
    });
    // The hash covers the templates, so a template edit is a property change (an Update: the seed runs again).
    expect(seedContentHash()).toMatch(/^[0-9a-f]{64}$/);
    const edited = TEMPLATES.map((t, i) =>
      i === 0 ? { ...t, objectives: [...t.objectives, { id: 'new', description: 'A new objective', required: false }] } : t,
    );
    expect(seedContentHash(edited)).not.toBe(seedContentHash());
    expect(seedContentHash([...TEMPLATES])).toBe(seedContentHash());
    // It waits for the function's grants (its role's inline policy) via the function it calls.
    const fnProps = fnResource(stack.platformSeed.fn).Properties;
    expect(fnProps.Role).toEqual(arnOf(stack.platformSeed.fn.role));
    expect(fnProps.Timeout).toBeLessThan(300);
  });
});

describe('stack', () => {
  it('is environment-agnostic (no account or region), so synth needs no credentials', () => {
    expect(Token.isUnresolved(stack.account)).toBe(true);
    expect(Token.isUnresolved(stack.region)).toBe(true);
  });

  it('exports the API URL, table, secret, bucket and queue URLs', () => {
    const outputs = Object.keys(template.toJSON().Outputs as Json);
    expect(outputs).toEqual(expect.arrayContaining(['ApiUrl', 'TableName', 'AppSecretArn', 'ImportBucketName']));
    for (const name of queueNames) {
      const prefix = name.charAt(0).toUpperCase() + name.slice(1);
      expect(outputs).toEqual(expect.arrayContaining([`${prefix}QueueUrl`, `${prefix}DeadLetterQueueUrl`]));
    }
  });
});

// ---------------------------------------------------------------------------- alarms

describe('operability: alarms and failure destinations', () => {
  const alarms = () => Object.entries(resources).filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm');
  const metricsOf = (alarm: Json): Json[] =>
    (alarm.Properties.Metrics as Json[] | undefined)?.filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric) ?? [
      { MetricName: alarm.Properties.MetricName, Namespace: alarm.Properties.Namespace, Dimensions: alarm.Properties.Dimensions },
    ];
  const dimension = (metric: Json, name: string) => (metric.Dimensions as { Name: string; Value: unknown }[] | undefined)?.find((d) => d.Name === name)?.Value;
  const alarmsOn = (metricName: string, dim: string, value: unknown) =>
    alarms().filter(([, a]) => metricsOf(a).some((m) => m.MetricName === metricName && JSON.stringify(dimension(m, dim)) === JSON.stringify(value)));
  const streamJob = scheduledJobs.find((j) => (j as ScheduledJobDefinition).tableStream)!;

  it('routes every alarm to one KMS-encrypted, TLS-only SNS topic', () => {
    const topic = stack.alarms.topic;
    expect(countOf('AWS::SNS::Topic')).toBe(1);
    expect(resources[logicalId(cfnOf(topic))]!.Properties.KmsMasterKeyId).toEqual(arnOf(stack.alarms.key));
    expect(resources[logicalId(cfnOf(stack.alarms.key))]!.Properties.EnableKeyRotation).toBe(true);
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [ref(topic)],
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
    expect(alarms().length).toBeGreaterThan(10);
    for (const [id, alarm] of alarms()) expect(alarm.Properties.AlarmActions, id).toEqual([ref(topic)]);
  });

  it('pages when any dead-letter queue holds a message; every DLQ keeps messages 14 days', () => {
    const dlqs = [...stack.queues.all().map(([, q]) => q.deadLetterQueue), ...stack.streamFailureQueues.values()];
    expect(dlqs).toHaveLength(queueNames.length + 1);
    for (const dlq of dlqs) {
      expect(resources[logicalId(cfnOf(dlq))]!.Properties.MessageRetentionPeriod, dlq.node.path).toBe(14 * 86_400);
      const [found] = alarmsOn('ApproximateNumberOfMessagesVisible', 'QueueName', { 'Fn::GetAtt': [logicalId(cfnOf(dlq)), 'QueueName'] });
      expect(found, dlq.node.path).toBeDefined();
      expect(found![1].Properties).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    }
  });

  it('the outbox relay’s stream mapping bisects a failing batch and sends what still fails to its failure queue; its iterator age pages', () => {
    const fn = stack.scheduledFunctions.get(streamJob.id)!;
    const mapping = Object.values(resources).find(
      (r) => r.Type === 'AWS::Lambda::EventSourceMapping' && JSON.stringify(r.Properties.FunctionName) === JSON.stringify(ref(fn.function)),
    )!;
    expect(mapping.Properties).toMatchObject({
      BisectBatchOnFunctionError: true,
      DestinationConfig: { OnFailure: { Destination: arnOf(stack.streamFailureQueues.get(streamJob.id)!) } },
    });
    expect(alarmsOn('IteratorAge', 'FunctionName', ref(fn.function))).toHaveLength(1);
  });

  it('pages on the HTTP API’s 5xx rate', () => {
    const [found] = alarms().filter(([, a]) => metricsOf(a).some((m) => m.Namespace === 'AWS/ApiGateway' && m.MetricName === '5xx'));
    expect(found).toBeDefined();
    expect(
      metricsOf(found![1])
        .map((m) => m.MetricName)
        .sort(),
    ).toEqual(['5xx', 'Count']);
  });

  it('pages on Lambda errors and throttles of every route function (alarmed per area, beside it), worker, scheduled job and voice relay function', () => {
    const all = [...stack.routeFunctions.values(), ...stack.workerFunctions.values(), ...stack.scheduledFunctions.values(), ...stack.relay.functions.values()];
    for (const fn of all) {
      for (const metric of ['Errors', 'Throttles']) expect(alarmsOn(metric, 'FunctionName', ref(fn.function)), `${fn.node.path} ${metric}`).toHaveLength(1);
    }
    for (const area of stack.routeAreas.values()) {
      const own = Object.values(Template.fromStack(area).toJSON().Resources as Json).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
      expect(own.length, area.area).toBe(2 * Math.ceil(area.functions.length / 10));
    }
  });

  it('pages when a webhook event fails its whole retry schedule (a metric filter on the workers’ attempt log lines)', () => {
    const filter = Object.values(resources).find((r) => r.Type === 'AWS::Logs::MetricFilter')!;
    expect(filter.Properties.FilterPattern).toContain('$.delivery_status = "failed"');
    expect(filter.Properties.MetricTransformations[0]).toMatchObject({ MetricNamespace: 'VoiceControl', MetricName: 'WebhookEventsFailed' });
    expect(alarms().filter(([, a]) => metricsOf(a).some((m) => m.MetricName === 'WebhookEventsFailed'))).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------- voice runtime relay

describe('voice runtime relay (WebSocket API)', () => {
  const relayFn = (name: 'connect' | 'default' | 'disconnect') => stack.relay.functions.get(name)!;
  const dynamoActions = (fn: AppFunction) =>
    allActions(fn)
      .filter((a) => a.startsWith('dynamodb:'))
      .sort();

  it('is a WebSocket API whose $connect, $default and $disconnect routes each invoke their own function', () => {
    expect(resources[logicalId(cfnOf(stack.relay.api))]?.Properties).toMatchObject({ ProtocolType: 'WEBSOCKET' });
    const relayRoutes = Object.values(resources).filter(
      (r) => r.Type === 'AWS::ApiGatewayV2::Route' && JSON.stringify(r.Properties.ApiId) === JSON.stringify(ref(stack.relay.api)),
    );
    expect(relayRoutes.map((r) => r.Properties.RouteKey).sort()).toEqual(['$connect', '$default', '$disconnect']);
    for (const [key, name] of [
      ['$connect', 'connect'],
      ['$default', 'default'],
      ['$disconnect', 'disconnect'],
    ] as const) {
      const target = JSON.stringify(relayRoutes.find((r) => r.Properties.RouteKey === key)!.Properties.Target);
      const integrationId = Object.keys(resources).find((id) => resources[id]?.Type === 'AWS::ApiGatewayV2::Integration' && target.includes(`"${id}"`));
      expect(JSON.stringify(resources[integrationId!]?.Properties.IntegrationUri), key).toContain(logicalId(cfnOf(relayFn(name).function)));
    }
  });

  it('grants each function only the DynamoDB actions it uses, on the table itself (no index), and ManageConnections on its own @connections only', () => {
    expect(dynamoActions(relayFn('connect'))).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem']);
    expect(dynamoActions(relayFn('default'))).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    expect(dynamoActions(relayFn('disconnect'))).toEqual(['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem']);
    for (const fn of stack.relay.functions.values()) {
      for (const st of statementsOf(fn).filter((x) => actionsOf(x).some((a) => a.startsWith('dynamodb:'))))
        expect(resourcesOf(st)).toEqual([arnOf(stack.table.table)]);
      const manage = statementsWith(fn, 'execute-api:ManageConnections');
      expect(manage).toHaveLength(1);
      const resource = JSON.stringify(resourcesOf(manage[0]!));
      expect(resource).toContain(logicalId(cfnOf(stack.relay.api)));
      expect(resource).toContain('/*/*/@connections/*');
      expect(allActions(fn).filter((a) => a.startsWith('execute-api:'))).toEqual(['execute-api:ManageConnections']);
      expect(envOf(fn)).toMatchObject({
        TABLE_NAME: ref(stack.table.table),
        APP_SECRET_ARN: ref(stack.appSecret.secret),
        PUBLIC_BASE_URL: expect.anything(),
        VOICE_RUNTIME_RELAY_URL: expect.anything(),
      });
    }
    // Only $connect opens carrier credentials (the X-Twilio-Signature check).
    expect(allActions(relayFn('connect'))).toContain('kms:Decrypt');
    expect(allActions(relayFn('default')).filter((a) => a.startsWith('kms:'))).toEqual([]);
    expect(allActions(relayFn('disconnect')).filter((a) => a.startsWith('kms:'))).toEqual([]);
  });

  it("lets only $default, which streams replies, read the llm/* provider keys and invoke the registry's Bedrock foundation models", () => {
    const secretReads = (fn: AppFunction) =>
      statementsWith(fn, 'secretsmanager:GetSecretValue')
        .flatMap(resourcesOf)
        .map((r) => JSON.stringify(r));
    const llmSecrets = secretReads(relayFn('default')).filter((r) => r !== JSON.stringify(ref(stack.appSecret.secret)));
    expect(llmSecrets).toHaveLength(1);
    expect(llmSecrets[0]).toMatch(/:secretsmanager:.*:secret:llm\/\*"/);
    const bedrock = statementsWith(relayFn('default'), 'bedrock:InvokeModelWithResponseStream');
    expect(bedrock).toHaveLength(1);
    expect(actionsOf(bedrock[0]!).sort()).toEqual(['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream']);
    const models = resourcesOf(bedrock[0]!).map((r) => JSON.stringify(r));
    const expected = DEFAULT_MODELS.filter((m) => m.provider === 'bedrock').map((m) => m.model);
    expect(models).toHaveLength(expected.length);
    for (const model of expected)
      expect(
        models.some((r) => r.includes(`:foundation-model/${model}"`)),
        model,
      ).toBe(true);
    for (const name of ['connect', 'disconnect'] as const) {
      expect(secretReads(relayFn(name)), name).toEqual([JSON.stringify(ref(stack.appSecret.secret))]);
      expect(
        allActions(relayFn(name)).filter((a) => a.startsWith('bedrock:')),
        name,
      ).toEqual([]);
    }
    expect(Object.values(resources).some((r) => JSON.stringify(r.Properties?.PolicyDocument ?? {}).includes('bedrock:*'))).toBe(false);
  });

  it('hands the relay URL to the carrier routes that render TwiML, and to no other route', () => {
    for (const route of routes) {
      const env = envOf(routeFn(route));
      if (route.handler.startsWith('functions/carrier/')) expect(env.VOICE_RUNTIME_RELAY_URL, route.id).toBeDefined();
      else expect(env.VOICE_RUNTIME_RELAY_URL, route.id).toBeUndefined();
    }
  });

  it('logs connections without the query string (the token rides in it), and warms $connect and $default on a schedule; no provisioned concurrency by default', () => {
    const stage = Object.values(resources).find(
      (r) => r.Type === 'AWS::ApiGatewayV2::Stage' && JSON.stringify(r.Properties.ApiId) === JSON.stringify(ref(stack.relay.api)),
    );
    expect(stage?.Properties.AccessLogSettings.DestinationArn).toEqual(arnOf(stack.relay.accessLogs));
    expect(stage?.Properties.AccessLogSettings.Format).not.toMatch(/querystring|token/i);
    const warm = Object.values(resources).find(
      (r) => r.Type === 'AWS::Events::Rule' && JSON.stringify(r.Properties.Targets).includes(logicalId(cfnOf(relayFn('default').function))),
    );
    expect(warm?.Properties.ScheduleExpression).toBe('rate(5 minutes)');
    expect(warm?.Properties.Targets).toHaveLength(2);
    for (const target of warm!.Properties.Targets as { Input: string }[]) expect(JSON.parse(target.Input)).toEqual({ warmUp: true });
    expect(countOf('AWS::Lambda::Alias')).toBe(0);
  });
});

// ---------------------------------------------------------------------------- cdk-nag

describe('cdk-nag AwsSolutions', () => {
  it('reports no unacknowledged errors or warnings', () => {
    const report = new AwsSolutionsChecks().validateScope(app);
    const summary = report.violations.map((v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
    expect(summary).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('acknowledges findings only on specific constructs, each with a substantive reason', () => {
    const acknowledged: { path: string; id: string; reason: string }[] = [];
    for (const construct of app.node.findAll()) {
      for (const entry of construct.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
          acknowledged.push({ path: construct.node.path, id, reason });
        }
      }
    }
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const ack of acknowledged) {
      expect(ack.path, `${ack.id} must not be app- or stack-wide`).not.toBe('');
      expect(ack.path, `${ack.id} must not be stack-wide`).not.toBe(stack.node.path);
      expect(ack.reason.length, ack.id).toBeGreaterThan(80);
      // IAM5 is acknowledged per finding, never for the whole rule.
      if (ack.id.includes('IAM5')) expect(ack.id).toMatch(/IAM5\[Resource::.+\]$/);
    }
  });

  it('would fail on an unacknowledged finding (the check is not vacuous)', () => {
    const probe = new App();
    const probeStack = new Stack(probe, 'Probe');
    new iam.Role(probeStack, 'Wild', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      inlinePolicies: {
        wild: new iam.PolicyDocument({ statements: [new iam.PolicyStatement({ actions: ['dynamodb:*'], resources: ['*'] })] }),
      },
    });
    const report = new AwsSolutionsChecks().validateScope(probe);
    expect(report.success).toBe(false);
    expect(report.violations.map((v) => v.ruleName)).toContain('AwsSolutions-IAM5[Action::dynamodb:*]');
  });
});

// ---------------------------------------------------------------------------- resource budget

describe('route invocation', () => {
  it('API Gateway invokes each route function through its area’s invoke role (no resource-based permission per function), allowed only those functions', () => {
    const integrations = Object.values(resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Integration');
    for (const route of routes) {
      const fn = routeFn(route);
      const integration = integrations.find((i) => JSON.stringify(i.Properties.IntegrationUri) === JSON.stringify(arnOf(fn.function)));
      expect(integration, route.id).toBeDefined();
      expect(integration!.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      const role = stack.routeAreas.get(route.tag)!.invokeRole;
      expect(integration!.Properties.CredentialsArn).toEqual(arnOf(role));
      const allowed = (
        resources[logicalId(cfnOf(role))]!.Properties.Policies as { PolicyDocument: { Statement: { Action: string; Resource: unknown }[] } }[]
      ).flatMap((p) => p.PolicyDocument.Statement);
      expect(allowed.every((st) => st.Action === 'lambda:InvokeFunction')).toBe(true);
      const areaFns = routes.filter((r) => r.tag === route.tag).map((r) => JSON.stringify(arnOf(routeFn(r).function)));
      expect(
        allowed
          .flatMap((st) => (Array.isArray(st.Resource) ? st.Resource : [st.Resource]))
          .map((r) => JSON.stringify(r))
          .sort(),
      ).toEqual(areaFns.sort());
      expect(resources[logicalId(cfnOf(role))]!.Properties.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({ Service: 'apigateway.amazonaws.com' });
    }
    const apiPermissions = Object.values(resources).filter(
      (r) => r.Type === 'AWS::Lambda::Permission' && r.Properties.Principal === 'apigateway.amazonaws.com',
    );
    // Only the $default fallback keeps a resource-based permission (besides the WebSocket relay's own, asserted below).
    const relayFns = [...stack.relay.functions.values()].map((fn) => JSON.stringify(arnOf(fn.function)));
    expect(apiPermissions.filter((p) => !relayFns.includes(JSON.stringify(p.Properties.FunctionName)))).toHaveLength(1);
  });
});

describe('CloudFormation resource budget', () => {
  it('keeps every template well under the 500-resource stack limit: route functions live in a nested stack per area, grants inline on each role', () => {
    // The parent holds the shared resources, the workers and one resource per area.
    expect(parentResourceCount).toBeLessThan(250);
    expect(stack.routeAreas.size).toBe(new Set(routes.map((r) => r.tag)).size);
    for (const area of stack.routeAreas.values()) {
      const own = Object.keys(Template.fromStack(area).toJSON().Resources as Json).length;
      const areaRoutes = routes.filter((r) => r.tag === area.area).length;
      // Function, role, route and integration per route, plus the area's log group and invoke role, and an errors and a throttles alarm per ten routes.
      expect(own, area.area).toBe(4 * areaRoutes + 2 + 2 * Math.ceil(areaRoutes / 10));
      expect(own, area.area).toBeLessThan(400);
    }
    const functionRoles = [...stack.routeFunctions.values(), ...stack.workerFunctions.values(), stack.fallbackFunction, stack.platformSeed.fn].map((fn) =>
      logicalId(cfnOf(fn.role)),
    );
    const separate = Object.values(resources).filter(
      (r) => r.Type === 'AWS::IAM::Policy' && (r.Properties.Roles as { Ref?: string }[]).some((x) => x.Ref && functionRoles.includes(x.Ref)),
    );
    expect(separate).toEqual([]);
  });

  it('puts each route function, its route and its integration in its area’s nested stack', () => {
    for (const route of routes) {
      const area = stack.routeAreas.get(route.tag)!;
      expect(Stack.of(routeFn(route).function)).toBe(area);
      expect(Stack.of(routeFn(route).logGroup)).toBe(area);
    }
  });
});
