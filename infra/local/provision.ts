/**
 * Creates the table, queues and bucket the local runtime needs, from the same shared
 * definitions the CDK stack uses. Every step is idempotent: run it on every start.
 */
import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  type GlobalSecondaryIndex,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, GetQueueUrlCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { tableDefinition } from '../../shared/db/table-definition.js';
import { dlqName, type QueueName, queues } from '../../shared/queues/definitions.js';

export const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export function localDynamoClient(endpoint: string, region = 'us-east-1'): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region, credentials: localCredentials });
}

export function localSqsClient(endpoint: string, region = 'us-east-1'): SQSClient {
  return new SQSClient({ endpoint, region, credentials: localCredentials });
}

/** `*.localhost` does not resolve everywhere, so local S3 must use path-style URLs. */
export function localS3Client(endpoint: string, region = 'us-east-1'): S3Client {
  return new S3Client({ endpoint, region, credentials: localCredentials, forcePathStyle: true });
}

// ---------------------------------------------------------------------------------------
// Table
// ---------------------------------------------------------------------------------------

interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
}

const indexes: readonly IndexDefinition[] = tableDefinition.globalSecondaryIndexes;

/** All key attributes are strings in this design (pk/sk and the overloaded gsi keys). */
const attr = (name: string): AttributeDefinition => ({ AttributeName: name, AttributeType: 'S' });

function gsi(def: IndexDefinition): GlobalSecondaryIndex {
  return {
    IndexName: def.indexName,
    KeySchema: [{ AttributeName: def.partitionKey, KeyType: 'HASH' }, ...(def.sortKey ? [{ AttributeName: def.sortKey, KeyType: 'RANGE' as const }] : [])],
    Projection: { ProjectionType: 'ALL' },
  };
}

function attributeDefinitions(defs: readonly IndexDefinition[]): AttributeDefinition[] {
  const names = new Set<string>([tableDefinition.partitionKey, tableDefinition.sortKey]);
  for (const d of defs) {
    names.add(d.partitionKey);
    if (d.sortKey) names.add(d.sortKey);
  }
  return [...names].map(attr);
}

/**
 * Creates the table (keys, every GSI, TTL) or brings an existing one up to date: GSIs
 * added to the definition since the data dir was created are added, TTL is enabled.
 */
export async function provisionTable(client: DynamoDBClient, tableName: string): Promise<void> {
  let existing: string[] | undefined;
  try {
    const out = await client.send(new DescribeTableCommand({ TableName: tableName }));
    existing = (out.Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName!);
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException)) throw err;
  }

  if (!existing) {
    try {
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: attributeDefinitions(indexes),
          KeySchema: [
            { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
            { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
          ],
          ...(indexes.length ? { GlobalSecondaryIndexes: indexes.map(gsi) } : {}),
        }),
      );
    } catch (err) {
      if (!(err instanceof ResourceInUseException)) throw err; // created concurrently: fine
    }
    await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 1, maxDelay: 1 }, { TableName: tableName });
  } else {
    for (const def of indexes.filter((d) => !existing!.includes(d.indexName))) {
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: attributeDefinitions([def]),
          GlobalSecondaryIndexUpdates: [{ Create: gsi(def) }],
        }),
      );
    }
  }

  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  const status = ttl.TimeToLiveDescription?.TimeToLiveStatus;
  if (status !== 'ENABLED' && status !== 'ENABLING') {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
      }),
    );
  }
}

// ---------------------------------------------------------------------------------------
// Queues
// ---------------------------------------------------------------------------------------

export interface ProvisionedQueue {
  readonly name: string;
  readonly url: string;
  readonly arn: string;
  readonly dlqName: string;
  readonly dlqUrl: string;
  readonly dlqArn: string;
  /** The environment variable the application reads the queue URL from. */
  readonly envVar: string;
}

export type ProvisionedQueues = Record<QueueName, ProvisionedQueue>;

/**
 * Creates every queue from shared/queues/definitions.ts with its DLQ and redrive policy.
 * `namePrefix` keeps the queues of parallel test files apart on one shared emulator.
 */
export async function provisionQueues(client: SQSClient, opts: { namePrefix?: string } = {}): Promise<ProvisionedQueues> {
  const prefix = opts.namePrefix ?? '';
  const out = {} as Record<QueueName, ProvisionedQueue>;
  for (const key of Object.keys(queues) as QueueName[]) {
    const def = queues[key];
    const dlq = await ensureQueue(client, `${prefix}${dlqName(key)}`, {
      MessageRetentionPeriod: String(def.dlqRetentionDays * 86_400),
    });
    const main = await ensureQueue(client, `${prefix}${def.name}`, {
      VisibilityTimeout: String(def.visibilityTimeoutSeconds),
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: def.maxReceiveCount }),
    });
    out[key] = {
      name: `${prefix}${def.name}`,
      url: main.url,
      arn: main.arn,
      dlqName: `${prefix}${dlqName(key)}`,
      dlqUrl: dlq.url,
      dlqArn: dlq.arn,
      envVar: def.envVar,
    };
  }
  return out;
}

async function ensureQueue(client: SQSClient, name: string, attributes: Record<string, string>): Promise<{ url: string; arn: string }> {
  let url: string;
  try {
    url = (await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }))).QueueUrl!;
  } catch (err) {
    // Exists with other attributes (the definitions changed): converge instead of failing.
    if ((err as { name?: string }).name !== 'QueueNameExists' && (err as { name?: string }).name !== 'QueueAlreadyExists') {
      throw err;
    }
    url = (await client.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl!;
    await client.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: attributes }));
  }
  const attrs = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  return { url, arn: attrs.Attributes!.QueueArn! };
}

// ---------------------------------------------------------------------------------------
// Bucket
// ---------------------------------------------------------------------------------------

export async function provisionBucket(client: S3Client, bucket: string): Promise<void> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
    return;
  } catch {
    /* absent: create it */
  }
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    const name = (err as { name?: string }).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw err;
  }
}
