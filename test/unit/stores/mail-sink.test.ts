import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { newestSinkMail, putSinkMail } from '../../../shared/repositories/mail-sink.js';
import { putPlatformRecordIfAbsent } from '../../../shared/repositories/platform-records.js';
import { conditionFailed, ddb, inputsOf } from '../../support/document-client-mock.js';

beforeEach(() => ddb.reset());

describe('mail-sink store', () => {
  it('keeps a mail under its recipient, sorted by send time, with its ttl', async () => {
    ddb.on(PutCommand).resolves({});
    await putSinkMail('abc', { id: 'mail_1', sent_at: '2026-01-01T00:00:00.000Z', subject: 's' }, 99);
    expect(inputsOf(PutCommand)[0]!.Item).toMatchObject({ sk: '2026-01-01T00:00:00.000Z#mail_1', type: 'sink_mail', subject: 's', ttl: 99 });
    expect(inputsOf(PutCommand)[0]!.Item.pk).toContain('abc');
  });

  it('reads the newest mail: one item, newest first, strongly consistent', async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ id: 'mail_2' }] });
    expect(await newestSinkMail('abc')).toEqual({ id: 'mail_2' });
    expect(inputsOf(QueryCommand)[0]).toMatchObject({ ScanIndexForward: false, Limit: 1, ConsistentRead: true });
  });
});

describe('platform-records store', () => {
  it('writes a record only when absent and says whether it did', async () => {
    ddb.on(PutCommand).resolvesOnce({}).rejectsOnce(conditionFailed());
    expect(await putPlatformRecordIfAbsent({ pk: 'PLATFORM', sk: 'META' })).toBe(true);
    expect(await putPlatformRecordIfAbsent({ pk: 'PLATFORM', sk: 'META' })).toBe(false);
    expect(inputsOf(PutCommand)[0]!.ConditionExpression).toBe('attribute_not_exists(pk)');
  });
});
