/**
 * What an operator is paged on, routed through one SNS topic (subscribe a pager or a mail
 * to it after deploy): every dead-letter queue holding a message, the HTTP API's 5xx rate,
 * Lambda errors and throttles per group of functions (a route area, the workers, the
 * scheduled jobs), the outbox relay's stream iterator age, and webhook events that failed
 * their whole retry schedule (a metric filter on the workers' log lines).
 *
 * The topic is encrypted with a key of its own: CloudWatch must be allowed to use the key
 * to publish, which the AWS-managed SNS key does not allow.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

const PERIOD = Duration.minutes(5);
/** CloudWatch alarms on metric math take at most 10 metrics: larger groups are alarmed in slices. */
const METRICS_PER_ALARM = 10;
/** Page when more than this share of API requests in 5 minutes answered 5xx (with at least MIN_REQUESTS). */
export const API_5XX_PERCENT = 5;
const MIN_REQUESTS = 20;
/** Lambda errors or throttles in 5 minutes, summed over a group, that page. */
export const FUNCTION_ERRORS_THRESHOLD = 5;
export const FUNCTION_THROTTLES_THRESHOLD = 1;
/** The outbox relay reads the table stream within a second; a minute behind means it is stuck. */
export const STREAM_ITERATOR_AGE_MS = 60_000;
export const WEBHOOK_FAILED_METRIC = { namespace: 'VoiceControl', name: 'WebhookEventsFailed' } as const;

export class Alarms extends Construct {
  readonly topic: sns.Topic;
  readonly key: kms.Key;
  private readonly action: actions.SnsAction;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.key = new kms.Key(this, 'TopicKey', {
      description: 'Encrypts the operator alarm topic',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // CloudWatch publishes alarm notifications to the encrypted topic.
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    this.topic = new sns.Topic(this, 'Topic', { displayName: 'Voice Control API alarms', masterKey: this.key, enforceSSL: true });
    this.action = new actions.SnsAction(this.topic);
  }

  private route(alarm: cloudwatch.Alarm): cloudwatch.Alarm {
    alarm.addAlarmAction(this.action);
    return alarm;
  }

  /** Any message in a dead-letter queue pages: it is work the platform gave up on. */
  deadLetterQueue(id: string, queue: sqs.IQueue): cloudwatch.Alarm {
    return this.route(
      new cloudwatch.Alarm(this, `${id}DlqNotEmpty`, {
        alarmDescription: `Dead-letter queue ${id} holds messages: work was given up on (inspect, fix, redrive)`,
        metric: queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /** The share of API requests answered 5xx. */
  apiServerErrors(errors: cloudwatch.IMetric, requests: cloudwatch.IMetric): cloudwatch.Alarm {
    return this.route(
      new cloudwatch.Alarm(this, 'Api5xxRate', {
        alarmDescription: `More than ${API_5XX_PERCENT}% of HTTP API requests answered 5xx over 5 minutes`,
        metric: new cloudwatch.MathExpression({
          expression: `IF(requests >= ${MIN_REQUESTS}, 100 * errors / requests, 0)`,
          usingMetrics: { errors, requests },
          period: PERIOD,
          label: '5xx %',
        }),
        threshold: API_5XX_PERCENT,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /**
   * Errors and throttles summed over a group of functions (one alarm of each per slice of
   * ten), made in `scope`: a route area's alarms live in its nested stack, beside its functions.
   */
  functions(scope: Construct, group: string, fns: readonly lambda.IFunction[]): cloudwatch.Alarm[] {
    const out: cloudwatch.Alarm[] = [];
    for (let i = 0; i < fns.length; i += METRICS_PER_ALARM) {
      const slice = fns.slice(i, i + METRICS_PER_ALARM);
      const suffix = fns.length > METRICS_PER_ALARM ? `${i / METRICS_PER_ALARM + 1}` : '';
      const summed = (kind: 'Errors' | 'Throttles') => {
        const usingMetrics = Object.fromEntries(
          slice.map((fn, j) => [
            `m${j}`,
            kind === 'Errors' ? fn.metricErrors({ period: PERIOD, statistic: 'Sum' }) : fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
          ]),
        );
        return new cloudwatch.MathExpression({
          expression: `SUM([${Object.keys(usingMetrics).join(',')}])`,
          usingMetrics,
          period: PERIOD,
          label: `${group} ${kind}`,
        });
      };
      for (const [kind, threshold] of [
        ['Errors', FUNCTION_ERRORS_THRESHOLD],
        ['Throttles', FUNCTION_THROTTLES_THRESHOLD],
      ] as const) {
        out.push(
          this.route(
            new cloudwatch.Alarm(scope, `${group}${kind}${suffix}`, {
              alarmDescription: `${group}${suffix ? ` (part ${suffix})` : ''}: Lambda ${kind.toLowerCase()} reached ${threshold} in 5 minutes`,
              metric: summed(kind),
              threshold,
              comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
              evaluationPeriods: 1,
              treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
            }),
          ),
        );
      }
    }
    return out;
  }

  /** A stream-triggered function falling behind the table stream. */
  streamIteratorAge(id: string, fn: lambda.IFunction): cloudwatch.Alarm {
    return this.route(
      new cloudwatch.Alarm(this, `${id}IteratorAge`, {
        alarmDescription: `${id} is more than ${STREAM_ITERATOR_AGE_MS / 1000} s behind the table stream`,
        metric: fn.metric('IteratorAge', { period: PERIOD, statistic: 'Maximum' }),
        threshold: STREAM_ITERATOR_AGE_MS,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  /** Webhook events that used up their retry schedule: the delivery worker logs each attempt with its delivery_status. */
  webhookEventsFailed(workerLogs: logs.ILogGroup): cloudwatch.Alarm {
    const filter = new logs.MetricFilter(this, 'WebhookFailedFilter', {
      logGroup: workerLogs,
      filterPattern: logs.FilterPattern.all(
        logs.FilterPattern.stringValue('$.message', '=', 'webhook attempt'),
        logs.FilterPattern.stringValue('$.delivery_status', '=', 'failed'),
      ),
      metricNamespace: WEBHOOK_FAILED_METRIC.namespace,
      metricName: WEBHOOK_FAILED_METRIC.name,
      metricValue: '1',
      defaultValue: 0,
    });
    return this.route(
      new cloudwatch.Alarm(this, 'WebhookEventsFailed', {
        alarmDescription: 'A webhook event failed every scheduled attempt (the tenant endpoint kept refusing it); it is in the webhook dead-letter queue',
        metric: filter.metric({ period: PERIOD, statistic: 'Sum' }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  }
}
