/**
 * The one DynamoDB table, built from shared/db/table-definition.ts (the same object the
 * local runtime uses), so key names, GSIs and the TTL attribute cannot drift.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { tableDefinition } from '../../shared/db/table-definition.js';

interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
}

const stringKey = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });

export class DataTable extends Construct {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: stringKey(tableDefinition.partitionKey),
      sortKey: stringKey(tableDefinition.sortKey),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: tableDefinition.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      // Tenant data: never deleted by a stack operation or by a stray DeleteTable call.
      deletionProtection: true,
      // Keys only: the outbox relay learns which shard got a marker (shared/workers.ts tableStream).
      stream: dynamodb.StreamViewType.KEYS_ONLY,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const indexes: readonly IndexDefinition[] = tableDefinition.globalSecondaryIndexes;
    for (const index of indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: stringKey(index.partitionKey),
        ...(index.sortKey ? { sortKey: stringKey(index.sortKey) } : {}),
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
  }
}
