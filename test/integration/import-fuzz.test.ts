/**
 * Property: whatever the cells and the mapping (odd headers, attributes.<key> with keys
 * like constructor / toString / unicode, long cells, quotes, commas and line breaks, empty
 * cells, duplicate and invalid phones, ragged rows), an import that starts never fails for
 * a row's sake, and its counts add up to the data rows read — for files of a few rows and
 * for files spanning several batched write transactions (more than MAX_ROWS_PER_TRANSACTION,
 * 10, single-row phones). A mapping that cannot work (unknown or repeated target, no phone
 * target, a column the file lacks or holds twice) is a 422 that writes nothing. Run in
 * process (prepareImport/runImport) and over HTTP (POST /v1/contact-imports, every response
 * checked against its contract). The local stack on DynamoDB Local + S3, no mocks.
 */
import { fc, it } from '@fast-check/vitest';
import { beforeAll, describe, expect } from 'vitest';
import { ValidationError } from '../../shared/errors.js';
import { prepareImport, runImport } from '../../shared/imports/run-import.js';
import { findListByName } from '../../shared/repositories/contact-lists.js';
import { contactImportRequest, IMPORT_TARGETS } from '../../shared/schemas/imports.js';
import { client, newTenant } from '../e2e/client.js';
import { csvText, importAttestation, newImportTenant, testPhone } from '../support/imports.js';
import { useTestStack } from '../support/index.js';

const stack = useTestStack({ workers: false, seed: false });

let tenant: { tenantId: string; userId: string };
beforeAll(async () => {
  tenant = await newImportTenant();
});

/** Rows one batched transaction takes (shared/imports/run-import.ts MAX_ROWS_PER_TRANSACTION). */
const ROWS_PER_BATCH = 10;

const oddKey = fc.oneof(
  fc.constantFrom(
    'constructor',
    'toString',
    'hasOwnProperty',
    'valueOf',
    'isPrototypeOf',
    '__defineGetter__',
    'prototype',
    'length',
    'a.b',
    ' ',
    '0',
    'ключ',
    '🔑',
    'x'.repeat(100),
  ),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).filter((k) => k.length <= 100),
);
const target = fc.oneof(
  fc.constantFrom(...IMPORT_TARGETS.filter((t) => t !== 'phone_e164')),
  oddKey.map((k) => `attributes.${k}`),
);

const ordinaryText = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'a,b',
      'say "hi"',
      'line\nbreak',
      'cr\r\nlf',
      '  padded  ',
      ';|;',
      'New',
      'Europe/Paris',
      'x@example.com',
      'usr_01J00000000000000000000000',
      'yes',
      'maybe',
    ),
  },
);
/** Small files also get cells past a row's 64 KiB budget (kept out of long files, which would pass the 4 MiB file limit). */
const text = fc.oneof(
  { weight: 9, arbitrary: ordinaryText },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(70 * 1024), 'é'.repeat(3000), '🙂'.repeat(2000)) },
);
const phoneCell = (distinct: number) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: 1, max: distinct }).map(testPhone) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 9 }).map((n) => `+1 (555) 000-000${n}`) },
    { weight: 2, arbitrary: fc.constantFrom('', 'not a phone', '5550000001', '+', '+1234567890123456789') },
  );
const row = (cell: fc.Arbitrary<string>, distinctPhones: number) =>
  fc.tuple(phoneCell(distinctPhones), fc.array(cell, { minLength: 5, maxLength: 5 }), fc.constantFrom(0, 0, 0, -1, 1));
/** A few rows (duplicates likely, huge cells possible), or enough distinct phones to fill several write batches. */
const seedRows = fc.oneof(
  fc.array(row(text, 6), { maxLength: 8 }),
  fc.array(row(ordinaryText, 400), { minLength: ROWS_PER_BATCH + 1, maxLength: 4 * ROWS_PER_BATCH }),
);

interface ImportFile {
  header: string[];
  rows: string[][];
  column_mapping: Record<string, string>;
  onDuplicate: 'reject' | 'skip' | 'update';
  listName: string | undefined;
}

const file: fc.Arbitrary<ImportFile> = fc
  .record({
    headers: fc.uniqueArray(fc.string({ unit: 'grapheme', maxLength: 12 }), { maxLength: 4 }),
    targets: fc.uniqueArray(target, { maxLength: 4 }),
    onDuplicate: fc.constantFrom('reject', 'skip', 'update'),
    listName: fc.option(fc.constantFrom('Fuzz', ' fuzz ', 'Другой'), { nil: undefined }),
    seedRows,
  })
  .map(({ headers, targets, onDuplicate, listName, seedRows }) => {
    // Unique after trimming (the index prefix), so the mapping itself is always valid.
    const mapped = targets.map((t, i) => ({ header: `${i + 1}:${headers[i] ?? ''}`, target: t }));
    const header = ['0:phone', ...mapped.map((m) => m.header), 'unmapped'];
    const rows = seedRows.map(([phone, cells, ragged]) => {
      const row = [phone, ...mapped.map((_, i) => cells[i]!), cells[4]!];
      return ragged < 0 ? row.slice(0, -1) : ragged > 0 ? [...row, 'extra'] : row;
    });
    const column_mapping: Record<string, string> = Object.fromEntries([['0:phone', 'phone_e164'], ...mapped.map((m) => [m.header, m.target])]);
    return { header, rows, column_mapping, onDuplicate, listName };
  });

