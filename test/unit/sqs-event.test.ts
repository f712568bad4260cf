import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { acknowledgedRecords, toSqsEvent, toSqsRecord } from '../../infra/local/sqs-event.js';

const arn = 'arn:aws:sqs:us-east-1:000000000000:call-dispatch';
const message = (id: string, body = `body-${id}`) => ({
  MessageId: id,
  ReceiptHandle: `rh-${id}`,
  Body: body,
  MD5OfBody: createHash('md5').update(body).digest('hex'),
  Attributes: { ApproximateReceiveCount: '2', SentTimestamp: '1700000000000', SenderId: '000000000000', ApproximateFirstReceiveTimestamp: '1700000000500' },
});

describe('SQS event records', () => {
  it('have the shape the Lambda event source mapping delivers', () => {
    const record = toSqsRecord(
      {
        ...message('m1'),
        MessageAttributes: {
          tenant: { DataType: 'String', StringValue: 'ten_1' },
          blob: { DataType: 'Binary', BinaryValue: new Uint8Array([1, 2, 3]) },
        },
      },
      arn,
      'us-east-1',
    );
    expect(record).toEqual({
      messageId: 'm1',
      receiptHandle: 'rh-m1',
      body: 'body-m1',
      attributes: { ApproximateReceiveCount: '2', SentTimestamp: '1700000000000', SenderId: '000000000000', ApproximateFirstReceiveTimestamp: '1700000000500' },
      messageAttributes: {
        tenant: { stringValue: 'ten_1', stringListValues: [], binaryListValues: [], dataType: 'String' },
        blob: { binaryValue: 'AQID', stringListValues: [], binaryListValues: [], dataType: 'Binary' },
      },
      md5OfBody: createHash('md5').update('body-m1').digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: arn,
      awsRegion: 'us-east-1',
    });
  });
});

describe('batch item failures', () => {
  const records = toSqsEvent([message('a'), message('b'), message('c')], arn, 'us-east-1').Records;
  const ids = (rs: { messageId: string }[]) => rs.map((r) => r.messageId);

  it('acknowledge everything on an empty or absent failure list', () => {
    expect(ids(acknowledgedRecords(records, undefined))).toEqual(['a', 'b', 'c']);
    expect(ids(acknowledgedRecords(records, {}))).toEqual(['a', 'b', 'c']);
    expect(ids(acknowledgedRecords(records, { batchItemFailures: [] }))).toEqual(['a', 'b', 'c']);
  });

  it('keep the failed records only', () => {
    expect(ids(acknowledgedRecords(records, { batchItemFailures: [{ itemIdentifier: 'b' }] }))).toEqual(['a', 'c']);
  });

  it('fail the whole batch on an identifier that names no record, as Lambda does', () => {
    expect(acknowledgedRecords(records, { batchItemFailures: [{ itemIdentifier: 'zzz' }] })).toEqual([]);
    expect(acknowledgedRecords(records, { batchItemFailures: [{ itemIdentifier: '' }] })).toEqual([]);
    expect(acknowledgedRecords(records, { batchItemFailures: [{}] })).toEqual([]);
    expect(acknowledgedRecords(records, 'nonsense')).toEqual([]);
  });
});
