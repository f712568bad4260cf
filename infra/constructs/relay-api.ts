/**
 * The voice runtime's AWS host: an API Gateway WebSocket API that Twilio ConversationRelay
 * connects to (<stage URL>?token=<Stream token>), with a Lambda per route:
 *   $connect    — functions/relay/connect.ts (token + X-Twilio-Signature; one live connection per call)
 *   $default    — functions/relay/default.ts (one frame: the core's step, the reply streamed back)
 *   $disconnect — functions/relay/disconnect.ts (the session closed, its items deleted)
 * Grants are per function and name only the DynamoDB actions each one uses, on the table
 * itself (no index; DynamoDB cannot scope IAM to tenant keys), and ManageConnections on this
 * API's @connections only. Cold starts: provisioned concurrency on $connect and $default
 * (context `relayProvisionedConcurrency`, default 0) and a warm-up schedule that pings both
 * every `relayWarmUpMinutes` (default 5; 0 = none). The access log never holds the query
 * string (the token rides in it).
 *
 * The model chain: every relay function gets the deployment's LLM settings (`LLM_MODELS`,
 * `DEFAULT_LLM_ROUTE`, so each builds the same registry); only $default, which streams the
 * replies, may read the provider keys (the `llm/*` secrets) and invoke the registry's
 * Bedrock foundation models.
 */

import { join } from 'node:path';
import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { registryFromEnv } from '../../shared/voice/llm/registry.js';
import { AppFunction } from './app-function.js';
import type { CredentialsKey } from './credentials-key.js';
import { acknowledgeLlmSecrets, acknowledgeRelayConnections, acknowledgeRelayRoute } from './nag-acknowledgements.js';

/** The payload the warm-up schedule sends: the handlers answer it without touching anything. */
export const RELAY_WARM_UP_EVENT = { warmUp: true } as const;

const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  connectionId: '$context.connectionId',
  eventType: '$context.eventType',
  routeKey: '$context.routeKey',
  status: '$context.status',
  requestTime: '$context.requestTime',
  integrationLatency: '$context.integrationLatency',
  error: '$context.error.message',
};

export interface RelayApiProps {
  readonly projectRoot: string;
  readonly table: dynamodb.Table;
  readonly appSecret: secretsmanager.ISecret;
  readonly credentialsKey: CredentialsKey;
  /** The HTTP API's public base URL: the control plane routes the runtime posts events to. */
  readonly publicBaseUrl: string;
  /** A custom domain's wss URL for the relay; default the stage URL. */
  readonly relayUrl?: string;
  readonly logGroup?: logs.ILogGroup;
  /** Provisioned concurrency of $connect and $default (0 = on demand). */
  readonly provisionedConcurrency?: number;
  /** Warm-up ping period in minutes (0 = none). */
  readonly warmUpMinutes?: number;
  /** The deployment's LLM settings as the registry reads them (JSON text): extra models and the default route. */
  readonly llm?: { readonly models?: string; readonly defaultRoute?: string };
}

/** Every provider key the registry names lives under this secret name prefix (shared/voice/llm/registry.ts). */
export const LLM_SECRET_PREFIX = 'llm/';

/**
 * The LLM settings as environment variables, checked at synth (a malformed setting, or a
 * model whose key sits outside the `llm/` secrets this host may read, fails the deploy rather
 * than every reply), and the Bedrock model ids the registry names.
 */
export function llmSettings(llm: RelayApiProps['llm'] = {}): { environment: Record<string, string>; bedrockModels: string[] } {
  const environment: Record<string, string> = {
    ...(llm.models ? { LLM_MODELS: llm.models } : {}),
    ...(llm.defaultRoute ? { DEFAULT_LLM_ROUTE: llm.defaultRoute } : {}),
  };
  const registry = registryFromEnv(environment);
  const entries = registry.ids().map((id) => registry.get(id)!);
  for (const entry of entries) {
    if (entry.credentials && !entry.credentials.startsWith(LLM_SECRET_PREFIX)) {
      throw new Error(`LLM model ${entry.id}: its credentials secret must be named ${LLM_SECRET_PREFIX}…, the only secrets the voice runtime may read`);
    }
  }
  return { environment, bedrockModels: entries.filter((e) => e.provider === 'bedrock').map((e) => e.model) };
}

type RouteName = 'connect' | 'default' | 'disconnect';
const ROUTES: Record<RouteName, { key: string; handler: string; summary: string; timeoutSeconds: number; table: string[] }> = {
  connect: {
    key: '$connect',
    handler: 'functions/relay/connect',
    summary: 'a ConversationRelay socket opens: token, signature, one live connection per call',
    timeoutSeconds: 10,
    table: ['dynamodb:GetItem', 'dynamodb:PutItem'],
  },
  // A reply streams from the invocation that received its prompt; a long one outlives API Gateway's 29 s integration wait.
  default: {
    key: '$default',
    handler: 'functions/relay/default',
    summary: 'a ConversationRelay frame: the conversation core steps, the reply streams back',
    timeoutSeconds: 120,
    table: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  },
  disconnect: {
    key: '$disconnect',
    handler: 'functions/relay/disconnect',
    summary: 'a ConversationRelay socket closed: the session ends, its items go',
    timeoutSeconds: 30,
    table: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
  },
};

