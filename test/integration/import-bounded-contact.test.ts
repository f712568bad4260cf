/**
 * on_duplicate=update, over and over on one phone: the contact item stays bounded (its
 * compact consent grants hold at most one per basis; every consent record stays its own
 * item) and the update path keeps working — also for a contact grown by earlier code.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../../shared/db/client.js';
import { contactKeys, contactPartition } from '../../shared/db/keys.js';
import { MAX_MERGED_ATTRIBUTES_BYTES } from '../../shared/imports/run-import.js';
import { getContactRecord, presentContact } from '../../shared/repositories/contacts.js';
import { csvText, importCsv, newImportTenant, testPhone } from '../support/imports.js';
import { useTestEnvironment } from '../support/index.js';

const env = useTestEnvironment({ queues: false });

async function contactIdFor(tenantId: string, phone: string): Promise<string> {
  const guard = await db().send(new GetCommand({ TableName: env.tableName, Key: contactKeys.phone(tenantId, phone), ConsistentRead: true }));
  return guard.Item!.contact_id as string;
}

/** The stored contact item's size, read raw (DynamoDB JSON as sent over the wire). */
async function rawItemBytes(tenantId: string, contactId: string): Promise<number> {
  const key = contactKeys.contact(tenantId, contactId);
  const out = await env.ddb.send(new GetItemCommand({ TableName: env.tableName, Key: { pk: { S: key.pk }, sk: { S: key.sk } }, ConsistentRead: true }));
  return Buffer.byteLength(JSON.stringify(out.Item), 'utf8');
}

async function consentCount(tenantId: string, contactId: string): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: env.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :c)',
        ExpressionAttributeValues: { ':pk': contactPartition(tenantId, contactId), ':c': contactKeys.consentsPrefix },
        Select: 'COUNT',
        ExclusiveStartKey: start,
      }),
    );
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return count;
}

const mapping = { Phone: 'phone_e164', Name: 'first_name', Note: 'attributes.note' };

