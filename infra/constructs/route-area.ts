/**
 * RouteArea: the route functions of one area (a manifest tag) in a nested stack of their
 * own, with the area's log group, the role API Gateway assumes to invoke them, and their
 * HTTP API routes and integrations. CloudFormation allows 500 resources per stack and a
 * route costs four (function, role, route, integration): one stack for every route stopped
 * fitting at about a hundred routes. A nested stack per area keeps each template small and
 * the parent at one resource per area (docs/decisions/infra-and-security.md, "CloudFormation resource budget").
 * Shared resources (table, queues, key, secret, API) stay in the parent; CDK passes the
 * references in as nested stack parameters.
 */
import { NestedStack, RemovalPolicy } from 'aws-cdk-lib';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { HttpMethod } from '../../shared/routes.js';
import { InlinePolicyRole, LOG_RETENTION } from './app-function.js';
import { RoleInvokedLambdaIntegration } from './http-api.js';

export interface RouteAreaProps {
  /** The manifest tag, e.g. "Contacts". */
  readonly area: string;
  readonly api: apigwv2.IHttpApi;
}

/** A construct id from a tag ("Carrier callbacks" → "CarrierCallbacks"). */
export const areaId = (area: string): string => area.replace(/[^A-Za-z0-9]/g, '');

export class RouteArea extends NestedStack {
  readonly area: string;
  /** Shared by the area's functions; Lambda names each stream after its function. */
  readonly logGroup: logs.LogGroup;
  /** API Gateway assumes it to invoke exactly this area's route functions. */
  readonly invokeRole: iam.Role;
  private readonly api: apigwv2.IHttpApi;
  /** The area's route functions (its errors and throttles are alarmed together). */
  readonly functions: lambda.IFunction[] = [];

  constructor(scope: Construct, id: string, props: RouteAreaProps) {
    super(scope, id, { description: `Voice Control API: the ${props.area} routes` });
    this.area = props.area;
    this.api = props.api;
    this.logGroup = new logs.LogGroup(this, 'Logs', { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY });
    this.invokeRole = new InlinePolicyRole(this, 'InvokeRole', {
      assumedBy: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      description: `API Gateway invokes the ${props.area} route functions`.slice(0, 1000),
    });
  }

  /**
   * A route to a function, invoked through the area's role (CredentialsArn) instead of a
   * resource-based permission per function: the same least privilege, one resource fewer.
   */
  addLambdaRoute(id: string, method: HttpMethod, path: string, handler: lambda.IFunction): apigwv2.HttpRoute {
    this.invokeRole.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [handler.functionArn] }));
    this.functions.push(handler);
    return new apigwv2.HttpRoute(this, `${id}Route`, {
      httpApi: this.api,
      routeKey: apigwv2.HttpRouteKey.with(path, apigwv2.HttpMethod[method]),
      integration: new RoleInvokedLambdaIntegration(`${id}Integration`, handler, this.invokeRole),
    });
  }
}
