/**
 * Every cdk-nag (AwsSolutions) acknowledgement in the project, with its reason. Each one is
 * applied to the narrowest construct that produces the finding, and IAM5 findings are
 * acknowledged per finding (the exact wildcard resource), never per rule. Nothing is
 * acknowledged at app or stack level; test/infra checks that.
 */
import { type CfnElement, Names, Stack, Validations } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import type { AuthMode } from '../../shared/routes.js';

/**
 * The IAM5 finding id for a wildcard on `<resource>.Arn` + suffix, as cdk-nag prints it for
 * the grantee's stack: `<Logical.Arn>` in the resource's own stack; in a nested stack (a route
 * area) the ARN arrives as the parameter CDK names `reference-to-<node unique id>Arn`.
 */
function arnWildcardFinding(grantee: IConstruct, resource: { node: { defaultChild?: unknown } }, suffix: string): string {
  const cfn = resource.node.defaultChild as CfnElement;
  const owner = Stack.of(cfn);
  const arn = Stack.of(grantee) === owner ? `${owner.getLogicalId(cfn)}.Arn` : `reference-to-${Names.nodeUniqueId(cfn.node)}Arn`.replace(/[^A-Za-z0-9]/g, '');
  return `AwsSolutions-IAM5[Resource::<${arn}>${suffix}]`;
}

/** Lambda active tracing: the function's role gets xray:PutTraceSegments/PutTelemetryRecords on "*". */
export function acknowledgeXRayWrite(role: iam.IRole): void {
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'Added by Lambda active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support ' +
      'resource-level permissions, so AWS requires Resource "*". These are write-only telemetry actions; ' +
      'no other statement of this role uses "*" (asserted by test/infra).',
  });
}

/**
 * A table-stream trigger (the outbox relay): besides X-Ray, the role holds dynamodb:ListStreams,
 * which has no resource-level form (IAM's service reference), so it is granted on "*". The
 * stream's read actions (DescribeStream, GetRecords, GetShardIterator) name the stream ARN.
 */
export function acknowledgeStreamTrigger(role: iam.IRole): void {
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'Two actions without resource-level permissions, so AWS requires Resource "*": the X-Ray telemetry writes of ' +
      'Lambda active tracing, and dynamodb:ListStreams, which the Lambda service needs to read the table stream that ' +
      'triggers this function (the stream reads themselves are scoped to the stream ARN). Asserted by test/infra.',
  });
}

/** Table grants (grantReadData / grantReadWriteData) cover the table's GSIs as <arn>/index/*. */
export function acknowledgeTableIndexes(role: iam.IRole, table: dynamodb.Table): void {
  Validations.of(role).acknowledge({
    id: arnWildcardFinding(role, table, '/index/*'),
    reason:
      "The wildcard only spans the global secondary indexes of this function's own table (added by the CDK " +
      'table grant, same actions as on the table itself). Queries on any GSI of the single-table design must ' +
      'work without redeploying IAM when an index is added; no other table or action is covered.',
  });
}

/** Object-level grant on the import bucket: <bucket arn>/imports/* with explicit s3:GetObject[/PutObject]. */
export function acknowledgeBucketObjects(role: iam.IRole, bucket: s3.Bucket, objectsPattern: string): void {
  Validations.of(role).acknowledge({
    id: arnWildcardFinding(role, bucket, `/${objectsPattern}`),
    reason:
      'Import evidence objects are keyed imports/<tenant_id>/<import_id>.csv and created at run time, so they ' +
      'cannot be enumerated in the policy. The statement is limited to the imports/ prefix of this one bucket ' +
      'and names explicit object actions (s3:GetObject, plus s3:PutObject for writers; no List, no Delete).',
  });
}

/**
 * HTTP API routes have no API Gateway authorizer by design (APIG4). Public operational
 * routes are meant to be anonymous; bearer routes authenticate inside the function.
 */