export class RelayApi extends Construct {
  readonly api: apigwv2.WebSocketApi;
  readonly stage: apigwv2.WebSocketStage;
  readonly accessLogs: logs.LogGroup;
  readonly functions = new Map<RouteName, AppFunction>();
  readonly routes = new Map<RouteName, apigwv2.WebSocketRoute>();
  /** The wss URL Twilio is given (VOICE_RUNTIME_RELAY_URL). */
  readonly url: string;

  constructor(scope: Construct, id: string, props: RelayApiProps) {
    super(scope, id);
    this.api = new apigwv2.WebSocketApi(this, 'Api', { description: 'Voice runtime: Twilio ConversationRelay sockets' });
    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention: logs.RetentionDays.THREE_MONTHS, removalPolicy: RemovalPolicy.RETAIN });
    this.stage = new apigwv2.WebSocketStage(this, 'Stage', {
      webSocketApi: this.api,
      stageName: 'live',
      autoDeploy: true,
      throttle: { rateLimit: 500, burstLimit: 1000 },
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
    this.url = props.relayUrl ?? this.stage.url;
    const tableArn = props.table.tableArn;
    const provisioned = props.provisionedConcurrency ?? 0;
    const warmUp: lambda.IFunction[] = [];
    const llm = llmSettings(props.llm);

    for (const [name, route] of Object.entries(ROUTES) as [RouteName, (typeof ROUTES)[RouteName]][]) {
      const fn = new AppFunction(this, `Relay${name[0]!.toUpperCase()}${name.slice(1)}`, {
        entry: join(props.projectRoot, `${route.handler}.ts`),
        projectRoot: props.projectRoot,
        description: `WebSocket ${route.key}: ${route.summary}`,
        timeout: Duration.seconds(route.timeoutSeconds),
        environment: {
          TABLE_NAME: props.table.tableName,
          PUBLIC_BASE_URL: props.publicBaseUrl,
          VOICE_RUNTIME_RELAY_URL: this.url,
          APP_SECRET_ARN: props.appSecret.secretArn,
          ...llm.environment,
        },
        logGroup: props.logGroup,
      });
      fn.role.addToPrincipalPolicy(new PolicyStatement({ actions: route.table, resources: [tableArn] }));
      props.appSecret.grantRead(fn.role);
      this.api.grantManageConnections(fn.role);
      acknowledgeRelayConnections(fn.role, this.api);
      if (name === 'connect') {
        // The X-Twilio-Signature check opens the call's carrier account credentials.
        props.credentialsKey.grant(fn.role, 'decrypt');
        fn.addEnvironment('CREDENTIALS_KMS_KEY_ID', props.credentialsKey.key.keyArn);
      }
      if (name === 'default') {
        // Provider keys are read by name (`llm/openai`, an LLM_MODELS entry's secret); Bedrock runs under this role.
        const llmSecrets = Stack.of(this).formatArn({
          service: 'secretsmanager',
          resource: 'secret',
          resourceName: `${LLM_SECRET_PREFIX}*`,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        });
        fn.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [llmSecrets] }));
        acknowledgeLlmSecrets(fn.role);
        if (llm.bedrockModels.length > 0) {
          fn.role.addToPrincipalPolicy(
            new PolicyStatement({
              actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
              resources: llm.bedrockModels.map((model) =>
                Stack.of(this).formatArn({
                  service: 'bedrock',
                  account: '',
                  resource: 'foundation-model',
                  resourceName: model,
                  arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
                }),
              ),
            }),
          );
        }
      }
      let target: lambda.IFunction = fn.function;
      if (provisioned > 0 && name !== 'disconnect') {
        target = new lambda.Alias(this, `${name}Live`, {
          aliasName: 'live',
          version: fn.function.currentVersion,
          provisionedConcurrentExecutions: provisioned,
        });
      }
      if (name !== 'disconnect') warmUp.push(target);
      const wsRoute = this.api.addRoute(route.key, { integration: new WebSocketLambdaIntegration(`${name}Integration`, target) });
      acknowledgeRelayRoute(wsRoute, name);
      this.functions.set(name, fn);
      this.routes.set(name, wsRoute);
    }

    const minutes = props.warmUpMinutes ?? 5;
    if (minutes > 0) {
      new Rule(this, 'WarmUp', {
        description: 'Keeps the voice runtime relay functions warm (answered without touching any data)',
        schedule: Schedule.rate(Duration.minutes(minutes)),
        targets: warmUp.map((fn) => new LambdaFunction(fn, { event: RuleTargetInput.fromObject(RELAY_WARM_UP_EVENT), retryAttempts: 0 })),
      });
    }
  }
}
