/**
 * AppFunction: the one place that decides how a Lambda function of this project is
 * built and run (in the spirit of Powertools' FunctionWithLogGroup example). Every route
 * and worker function gets the same runtime, bundling, tracing and logging defaults, its
 * own role with nothing attached but write access to its own log group, and grants are
 * added by the caller per manifest entry.
 */
import { relative } from 'node:path';
import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { nodejsBundling } from '../bundling.js';
import { acknowledgeXRayWrite } from './nag-acknowledgements.js';

/** The newest Node.js runtime aws-cdk-lib knows (a test fails when a newer one appears). */
export const FUNCTION_RUNTIME = lambda.Runtime.NODEJS_24_X;

/** Powertools identity; the defaults in shared/observability.ts use the same values. */
export const POWERTOOLS_SERVICE_NAME = 'voice-control';
export const POWERTOOLS_METRICS_NAMESPACE = 'VoiceControl';

export const DEFAULT_MEMORY_MB = 512;
export const LOG_RETENTION = logs.RetentionDays.ONE_MONTH;

/**
 * A role whose grants land in ONE inline policy of the role itself (the role's `Policies`)
 * instead of a separate AWS::IAM::Policy resource per role. Same statements, same least
 * privilege; one CloudFormation resource fewer per function, which keeps the stack under
 * CloudFormation's 500-resource limit as routes are added (each route is otherwise 7
 * resources). The statements are resolved at synth, so grants made after construction
 * (table, queues, KMS, X-Ray, event sources) are all included.
 */
export class InlinePolicyRole extends iam.Role {
  private readonly inlineGrants: iam.PolicyDocument;

  constructor(scope: Construct, id: string, props: Omit<iam.RoleProps, 'inlinePolicies'>) {
    const grants = new iam.PolicyDocument();
    super(scope, id, { ...props, inlinePolicies: { grants } });
    this.inlineGrants = grants;
  }

  override addToPrincipalPolicy(statement: iam.PolicyStatement): iam.AddToPrincipalPolicyResult {
    this.inlineGrants.addStatements(statement);
    return { statementAdded: true, policyDependable: this };
  }
}

export interface AppFunctionProps {
  /** Absolute path of the handler's .ts file (it exports `handler`). */
  readonly entry: string;
  /** Repository root: where package-lock.json and tsconfig.json live. */
  readonly projectRoot: string;
  readonly description: string;
  readonly timeout: Duration;
  readonly memorySize?: number;
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * The log group to write to, shared by the functions of one area (SharedLogGroups); each
   * function's streams are named after it. Absent: a group of its own.
   */
  readonly logGroup?: logs.ILogGroup;
  /** Native modules shipped as node_modules instead of bundled (infra/bundling.ts PASSWORD_MODULES). */
  readonly nodeModules?: readonly string[];
  /** A route function's manifest entry: its bundle carries this entry instead of the manifest. */
  readonly route?: object;
}

/**
 * One log group per area (a manifest tag, the workers, the schedules) instead of one per
 * function: a log group is a CloudFormation resource, and one stack holds every function
 * under CloudFormation's 500-resource limit (docs/decisions/infra-and-security.md, "CloudFormation resource
 * budget"). Lambda names each stream after its function, so a function's logs stay apart.
 */
export class SharedLogGroups extends Construct {
  private readonly groups = new Map<string, logs.LogGroup>();

  get(area: string): logs.LogGroup {
    let group = this.groups.get(area);
    if (!group) {
      group = new logs.LogGroup(this, area.replace(/[^A-Za-z0-9]/g, ''), { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY });
      this.groups.set(area, group);
    }
    return group;
  }
}

export class AppFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.ILogGroup;

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);

    // An explicit log group (instead of Lambda's implicit one or the LogRetention custom
    // resource) keeps retention in the template and adds no helper function.
    this.logGroup = props.logGroup ?? new logs.LogGroup(this, 'Logs', { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY });

    // Own role, no AWS managed policy: the function may write to its own log group only.
    this.role = new InlinePolicyRole(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: props.description.slice(0, 1000),
    });
    this.logGroup.grantWrite(this.role);

    // Every option but these enum spellings comes from infra/bundling.ts, which the bundle bench builds with too.
    const handler = relative(props.projectRoot, props.entry).replace(/\.ts$/, '');
    const bundling = nodejsBundling({ handler, nodeModules: props.nodeModules, route: props.route });
    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: `${props.projectRoot}/package-lock.json`,
      description: props.description.slice(0, 256),
      runtime: FUNCTION_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? DEFAULT_MEMORY_MB,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: lambda.ApplicationLogLevel.INFO,
      systemLogLevelV2: lambda.SystemLogLevel.WARN,
      tracing: lambda.Tracing.ACTIVE,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE,
        ...props.environment,
      },
      bundling: {
        ...bundling,
        format: bundling.format === 'esm' ? OutputFormat.ESM : OutputFormat.CJS,
        logLevel: LogLevel.WARNING,
      },
    });
    acknowledgeXRayWrite(this.role);
  }

  addEnvironment(key: string, value: string): void {
    this.function.addEnvironment(key, value);
  }
}