export function acknowledgeRouteAuthorization(route: apigwv2.HttpRoute, auth: AuthMode): void {
  const reason =
    auth === 'sandbox_basic'
      ? "The sandbox carrier speaks Twilio's REST API, whose clients authenticate with HTTP Basic (account SID and auth " +
        "token); the function checks both against the sandbox account's sealed token in constant time before any data " +
        "is touched and answers Twilio's 401 (code 20003) otherwise. An API Gateway authorizer cannot speak that scheme."
      : auth === 'twilio_signature'
        ? 'Carrier callbacks are authenticated as Twilio defines: X-Twilio-Signature, HMAC-SHA1 under the auth token of the ' +
          'account that owns the called number, over the configured public URL and the posted parameters. The token to ' +
          'check against depends on the request, so the function checks it (constant time) before anything is written; ' +
          'a missing or wrong signature is a 403.'
        : auth === 'stream_token'
          ? 'The voice runtime authenticates with the signed Stream token our TwiML handed to the carrier (HMAC-SHA256 under ' +
            'a key derived from the application secret, bound to one tenant and one call, with an expiry). The function ' +
            'verifies it (constant time) against the call named by the path before anything is read or written; none is a ' +
            "401, any other credential (another call's token, an expired one, a tenant API key) a 403."
          : auth === 'stripe_signature'
            ? 'The payment provider posts its webhooks signed as Stripe defines: Stripe-Signature, HMAC-SHA256 over the ' +
              'timestamp and the exact body under the webhook endpoint secret (an application secret), with a 5-minute ' +
              'tolerance. The function verifies it with the stripe library before anything is read or written; a bad ' +
              'signature is a 400. An API Gateway authorizer cannot see the body it must verify.'
            : auth === 'none'
              ? 'Public by design: an unauthenticated operational endpoint (liveness, readiness, the OpenAPI document, or the ' +
                '$default fallback that answers unknown paths with a JSON 404/405) ' +
                'that returns no tenant data. Abuse is bounded by stage throttling.'
              : 'Authenticated inside the function, before any data is touched, by the shared middleware: the bearer API ' +
                'key is hashed with HMAC-SHA256 under a secret pepper and compared in constant time (timingSafeEqual) with ' +
                'the stored hash, read with a strongly consistent GetItem on every request. This gives immediate revocation ' +
                '(no authorizer result cache), uniform JSON 401 bodies and no extra invocation per request; every ' +
                'authenticated manifest route is walked with missing and bad credentials by test/e2e/auth-walk.test.ts.';
  Validations.of(route).acknowledge({ id: 'AwsSolutions-APIG4', reason });
}

/** The application secret and its generation seeds (SMG4: no automatic rotation). */
export function acknowledgeSecretRotation(secret: secretsmanager.Secret, role: 'app' | 'seed'): void {
  const reason =
    role === 'app'
      ? 'Holds the API key pepper and the cursor signing key. API keys are stored only as HMAC(pepper, secret); ' +
        'rotating the pepper automatically would make every issued API key unverifiable until each tenant is ' +
        're-keyed, and rotating the cursor key invalidates every outstanding page cursor. Rotation is therefore ' +
        'a planned operator procedure, not a scheduled Lambda rotation.'
      : 'Generation seed for one field of the application secret (CloudFormation composes the application secret ' +
        'from it by dynamic reference at deploy time). No function can read it; it has no independent lifetime ' +
        'to rotate, and rotating it alone would change nothing the application uses.';
  Validations.of(secret).acknowledge({ id: 'AwsSolutions-SMG4', reason });
}

/** The voice runtime's WebSocket routes (APIG4: no API Gateway authorizer). */
export function acknowledgeRelayRoute(route: apigwv2.WebSocketRoute, name: 'connect' | 'default' | 'disconnect'): void {
  const reason =
    name === 'connect'
      ? 'Twilio ConversationRelay cannot present an authorizer credential; it opens the URL our TwiML gave it. The ' +
        '$connect function verifies the signed Stream token in that URL (HMAC-SHA256, one tenant and call, an expiry) ' +
        "and, when sent, X-Twilio-Signature over the exact URL under the call's carrier account token, before " +
        'anything is written; a refusal is a 401/403 and no connection exists.'
      : 'API Gateway reaches this route only on a connection its $connect function admitted (authorization happens ' +
        'once, at $connect, for WebSocket APIs); the function acts only for the call that connection was admitted for.';
  Validations.of(route).acknowledge({ id: 'AwsSolutions-APIG4', reason });
}

/** ManageConnections on this WebSocket API's own @connections (connection ids are minted at run time). */
/** The voice runtime's $default reads LLM provider keys by name: the `llm/*` secrets of this account and region. */
export function acknowledgeLlmSecrets(role: iam.IRole): void {
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:llm/*]',
    reason:
      'secretsmanager:GetSecretValue on the llm/ secrets only: LLM provider API keys are created by the operator ' +
      '(llm/openai, llm/anthropic, an LLM_MODELS entry names its own, checked at synth to be under llm/), after ' +
      'this stack, and Secrets Manager appends a random suffix to every secret ARN, so they cannot be listed exactly.',
  });
}

export function acknowledgeRelayConnections(role: iam.IRole, api: apigwv2.WebSocketApi): void {
  const cfn = api.node.defaultChild as CfnElement;
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${Stack.of(cfn).getLogicalId(cfn)}>/*/*/@connections/*]`,
    reason:
      'execute-api:ManageConnections (PostToConnection, GetConnection, DeleteConnection) on <this API>/*/*/@connections/*: ' +
      'connection ids are minted by API Gateway per socket, so they cannot be enumerated; the grant names this one ' +
      'WebSocket API and only the @connections management path.',
  });
}

/** A stream mapping's on-failure destination is itself a dead-letter queue (alarmed when not empty). */
export function acknowledgeStreamFailureQueue(queue: sqs.IQueue): void {
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      'The on-failure destination of a table-stream mapping: it receives the metadata of stream batches the function gave up on, so it is the dead-letter queue (14-day retention, alarmed when it holds a message); a DLQ of a DLQ would only hide them.',
  });
}
