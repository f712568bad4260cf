/**
 * SQS messages → the event Lambda's SQS event source mapping delivers, and the mapping's
 * reading of a worker's answer (ReportBatchItemFailures).
 */
import type { Message } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';

export function toSqsRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const a = (message.Attributes ?? {}) as Record<string, string | undefined>;
  const attributes: SQSRecord['attributes'] = {
    ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
    SentTimestamp: a.SentTimestamp ?? String(Date.now()),
    SenderId: a.SenderId ?? 'AIDAIENQZJOLO23YVJ4VO',
    ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
  };
  for (const key of ['AWSTraceHeader', 'SequenceNumber', 'MessageGroupId', 'MessageDeduplicationId', 'DeadLetterQueueSourceArn'] as const) {
    if (a[key] !== undefined) attributes[key] = a[key];
  }
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, v] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      ...(v.StringValue !== undefined ? { stringValue: v.StringValue } : {}),
      ...(v.BinaryValue !== undefined ? { binaryValue: Buffer.from(v.BinaryValue).toString('base64') } : {}),
      stringListValues: v.StringListValues ?? [],
      binaryListValues: (v.BinaryListValues ?? []).map((b) => Buffer.from(b).toString('base64')),
      dataType: v.DataType ?? 'String',
    };
  }
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes,
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

export function toSqsEvent(messages: readonly Message[], queueArn: string, region: string): SQSEvent {
  return { Records: messages.map((m) => toSqsRecord(m, queueArn, region)) };
}

/**
 * The records Lambda deletes after a successful invocation: all except those listed in
 * `batchItemFailures`. As on AWS, a failure entry that names no record of the batch
 * (empty, null, unknown id) fails the whole batch, and so does a malformed response.
 */
export function acknowledgedRecords(records: readonly SQSRecord[], response: unknown): SQSRecord[] {
  if (response === undefined || response === null) return [...records];
  if (typeof response !== 'object') return [];
  const failures = (response as Partial<SQSBatchResponse>).batchItemFailures;
  if (failures === undefined || failures === null) return [...records];
  if (!Array.isArray(failures)) return [];
  const ids = new Set(records.map((r) => r.messageId));
  const failed = new Set<string>();
  for (const f of failures) {
    const id = (f as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !ids.has(id)) return [];
    failed.add(id);
  }
  return records.filter((r) => !failed.has(r.messageId));
}
