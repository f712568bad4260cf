/**
 * The import target do_not_call: a true row suppresses its number in the row's own
 * transaction (source "import", source_id the import), every imported contact's
 * do_not_call agrees with the suppression list, and false never lifts anything.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../../shared/db/client.js';
import { contactKeys } from '../../shared/db/keys.js';
import { getContactRecord } from '../../shared/repositories/contacts.js';
import { addSuppression, getActiveSuppression, liftSuppression, listSuppressions } from '../../shared/repositories/suppressions.js';
import { csvText, importCsv, newImportTenant, testPhone } from '../support/imports.js';
import { useTestEnvironment } from '../support/index.js';

const env = useTestEnvironment({ queues: false });

async function contactOf(tenantId: string, phone: string) {
  const guard = await db().send(new GetCommand({ TableName: env.tableName, Key: contactKeys.phone(tenantId, phone), ConsistentRead: true }));
  return guard.Item ? getContactRecord(tenantId, guard.Item.contact_id as string) : undefined;
}
const entries = async (tenantId: string) => (await listSuppressions(tenantId, { limit: 200, filters: [] })).data;
const mapping = { Phone: 'phone_e164', DNC: 'do_not_call' };

describe('importing a do_not_call column', () => {
  it('suppresses true rows in their own transaction, keeps false rows as the list says, and rejects other values', async () => {
    const { tenantId } = await newImportTenant();
    const [pre, alsoPre] = [testPhone(900), testPhone(901)];
    const manual = await addSuppression(tenantId, { phone_e164: pre, reason: 'opt_out', source: 'api', source_id: 'key_test' }, new Date());
    await addSuppression(tenantId, { phone_e164: alsoPre, reason: 'complaint', source: 'api', source_id: 'key_test' }, new Date());
    const p = (n: number) => testPhone(n);
    const job = await importCsv(tenantId, {
      column_mapping: mapping,
      on_duplicate: 'update',
      content: csvText(
        ['Phone', 'DNC'],
        [
          [p(1), 'yes'], // unique phones: written ten to a transaction
          [p(2), 'No'],
          [p(3), ''],
          [pre, ''], // already suppressed: do_not_call true, no second entry
          [alsoPre, '0'], // false lifts nothing
          [p(4), 'maybe'],
          [p(5), 'TRUE'], // one phone twice: rows one by one, in file order
          [p(5), '1'],
        ],
      ),
    });
    expect(job).toMatchObject({ status: 'completed', rows_total: 8, rows_accepted: 7, rows_rejected: 1, rows_skipped: 0 });
    expect(job.errors).toEqual([
      { row: 6, line: 7, field: 'do_not_call', type: 'bool_parsing', msg: "do_not_call must be true/false, yes/no or 1/0, not 'maybe'" },
    ]);

    const flags = Object.fromEntries(
      await Promise.all([p(1), p(2), p(3), pre, alsoPre, p(5)].map(async (n) => [n, (await contactOf(tenantId, n))!.do_not_call])),
    );
    expect(flags).toEqual({ [p(1)]: true, [p(2)]: false, [p(3)]: false, [pre]: true, [alsoPre]: true, [p(5)]: true });
    expect(await contactOf(tenantId, p(4))).toBeUndefined();

    const byImport = (await entries(tenantId)).filter((e) => e.source === 'import');
    expect(byImport.map((e) => e.phone_e164).sort()).toEqual([p(1), p(5)].sort());
    for (const e of byImport) expect(e).toMatchObject({ status: 'active', reason: 'manual', source_id: job.id, note: expect.stringContaining(job.id) });
    expect((await getActiveSuppression(tenantId, pre))!.id).toBe(manual.id);
    expect(await getActiveSuppression(tenantId, p(2))).toBeUndefined();
  });

  it('on_duplicate=update suppresses an existing contact; skip writes nothing; a later lift clears do_not_call', async () => {
    const { tenantId } = await newImportTenant();
    const [a, b] = [testPhone(10), testPhone(11)];
    await importCsv(tenantId, {
      column_mapping: mapping,
      content: csvText(
        ['Phone', 'DNC'],
        [
          [a, 'false'],
          [b, 'false'],
        ],
      ),
    });
    const skipped = await importCsv(tenantId, { column_mapping: mapping, on_duplicate: 'skip', content: csvText(['Phone', 'DNC'], [[b, 'true']]) });
    expect(skipped).toMatchObject({ rows_skipped: 1 });
    expect((await contactOf(tenantId, b))!.do_not_call).toBe(false);

    const before = (await contactOf(tenantId, a))!;
    const updated = await importCsv(tenantId, { column_mapping: mapping, on_duplicate: 'update', content: csvText(['Phone', 'DNC'], [[a, '1']]) });
    expect(updated).toMatchObject({ status: 'completed', rows_accepted: 1 });
    const after = (await contactOf(tenantId, a))!;
    expect(after.do_not_call).toBe(true);
    expect(after.updated_at > before.updated_at).toBe(true);
    expect(await getActiveSuppression(tenantId, a)).toMatchObject({ source: 'import', source_id: updated.id });
    expect(await getActiveSuppression(tenantId, b)).toBeUndefined();

    await liftSuppression(tenantId, a, { note: 'imported by mistake', by: 'key_test' }, new Date());
    expect((await contactOf(tenantId, a))!.do_not_call).toBe(false);
    // Importing the flag again suppresses again: a new entry beside the lifted one.
    await importCsv(tenantId, { column_mapping: mapping, on_duplicate: 'update', content: csvText(['Phone', 'DNC'], [[a, 'yes']]) });
    expect((await contactOf(tenantId, a))!.do_not_call).toBe(true);
    expect((await entries(tenantId)).filter((e) => e.phone_e164 === a).map((e) => e.status)).toEqual(['active', 'lifted']);
  });

  it('creates contacts do_not_call exactly when suppressed, also for rows without the column', async () => {
    const { tenantId } = await newImportTenant();
    const numbers = Array.from({ length: 25 }, (_, i) => testPhone(100 + i));
    await Promise.all(
      numbers
        .filter((_, i) => i % 3 === 0)
        .map((n) => addSuppression(tenantId, { phone_e164: n, reason: 'manual', source: 'api', source_id: 'key_test' }, new Date())),
    );
    const job = await importCsv(tenantId, {
      column_mapping: { Phone: 'phone_e164' },
      content: csvText(
        ['Phone'],
        numbers.map((n) => [n]),
      ),
    });
    expect(job).toMatchObject({ rows_accepted: 25 });
    for (const [i, n] of numbers.entries()) expect((await contactOf(tenantId, n))!.do_not_call, n).toBe(i % 3 === 0);
  });
});
