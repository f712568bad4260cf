/**
 * The SQS work queues, built from shared/queues/definitions.ts (the same object the local
 * emulator uses). Every queue has its own dead-letter queue; both refuse non-TLS access
 * and are encrypted with SQS-managed keys.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type QueueName, queues } from '../../shared/queues/definitions.js';

export interface WorkQueue {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
}

export const queueNames = Object.keys(queues) as QueueName[];

/** Main queues keep messages for 4 days (the SQS default). */
const MAIN_QUEUE_RETENTION = Duration.days(4);
/** A dead-letter queue keeps messages 14 days (SQS's most): time to be paged, diagnose and redrive. */
export const DLQ_RETENTION = Duration.days(14);

export class WorkQueues extends Construct {
  private readonly byName: Record<QueueName, WorkQueue>;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    const build = (name: QueueName): WorkQueue => {
      const def = queues[name];
      const deadLetterQueue = new sqs.Queue(this, `${name}Dlq`, {
        retentionPeriod: Duration.days(def.dlqRetentionDays),
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      const queue = new sqs.Queue(this, name, {
        visibilityTimeout: Duration.seconds(def.visibilityTimeoutSeconds),
        retentionPeriod: MAIN_QUEUE_RETENTION,
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: def.maxReceiveCount },
        removalPolicy: RemovalPolicy.DESTROY,
      });
      return { queue, deadLetterQueue };
    };

    this.byName = Object.fromEntries(queueNames.map((name) => [name, build(name)])) as Record<QueueName, WorkQueue>;
  }

  get(name: QueueName): WorkQueue {
    return this.byName[name];
  }

  all(): [QueueName, WorkQueue][] {
    return queueNames.map((name) => [name, this.byName[name]]);
  }
}
