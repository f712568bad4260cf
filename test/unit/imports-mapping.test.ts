import { describe, expect, it } from 'vitest';
import type { CsvRecord } from '../../shared/imports/csv-rows.js';
import { planImport } from '../../shared/imports/plan.js';
import { MAX_ROW_BYTES, mapRow, normalizePhone, splitList } from '../../shared/imports/row-mapping.js';

const columns = new Map<string, number>([
  ['phone_e164', 0],
  ['first_name', 1],
  ['email', 2],
  ['lead_status', 3],
  ['tags', 4],
  ['jurisdictions', 5],
  ['timezone', 6],
  ['attributes.crm_id', 7],
  ['attributes.source', 8],
]);
const rec = (cells: string[], row = 1, line = 2): CsvRecord => ({ row, line, cells: [...cells, ...Array(9 - cells.length).fill('')] });

describe('mapRow', () => {
  it('maps every target, trimming cells and dropping empty ones', () => {
    const result = mapRow(
      rec(['+15550000001', ' Ann ', 'ann@example.com', 'Qualified', 'vip; west |  ; vip', 'US-CA|US-NV', 'America/Los_Angeles', '  42 ', '']),
      columns,
    );
    expect(result).toEqual({
      ok: true,
      value: {
        row: 1,
        line: 2,
        phone: '+15550000001',
        fields: {
          first_name: 'Ann',
          email: 'ann@example.com',
          lead_status: 'qualified',
          tags: ['vip', 'west'],
          jurisdictions: ['US-CA', 'US-NV'],
          timezone: 'America/Los_Angeles',
          attributes: { crm_id: '42' },
        },
      },
    });
  });

  it('leaves every empty cell absent (no key at all), including lists of only separators', () => {
    const result = mapRow(rec(['+15550000001', '', '  ', '', ' ; | ', '']), columns);
    expect(result).toEqual({ ok: true, value: { row: 1, line: 2, phone: '+15550000001', fields: {} } });
  });

  it('removes visual separators from the phone but never guesses a country', () => {
    expect(normalizePhone('+1 (555) 000-0001')).toBe('+15550000001');
    const ok = mapRow(rec(['+1 (555) 000.0001']), columns);
    expect(ok.ok && ok.value.phone).toBe('+15550000001');
    const bad = mapRow(rec(['5550000001']), columns);
    expect(bad).toEqual({ ok: false, reasons: [expect.objectContaining({ row: 1, line: 2, field: 'phone_e164', type: 'string_pattern_mismatch' })] });
  });

  it('collects one reason per bad field, each naming its field', () => {
    const result = mapRow(rec(['', 'A'.repeat(201), 'not-an-email', 'hot', '', '', 'Mars/Base'], 7, 9), columns);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reasons.map((r) => [r.row, r.line, r.field, r.type])).toEqual([
      [7, 9, 'phone_e164', 'missing'],
      [7, 9, 'first_name', 'string_too_long'],
      [7, 9, 'email', 'value_error'],
      [7, 9, 'lead_status', 'enum'],
      [7, 9, 'timezone', 'timezone_invalid'],
    ]);
    expect(result.reasons.every((r) => r.msg.length > 0)).toBe(true);
  });

  it('applies the contact limits to list columns (at most 32 tags)', () => {
    const tags = Array.from({ length: 33 }, (_, i) => `t${i}`).join(';');
    const result = mapRow(rec(['+15550000001', '', '', '', tags]), columns);
    expect(result).toEqual({ ok: false, reasons: [expect.objectContaining({ field: 'tags', type: 'too_long' })] });
  });

  it('rejects a record with the wrong number of cells, and an oversized row', () => {
    expect(mapRow({ row: 3, line: 4, cells: ['+15550000001'], columnCountMismatch: { expected: 9, got: 1 } }, columns)).toEqual({
      ok: false,
      reasons: [expect.objectContaining({ row: 3, line: 4, field: null, type: 'column_count_mismatch' })],
    });
    expect(mapRow(rec(['+15550000001', '', '', '', '', '', '', 'x'.repeat(MAX_ROW_BYTES)]), columns)).toEqual({
      ok: false,
      reasons: [expect.objectContaining({ field: null, type: 'row_too_large' })],
    });
  });
});

describe('splitList', () => {
  it('reads do_not_call as true/false, yes/no or 1/0 in any case; an empty cell is absent; anything else rejects the row', () => {
    const flags = new Map<string, number>([
      ['phone_e164', 0],
      ['do_not_call', 1],
    ]);
    const flag = (cell: string) => mapRow({ row: 3, line: 4, cells: ['+15550000001', cell] }, flags);
    for (const [cell, value] of [
      ['true', true],
      [' YES ', true],
      ['1', true],
      ['False', false],
      ['no', false],
      ['0', false],
    ] as const) {
      expect(flag(cell), cell).toEqual({ ok: true, value: { row: 3, line: 4, phone: '+15550000001', fields: {}, doNotCall: value } });
    }
    expect(flag('')).toEqual({ ok: true, value: { row: 3, line: 4, phone: '+15550000001', fields: {} } });
    for (const cell of ['y', '2', 'opted out', 'TRUE1']) {
      expect(flag(cell), cell).toEqual({
        ok: false,
        reasons: [{ row: 3, line: 4, field: 'do_not_call', type: 'bool_parsing', msg: `do_not_call must be true/false, yes/no or 1/0, not '${cell}'` }],
      });
    }
  });

  it("splits on ';' and '|', trims, drops empties and repeats", () => {
    expect(splitList(' a;b | c;;a|')).toEqual(['a', 'b', 'c']);
    expect(splitList('one, two')).toEqual(['one, two']);
  });
});

describe('planImport', () => {
  it('groups valid rows by phone in file order and sets invalid rows aside', () => {
    const plan = planImport(
      [
        rec(['+15550000001', 'A'], 1, 2),
        rec(['+15550000002', 'B'], 2, 3),
        rec(['bad', 'C'], 3, 4),
        rec(['+1 555 000 0001', 'D'], 4, 5),
        rec(['+15550000001', 'E'], 5, 6),
      ],
      columns,
    );
    expect(plan.rowsTotal).toBe(5);
    expect(plan.invalid.map((i) => i.row)).toEqual([3]);
    expect(plan.groups.map((g) => [g.phone, g.rows.map((r) => r.row)])).toEqual([
      ['+15550000001', [1, 4, 5]],
      ['+15550000002', [2]],
    ]);
  });
});
