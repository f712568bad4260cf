/**
 * Property: whatever the cells and the mapping (odd headers, attributes.<key> with keys
 * like constructor / toString / unicode, long cells, quotes, commas and line breaks, empty
 * cells, duplicate and invalid phones, ragged rows), an import that starts never fails for
 * a row's sake, and its counts add up to the data rows read. DynamoDB Local + S3, no mocks.
 */
import { fc, it } from '@fast-check/vitest';
import { beforeAll, describe, expect } from 'vitest';
import { IMPORT_TARGETS } from '../../shared/schemas/imports.js';
import { useTestEnvironment } from '../support/index.js';
import { csvText, importCsv, newImportTenant, testPhone } from '../support/imports.js';

useTestEnvironment({ queues: false });

let tenant: { tenantId: string; userId: string };
beforeAll(async () => {
  tenant = await newImportTenant();
});

const oddKey = fc.oneof(
  fc.constantFrom('constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'prototype', 'length', 'a.b', ' ', '0', 'ключ', '🔑', 'x'.repeat(100)),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).filter((k) => k.length <= 100),
);
const target = fc.oneof(fc.constantFrom(...IMPORT_TARGETS.filter((t) => t !== 'phone_e164')), oddKey.map((k) => `attributes.${k}`));

const text = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.constantFrom('a,b', 'say "hi"', 'line\nbreak', 'cr\r\nlf', '  padded  ', ';|;', 'New', 'Europe/Paris', 'x@example.com', 'usr_01J00000000000000000000000') },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(70 * 1024), 'é'.repeat(3000), '🙂'.repeat(2000)) },
);
const phoneCell = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 6 }).map(testPhone) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }).map((n) => `+1 (555) 000-000${n}`) },
  { weight: 2, arbitrary: fc.constantFrom('', 'not a phone', '5550000001', '+', '+1234567890123456789') },
);

const file = fc
  .record({
    headers: fc.uniqueArray(fc.string({ unit: 'grapheme', maxLength: 12 }), { maxLength: 4 }),
    targets: fc.uniqueArray(target, { maxLength: 4 }),
    onDuplicate: fc.constantFrom('reject', 'skip', 'update'),
    listName: fc.option(fc.constantFrom('Fuzz', ' fuzz ', 'Другой'), { nil: undefined }),
    seedRows: fc.array(fc.tuple(phoneCell, fc.array(text, { minLength: 5, maxLength: 5 }), fc.constantFrom(0, 0, 0, -1, 1)), { maxLength: 8 }),
  })
  .map(({ headers, targets, onDuplicate, listName, seedRows }) => {
    // Unique after trimming (the index prefix), so the mapping itself is always valid.
    const mapped = targets.map((t, i) => ({ header: `${i + 1}:${headers[i] ?? ''}`, target: t }));
    const header = ['0:phone', ...mapped.map((m) => m.header), 'unmapped'];
    const rows = seedRows.map(([phone, cells, ragged]) => {
      const row = [phone, ...mapped.map((_, i) => cells[i]!), cells[4]!];
      return ragged < 0 ? row.slice(0, -1) : ragged > 0 ? [...row, 'extra'] : row;
    });
    const column_mapping = Object.fromEntries([['0:phone', 'phone_e164'], ...mapped.map((m) => [m.header, m.target])]);
    return { header, rows, column_mapping, onDuplicate, listName };
  });

describe('import fuzz', () => {
  it.prop([file], { numRuns: 20 })('never fails for a row, and counts add up to the rows read', async ({ header, rows, column_mapping, onDuplicate, listName }) => {
    const job = await importCsv(tenant.tenantId, { content: csvText(header, rows), column_mapping, on_duplicate: onDuplicate, ...(listName ? { list_name: listName } : {}) });
    const read = rows.filter((r) => r.some((c) => c.trim() !== '')).length; // all-blank records are skipped
    expect(job.status, JSON.stringify(job.errors)).toBe('completed');
    expect(job.failure_reason).toBeNull();
    expect(job.rows_total).toBe(read);
    expect(job.rows_accepted + job.rows_rejected + job.rows_skipped).toBe(read);
  });
});
