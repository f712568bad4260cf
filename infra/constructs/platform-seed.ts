/**
 * The post-deploy hook that seeds platform data and templates: a custom resource whose
 * service token is a small function of our own (functions/deploy/seed-platform.ts), so no
 * CDK provider framework, helper function or AWS managed policy is added. CloudFormation
 * runs it once the table exists (the table name is one of its properties) and again
 * whenever the seed content's hash changes (its other property); an unchanged deploy does
 * not invoke it. The function may get, put and update items of the table's platform
 * partitions only (`dynamodb:LeadingKeys` PLATFORM / PLATFORM#…), nothing else.
 */
import { join } from 'node:path';
import { CustomResource, Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { seedContentHash } from '../../shared/seed/platform.js';
import { AppFunction } from './app-function.js';

/** What the seed does to the table (shared/seed/platform.ts, shared/repositories/agent-templates.ts seedTemplate). */
export const SEED_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;
/** The partitions the seed writes: `PLATFORM` (meta) and `PLATFORM#…` (templates and their versions). */
export const SEED_LEADING_KEYS = ['PLATFORM', 'PLATFORM#*'] as const;

export interface PlatformSeedProps {
  readonly table: dynamodb.Table;
  readonly projectRoot: string;
}

export class PlatformSeed extends Construct {
  readonly fn: AppFunction;
  readonly resource: CustomResource;

  constructor(scope: Construct, id: string, props: PlatformSeedProps) {
    super(scope, id);
    this.fn = new AppFunction(this, 'Function', {
      entry: join(props.projectRoot, 'functions/deploy/seed-platform.ts'),
      projectRoot: props.projectRoot,
      description: 'Post-deploy hook: seeds platform data and agent templates (idempotent)',
      timeout: Duration.minutes(2),
      environment: { TABLE_NAME: props.table.tableName },
    });
    this.fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: [...SEED_TABLE_ACTIONS],
        resources: [props.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...SEED_LEADING_KEYS] } },
      }),
    );
    this.resource = new CustomResource(this, 'Run', {
      resourceType: 'Custom::PlatformSeed',
      serviceToken: this.fn.function.functionArn,
      // A handler that never answers fails the deploy after this, not after CloudFormation's default hour.
      serviceTimeout: Duration.minutes(5),
      properties: { TableName: props.table.tableName, SeedContentHash: seedContentHash() },
    });
  }
}
