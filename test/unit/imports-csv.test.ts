import { describe, expect, it } from 'vitest';
import { FileProblem, parseCsv, resolveColumns } from '../../shared/imports/csv-rows.js';

const parse = (content: string, maxRows = 100) => parseCsv(content, { maxRows });
const problem = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(FileProblem);
    return (err as FileProblem).issues;
  }
  throw new Error('expected a FileProblem');
};

describe('parseCsv (RFC 4180 via csv-parse)', () => {
  it('strips a UTF-8 BOM from the first header', () => {
    const csv = parse('\uFEFFphone,name\n+15550000001,Ann\n');
    expect(csv.header).toEqual(['phone', 'name']);
    expect(csv.records).toEqual([{ row: 1, line: 2, cells: ['+15550000001', 'Ann'] }]);
  });

  it('reads CRLF line endings, with or without a final line break', () => {
    expect(parse('phone,name\r\n+15550000001,Ann\r\n+15550000002,Bob').records.map((r) => r.cells)).toEqual([
      ['+15550000001', 'Ann'],
      ['+15550000002', 'Bob'],
    ]);
  });

  it('keeps quoted commas, doubled quotes and quoted line breaks inside one cell', () => {
    const csv = parse('phone,company,note\r\n+15550000001,"Acme, Inc.","He said ""hi""\r\nand left"\r\n+15550000002,Beta,x\r\n');
    expect(csv.records[0]!.cells).toEqual(['+15550000001', 'Acme, Inc.', 'He said "hi"\r\nand left']);
    // The quoted line break makes the second record start on line 4, still row 2.
    expect(csv.records.map((r) => [r.row, r.line])).toEqual([
      [1, 2],
      [2, 4],
    ]);
  });

  it('numbers data rows from 1 without the header, skipping blank lines and all-empty records', () => {
    const csv = parse('phone,name\n\n+15550000001,Ann\n,\n  ,  \n+15550000002,Bob\n');
    expect(csv.records.map((r) => [r.row, r.line, r.cells[1]])).toEqual([
      [1, 3, 'Ann'],
      [2, 6, 'Bob'],
    ]);
  });

  it('trims header names', () => {
    expect(parse(' phone , name \n1,2\n').header).toEqual(['phone', 'name']);
  });

  it('flags a record with the wrong number of cells on that record only', () => {
    const csv = parse('phone,name\n+15550000001,Ann,extra\n+15550000002\n+15550000003,Cy\n');
    expect(csv.records.map((r) => r.columnCountMismatch ?? null)).toEqual([{ expected: 2, got: 3 }, { expected: 2, got: 1 }, null]);
  });

  it('tolerates trailing empty cells beyond the header (spreadsheet trailing commas)', () => {
    const csv = parse('phone,name\n+15550000001,Ann,,\n');
    expect(csv.records[0]).toEqual({ row: 1, line: 2, cells: ['+15550000001', 'Ann'] });
  });

  it('refuses a file with an unclosed quote as a whole, at ["body","content"]', () => {
    const issues = problem(() => parse('phone,name\n+15550000001,"Ann\n+15550000002,Bob\n'));
    expect(issues).toEqual([
      expect.objectContaining({ loc: ['body', 'content'], type: 'csv_invalid', ctx: expect.objectContaining({ code: 'CSV_QUOTE_NOT_CLOSED' }) }),
    ]);
  });

  it('refuses text after a closing quote as a whole', () => {
    const issues = problem(() => parse('phone,name\n+15550000001,"Ann"x\n'));
    expect(issues[0]).toMatchObject({ loc: ['body', 'content'], type: 'csv_invalid' });
  });

  it('refuses a file without a header row', () => {
    for (const content of ['\n\n', '\uFEFF', ',,\n+15550000001,a,b\n']) {
      expect(problem(() => parse(content))[0]).toMatchObject({ loc: ['body', 'content'], type: 'csv_header_missing' });
    }
  });

  it('accepts exactly maxRows data rows and refuses one more', () => {
    const rows = (n: number) => ['phone', ...Array.from({ length: n }, (_, i) => `+1555000${String(i).padStart(4, '0')}`)].join('\n');
    expect(parse(rows(5), 5).records).toHaveLength(5);
    expect(problem(() => parse(rows(6), 5))[0]).toMatchObject({ loc: ['body', 'content'], type: 'csv_too_many_rows', ctx: { max_rows: 5 } });
  });
});

describe('resolveColumns', () => {
  it('finds each mapped header (trimmed, case-sensitive)', () => {
    expect([...resolveColumns(['Phone', 'First', 'Notes'], { ' Phone': 'phone_e164', First: 'first_name' })]).toEqual([
      ['phone_e164', 0],
      ['first_name', 1],
    ]);
  });

  it('reports every mapped header missing from, or repeated in, the header row', () => {
    const issues = problem(() => resolveColumns(['Phone', 'Tag', 'Tag'], { Phone: 'phone_e164', phone2: 'email', Tag: 'tags' }));
    expect(issues.map((i) => [i.loc, i.type])).toEqual([
      [['body', 'column_mapping', 'phone2'], 'csv_column_missing'],
      [['body', 'column_mapping', 'Tag'], 'csv_column_ambiguous'],
    ]);
  });
});
