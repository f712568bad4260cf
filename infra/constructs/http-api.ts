/**
 * The HTTP API and its $default stage: JSON access logs to a log group with retention and
 * stage-wide throttling defaults. Manifest routes are added by each area's nested stack
 * (route-area.ts); authentication is done inside every function by the shared middleware (see nag-acknowledgements.ts).
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/**
 * One JSON object per request. No header, query string or body is logged: they may carry
 * credentials or cursors.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  extendedRequestId: '$context.extendedRequestId',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  requestTime: '$context.requestTime',
  requestTimeEpoch: '$context.requestTimeEpoch',
  httpMethod: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integrationStatus',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  error: '$context.error.message',
} as const;

export interface HttpApiProps {
  /** Steady-state requests per second across the stage. */
  readonly rateLimit?: number;
  readonly burstLimit?: number;
}

export class HttpApi extends Construct {
  readonly api: apigwv2.HttpApi;
  readonly stage: apigwv2.HttpStage;
  readonly accessLogs: logs.LogGroup;

  constructor(scope: Construct, id: string, props: HttpApiProps = {}) {
    super(scope, id);

    this.api = new apigwv2.HttpApi(this, 'Api', {
      description: 'Voice Agent Control API',
      createDefaultStage: false,
    });

    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.stage = new apigwv2.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.rateLimit ?? 200, burstLimit: props.burstLimit ?? 400 },
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
  }

  get url(): string {
    return this.stage.url;
  }

  /** The `$default` route: every request no other route matches. */
  addDefaultRoute(id: string, handler: lambda.IFunction): apigwv2.HttpRoute {
    return new apigwv2.HttpRoute(this, id, {
      httpApi: this.api,
      routeKey: apigwv2.HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration(`${id}Integration`, handler),
    });
  }
}

/** A Lambda proxy integration (payload 2.0) that API Gateway calls with an IAM role's credentials. */
export class RoleInvokedLambdaIntegration extends apigwv2.HttpRouteIntegration {
  constructor(
    id: string,
    private readonly handler: lambda.IFunction,
    private readonly role: iam.IRole,
  ) {
    super(id);
  }

  bind(_options: apigwv2.HttpRouteIntegrationBindOptions): apigwv2.HttpRouteIntegrationConfig {
    return {
      type: apigwv2.HttpIntegrationType.AWS_PROXY,
      uri: this.handler.functionArn,
      payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0,
      credentials: apigwv2.IntegrationCredentials.fromRole(this.role),
    };
  }
}