describe('a contact updated by import after import stays bounded', () => {
  it('35 updates of one phone: the item does not grow, every consent is kept as its own record', async () => {
    const { tenantId } = await newImportTenant();
    const phone = testPhone(1);
    const first = await importCsv(tenantId, { content: csvText(['Phone', 'Name', 'Note'], [[phone, 'v0', 'n0']]), column_mapping: mapping });
    expect(first.rows_accepted).toBe(1);
    const id = await contactIdFor(tenantId, phone);
    const sizeAfterCreate = await rawItemBytes(tenantId, id);

    // One file, 30 rows of the same phone (run one after another, in file order), then 5 more imports.
    const rows = Array.from({ length: 30 }, (_, i) => [phone, `v${i + 1}`, `n${(i + 1) % 10}`]);
    const big = await importCsv(tenantId, { content: csvText(['Phone', 'Name', 'Note'], rows), column_mapping: mapping, on_duplicate: 'update' });
    expect(big).toMatchObject({ status: 'completed', rows_accepted: 30, rows_rejected: 0 });
    const sizes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const job = await importCsv(tenantId, {
        content: csvText(['Phone', 'Name', 'Note'], [[phone, `w${i}`, `n${i}`]]),
        column_mapping: mapping,
        on_duplicate: 'update',
      });
      expect(job).toMatchObject({ status: 'completed', rows_accepted: 1 });
      sizes.push(await rawItemBytes(tenantId, id));
    }
    // Bounded: the same size after 35 more consents as after 1 (the grant list holds one entry per basis).
    expect(Math.max(...sizes)).toBeLessThanOrEqual(sizeAfterCreate + 64);
    expect(new Set(sizes).size).toBe(1);
    const contact = (await getContactRecord(tenantId, id))!;
    expect(contact.consent_grants).toHaveLength(1);
    expect(contact).toMatchObject({ first_name: 'w4', attributes: { note: 'n4' } });
    expect(presentContact(contact, new Date()).best_consent_class).toBe('pewc');
    // Nothing lost for audit: every import row's consent is its own item in the contact's partition.
    expect(await consentCount(tenantId, id)).toBe(1 + 30 + 5);
  });

  it('a contact grown by earlier code (thousands of grants) is compacted by its next update, keeping the best class right', async () => {
    const { tenantId } = await newImportTenant();
    const phone = testPhone(2);
    await importCsv(tenantId, { content: csvText(['Phone'], [[phone]]), column_mapping: { Phone: 'phone_e164' } });
    const id = await contactIdFor(tenantId, phone);
    // As the old list_append left it: ~300 KB of grants; an expired pewc grant listed before a lasting one.
    const legacy = [
      { consent_id: 'cns_expired', basis: 'pewc', expires_at: '2020-01-01T00:00:00.000Z' },
      ...Array.from({ length: 3500 }, (_, i) => ({
        consent_id: `cns_${String(i).padStart(26, '0')}`,
        basis: i % 2 ? 'pewc' : 'ebr',
        expires_at: i % 2 ? null : '2099-01-01T00:00:00.000Z',
      })),
    ];
    await db().send(
      new UpdateCommand({
        TableName: env.tableName,
        Key: contactKeys.contact(tenantId, id),
        UpdateExpression: 'SET consent_grants = :g',
        ExpressionAttributeValues: { ':g': legacy },
      }),
    );
    const before = await rawItemBytes(tenantId, id);
    expect(before).toBeGreaterThan(250_000);

    const job = await importCsv(tenantId, {
      content: csvText(['Phone', 'Name'], [[phone, 'Updated']]),
      column_mapping: { Phone: 'phone_e164', Name: 'first_name' },
      on_duplicate: 'update',
      consent_attestation: { signer_name: 'S', signer_title: 'T', affirmation: 'A', consent_basis: 'transactional' },
    });
    expect(job).toMatchObject({ status: 'completed', rows_accepted: 1, rows_rejected: 0 });
    const contact = (await getContactRecord(tenantId, id))!;
    expect(await rawItemBytes(tenantId, id)).toBeLessThan(2_000);
    expect(contact.first_name).toBe('Updated');
    expect(contact.consent_grants.map((g) => [g.basis, g.expires_at]).sort()).toEqual([
      ['ebr', '2099-01-01T00:00:00.000Z'],
      ['pewc', null],
      ['transactional', null],
    ]);
    expect(presentContact(contact, new Date()).best_consent_class).toBe('pewc');
  });

  it('attributes merged over many imports are capped: the row that would pass the cap is rejected, the contact kept', async () => {
    const { tenantId } = await newImportTenant();
    const phone = testPhone(3);
    const cell = 'a'.repeat(60 * 1024);
    const run = (key: string) =>
      importCsv(tenantId, {
        content: csvText(['Phone', 'V'], [[phone, cell]]),
        column_mapping: { Phone: 'phone_e164', V: `attributes.${key}` },
        on_duplicate: 'update',
      });
    expect(await run('k1')).toMatchObject({ status: 'completed', rows_accepted: 1 });
    expect(await run('k2')).toMatchObject({ status: 'completed', rows_accepted: 1 });
    const third = await run('k3');
    expect(MAX_MERGED_ATTRIBUTES_BYTES).toBeLessThan(3 * cell.length);
    expect(third).toMatchObject({
      status: 'completed',
      rows_accepted: 0,
      rows_rejected: 1,
      errors: [expect.objectContaining({ row: 1, field: 'attributes', type: 'attributes_too_large' })],
    });
    expect(Object.keys((await getContactRecord(tenantId, await contactIdFor(tenantId, phone)))!.attributes ?? {}).sort()).toEqual(['k1', 'k2']);
    // Overwriting a key already there does not accumulate: still accepted.
    expect(await run('k2')).toMatchObject({ status: 'completed', rows_accepted: 1 });
  });
});