/** Ways a mapping cannot work; each is refused before anything is written. */
const breakMapping = fc.constantFrom(
  'unknown target',
  'attributes.__proto__',
  'empty attribute key',
  'target twice',
  'no phone target',
  'column not in the file',
  'column twice in the file',
);
function broken(f: ImportFile, how: string): ImportFile {
  const mapping = { ...f.column_mapping };
  const header = [...f.header];
  switch (how) {
    case 'unknown target':
      mapping['0:phone'] = 'phone';
      break;
    case 'attributes.__proto__':
      mapping.unmapped = 'attributes.__proto__';
      break;
    case 'empty attribute key':
      mapping.unmapped = 'attributes.';
      break;
    case 'target twice':
      mapping.unmapped = 'phone_e164';
      break;
    case 'no phone target':
      delete mapping['0:phone'];
      break;
    case 'column not in the file':
      mapping['not in the file'] = 'first_name';
      break;
    case 'column twice in the file':
      header[header.length - 1] = '0:phone';
      break;
  }
  return { ...f, header, column_mapping: mapping };
}

/** Files whose rows could fill more than one batched transaction (phones the file names once). */
let multiBatchFiles = 0;
const singlePhones = (rows: string[][]) => {
  const seen = new Map<string, number>();
  for (const r of rows) if (/^\+1555\d{7}$/.test(r[0] ?? '')) seen.set(r[0]!, (seen.get(r[0]!) ?? 0) + 1);
  return [...seen.values()].filter((n) => n === 1).length;
};
const rowsRead = (rows: string[][]) => rows.filter((r) => r.some((c) => c.trim() !== '')).length; // all-blank records are skipped
const bodyOf = (f: ImportFile) => ({
  file_name: 'fuzz.csv',
  content: csvText(f.header, f.rows),
  column_mapping: f.column_mapping,
  consent_attestation: importAttestation,
  on_duplicate: f.onDuplicate,
  ...(f.listName ? { list_name: f.listName } : {}),
});

describe('import fuzz', () => {
  it.prop([file], { numRuns: 20 })('in process: never fails for a row, and counts add up to the rows read', async (f) => {
    const request = contactImportRequest.parse(bodyOf(f));
    const job = await runImport(await prepareImport(tenant.tenantId, request), { sourceIp: '192.0.2.1' });
    const read = rowsRead(f.rows);
    if (singlePhones(f.rows) > ROWS_PER_BATCH) multiBatchFiles++;
    expect(job.status, JSON.stringify(job.errors)).toBe('completed');
    expect(job.failure_reason).toBeNull();
    expect(job.rows_total).toBe(read);
    expect(job.rows_accepted + job.rows_rejected + job.rows_skipped).toBe(read);
  });

  it.prop([file, breakMapping], { numRuns: 10 })('in process: a mapping that cannot work is refused before any write', async (f, how) => {
    const bad = broken(f, how);
    const parsed = contactImportRequest.safeParse(bodyOf(bad));
    if (!parsed.success) {
      expect(
        parsed.error.issues.every((i) => i.path[0] === 'column_mapping'),
        JSON.stringify(parsed.error.issues),
      ).toBe(true);
      return;
    }
    const t = await newImportTenant();
    await expect(prepareImport(t.tenantId, parsed.data)).rejects.toBeInstanceOf(ValidationError);
  });

  const longFile: ImportFile = {
    header: ['0:phone', '1:x'],
    rows: Array.from({ length: 3 * ROWS_PER_BATCH + 5 }, (_, i) => [i === 7 ? 'not a phone' : testPhone(9000 + i), `v${i}`]),
    column_mapping: { '0:phone': 'phone_e164', '1:x': 'attributes.constructor' },
    onDuplicate: 'reject',
    listName: 'Fuzz',
  };
  it.prop([file, fc.option(breakMapping, { nil: undefined })], {
    numRuns: 15,
    examples: [
      [longFile, undefined],
      [longFile, 'no phone target'],
    ],
  })('over HTTP: 202 with a completed job whose counts add up, or a 422 on the mapping that wrote nothing', async (f, how) => {
    const t = await newTenant('Import fuzz');
    const api = client(stack, t.token);
    const sent = how ? broken(f, how) : f;
    const res = await api('POST', '/v1/contact-imports', { body: bodyOf(sent) });
    if (how) {
      expect(res.status, how).toBe(422);
      for (const d of res.body.detail) expect(d.loc.slice(0, 2), `${how}: ${JSON.stringify(d)}`).toEqual(['body', 'column_mapping']);
      expect((await api('GET', '/v1/contact-imports')).body.data).toEqual([]);
      expect((await api('GET', '/v1/contacts')).body.data).toEqual([]);
      if (sent.listName) expect(await findListByName(t.tenantId, sent.listName)).toBeUndefined();
      return;
    }
    const read = rowsRead(sent.rows);
    if (singlePhones(sent.rows) > ROWS_PER_BATCH) multiBatchFiles++;
    expect(res.status).toBe(202);
    expect(res.body.status, JSON.stringify(res.body.errors)).toBe('completed');
    expect(res.body.rows_total).toBe(read);
    expect(res.body.rows_accepted + res.body.rows_rejected + res.body.rows_skipped).toBe(read);
    expect((await api('GET', `/v1/contact-imports/${res.body.id}`)).body).toMatchObject({ status: 'completed', rows_accepted: res.body.rows_accepted });
    // Every accepted row made or updated a contact (an update counts as accepted too).
    const contacts = (await api('GET', '/v1/contacts?limit=200')).body.data.length;
    expect(contacts).toBeLessThanOrEqual(res.body.rows_accepted);
    if (res.body.rows_accepted > 0) expect(contacts).toBeGreaterThan(0);
  });

  it('generated files that span several write batches (the batched path was exercised)', () => {
    expect(multiBatchFiles).toBeGreaterThan(1);
  });
});
