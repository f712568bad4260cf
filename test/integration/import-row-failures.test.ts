/**
 * A row whose write is refused for its own sake is a rejected row with its reason; the
 * rest of the file imports and the job completes with counts that add up to the rows read
 * (docs/imports.md "Row failures"). DynamoDB Local and the emulator's S3, no mocks.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../../shared/db/client.js';
import { contactKeys } from '../../shared/db/keys.js';
import { isInfrastructureFault, rowRefusal } from '../../shared/imports/write-failures.js';
import { getContactRecord } from '../../shared/repositories/contacts.js';
import { getImportJob } from '../../shared/repositories/import-jobs.js';
import { csvText, importCsv, newImportTenant, testPhone } from '../support/imports.js';
import { useTestEnvironment } from '../support/index.js';

const env = useTestEnvironment({ queues: false });

const addsUp = (job: { rows_total: number; rows_accepted: number; rows_rejected: number; rows_skipped: number }) =>
  expect(job.rows_accepted + job.rows_rejected + job.rows_skipped).toBe(job.rows_total);

describe('a row DynamoDB refuses is rejected, never the job', () => {
  it('an update that would pass 400 KB rejects that row (item_too_large) inside a batch; every other row imports', async () => {
    const { tenantId } = await newImportTenant();
    const big = testPhone(500);
    const first = await importCsv(tenantId, { content: csvText(['Phone'], [[big]]), column_mapping: { Phone: 'phone_e164' } });
    expect(first.rows_accepted).toBe(1);
    // A contact already near the item limit (e.g. grown by earlier code): any sizeable update is refused by DynamoDB.
    const contactId = (await contactFor(tenantId, big))!.id;
    await db().send(
      new UpdateCommand({
        TableName: env.tableName,
        Key: contactKeys.contact(tenantId, contactId),
        UpdateExpression: 'SET legacy_notes = :n',
        ExpressionAttributeValues: { ':n': 'n'.repeat(385 * 1024) },
      }),
    );

    const rows = Array.from({ length: 30 }, (_, i) => (i === 12 ? [big, 'x'.repeat(30 * 1024)] : [testPhone(600 + i), `note ${i}`]));
    const job = await importCsv(tenantId, {
      content: csvText(['Phone', 'Note'], rows),
      column_mapping: { Phone: 'phone_e164', Note: 'attributes.note' },
      on_duplicate: 'update',
    });

    expect(job).toMatchObject({ status: 'completed', failure_reason: null, rows_total: 30, rows_accepted: 29, rows_rejected: 1, rows_skipped: 0 });
    expect(job.errors).toEqual([{ row: 13, line: 14, field: null, type: 'item_too_large', msg: expect.stringContaining('400 KB') }]);
    addsUp(job);
    for (let i = 0; i < 30; i++) if (i !== 12) expect(await contactFor(tenantId, testPhone(600 + i)), `row ${i + 1}`).toBeDefined();
    expect((await getImportJob(tenantId, job.id))!.status).toBe('completed');
  });

  it("a value the SDK cannot marshal (an 'attributes.constructor' cell) fails no batch and loses no row", async () => {
    const { tenantId } = await newImportTenant();
    const rows = Array.from({ length: 200 }, (_, i) => [testPhone(1000 + i), i === 57 ? 'Acme Corp' : '']);
    const job = await importCsv(tenantId, {
      content: csvText(['Phone', 'Maker'], rows),
      column_mapping: { Phone: 'phone_e164', Maker: 'attributes.constructor' },
    });

    expect(job).toMatchObject({ status: 'completed', failure_reason: null, rows_total: 200, rows_skipped: 0 });
    addsUp(job);
    // Either the client stores the key (a marshaller that converts such objects) or the row is refused alone.
    expect(job.rows_accepted).toBeGreaterThanOrEqual(199);
    if (job.rows_rejected === 1) expect(job.errors).toEqual([expect.objectContaining({ row: 58, type: 'row_unstorable', field: null })]);
    else expect((await contactFor(tenantId, testPhone(1057)))!.attributes).toEqual({ constructor: 'Acme Corp' });
  });
});

describe('write failure classification', () => {
  const items = [{ Put: { TableName: 't', Item: { pk: 'a', sk: 'b', attributes: { note: 'x' } } } }];
  const service = (name: string, status: number, extra: Record<string, unknown> = {}) =>
    Object.assign(new Error(name), { name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status }, ...extra });

  it('throttling, service, network and credential faults are infrastructure; no row is blamed', () => {
    for (const err of [
      service('ProvisionedThroughputExceededException', 400),
      service('ThrottlingException', 400),
      service('InternalServerError', 500),
      service('ResourceNotFoundException', 400),
      Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', $metadata: { attempts: 3 } }),
      service('TransactionCanceledException', 400, { CancellationReasons: [{ Code: 'None' }, { Code: 'ThrottlingError' }] }),
    ]) {
      expect(isInfrastructureFault(err), err.name).toBe(true);
      expect(rowRefusal(err, items), err.name).toBeUndefined();
    }
  });

  it("a ValidationException or a ValidationError cancellation is the row's own", () => {
    expect(rowRefusal(service('ValidationException', 400, { message: 'Item size has exceeded the maximum allowed size' }), items)).toMatchObject({
      type: 'item_too_large',
    });
    expect(rowRefusal(service('ValidationException', 400, { message: 'An AttributeValue may not contain an empty string' }), items)).toMatchObject({
      type: 'row_unstorable',
    });
    const cancelled = service('TransactionCanceledException', 400, {
      CancellationReasons: [{ Code: 'None' }, { Code: 'ValidationError', Message: 'Item size to update has exceeded the maximum allowed size' }],
    });
    expect(isInfrastructureFault(cancelled)).toBe(false);
    expect(rowRefusal(cancelled, items)).toMatchObject({ type: 'item_too_large' });
  });

  it('a plain Error is a row refusal only when the SDK marshaller really refuses the items', () => {
    expect(rowRefusal(new Error('a bug'), items)).toBeUndefined();
    const unmarshallable = [{ Put: { TableName: 't', Item: { pk: 'a', sk: 'b', n: Number.NaN } } }];
    expect(rowRefusal(new Error('Special numeric value NaN is not allowed'), unmarshallable)).toMatchObject({ type: 'row_unstorable', field: null });
    // A conditional failure or a domain error is not "unstorable".
    expect(rowRefusal(service('TransactionCanceledException', 400, { CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] }), items)).toBeUndefined();
    class Domain extends Error {}
    expect(rowRefusal(new Domain('x'), unmarshallable)).toBeUndefined();
  });
});

/** The contact a phone guard names. */
async function contactFor(tenantId: string, phone: string) {
  const guard = await db().send(new GetCommand({ TableName: env.tableName, Key: contactKeys.phone(tenantId, phone), ConsistentRead: true }));
  const id = guard.Item?.contact_id as string | undefined;
  return id ? getContactRecord(tenantId, id) : undefined;
}
