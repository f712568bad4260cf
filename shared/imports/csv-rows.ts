/**
 * CSV text → header + data records, with csv-parse (RFC 4180: quoted delimiters, doubled
 * quotes, quoted line breaks, CRLF or LF, a UTF-8 BOM). Pure module.
 *
 * File-level problems (nothing parseable, no header, too many rows, a mapped header that
 * is not in the header row) are FileProblems: the request answers 422 and nothing is
 * written. A record whose column count differs from the header's is not a file problem:
 * it rejects just that row (column_count_mismatch): with relax_column_count csv-parse
 * keeps going, and each record's length is compared with the header's.
 *
 * Row numbering: `row` is the 1-based number of the data record (the header row is not
 * counted; blank lines and records whose cells are all empty are skipped and get no
 * number). `line` is the 1-based line of the file on which the record starts (the header
 * is line 1), which differs from row + 1 when a quoted cell spans lines.
 */
import { CsvError, parse } from 'csv-parse/sync';
import type { ValidationIssue } from '../errors.js';

export interface CsvRecord {
  row: number;
  line: number;
  cells: string[];
  /** Set when the record has another number of cells than the header (the row is rejected). */
  columnCountMismatch?: { expected: number; got: number };
}

export interface ParsedCsv {
  header: string[];
  records: CsvRecord[];
}

/** A problem with the file as a whole: 422, nothing written. */
export class FileProblem extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => i.msg).join('; '));
  }
}

const contentProblem = (msg: string, type: string, ctx?: Record<string, unknown>): FileProblem =>
  new FileProblem([{ loc: ['body', 'content'], msg, type, ...(ctx ? { ctx } : {}) }]);

interface RawRecord {
  cells: string[];
  line: number;
}

class TooManyRows extends Error {}

const CR = 0x0d;
const LF = 0x0a;

/**
 * Line numbers from byte offsets (csv-parse reports each record's end as a byte offset
 * into the UTF-8 input; its own line counter counts a quoted CRLF twice). A line break is
 * CRLF, LF or a lone CR.
 */
function lineLocator(bytes: Buffer) {
  const breakEnds: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === LF || (b === CR && bytes[i + 1] !== LF)) breakEnds.push(i + 1);
  }
  let seen = 0;
  /** Line of the first byte at or after `offset` that is not a line break (offsets must not decrease). */
  return (offset: number): number => {
    let at = offset;
    while (bytes[at] === CR || bytes[at] === LF) at++;
    while (seen < breakEnds.length && breakEnds[seen]! <= at) seen++;
    return seen + 1;
  };
}

const isBlank = (cells: string[]) => cells.every((c) => c.trim() === '');

/**
 * Parse the CSV text. Throws FileProblem when the file cannot be parsed at all, has no
 * header row, or has more than maxRows data records.
 */
export function parseCsv(content: string, opts: { maxRows: number }): ParsedCsv {
  const lineAt = lineLocator(Buffer.from(content, 'utf8'));
  const out: RawRecord[] = [];
  let recordStart = 0;
  try {
    parse(content, {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      on_record: (record, info) => {
        const line = lineAt(recordStart);
        recordStart = info.bytes;
        // The first record is the header; later records whose cells are all empty are skipped.
        if (out.length > 0 && isBlank(record)) return null;
        // Stop early on an oversized file: a header and maxRows records already kept, one more is too many.
        if (out.length > opts.maxRows) throw new TooManyRows();
        out.push({ cells: record, line });
        return null;
      },
    });
  } catch (err) {
    if (err instanceof TooManyRows) {
      throw contentProblem(`The CSV has more than ${opts.maxRows} data rows; split it into files of at most ${opts.maxRows}`, 'csv_too_many_rows', {
        max_rows: opts.maxRows,
      });
    }
    if (err instanceof CsvError) throwParse(err);
    throw err;
  }

  const [head, ...data] = out;
  if (!head || isBlank(head.cells)) {
    throw contentProblem('The CSV has no header row', 'csv_header_missing');
  }
  const header = head.cells.map((h) => h.trim());
  const records = data.map((r, i): CsvRecord => {
    const cells = r.cells;
    const rec: CsvRecord = { row: i + 1, line: r.line, cells };
    if (cells.length !== header.length) {
      // Extra trailing cells that are all empty (a spreadsheet's trailing commas) are harmless.
      const harmless = cells.length > header.length && isBlank(cells.slice(header.length));
      if (harmless) rec.cells = cells.slice(0, header.length);
      else rec.columnCountMismatch = { expected: header.length, got: cells.length };
    }
    return rec;
  });
  return { header, records };
}

function throwParse(err: CsvError): never {
  const line = (err as unknown as { lines?: number }).lines;
  const msg = err.message.length > 500 ? `${err.message.slice(0, 499)}…` : err.message;
  throw contentProblem(`The CSV could not be parsed: ${msg}`, 'csv_invalid', {
    code: err.code,
    ...(typeof line === 'number' ? { line } : {}),
  });
}

/**
 * The column index of every mapped header. Headers are compared after trimming
 * surrounding whitespace, case-sensitively. A mapped header that is absent, or present
 * more than once, is a 422 at ["body", "column_mapping", <header>].
 */
export function resolveColumns(header: string[], mapping: Record<string, string>): Map<string, number> {
  const issues: ValidationIssue[] = [];
  const columns = new Map<string, number>();
  for (const [name, target] of Object.entries(mapping)) {
    const wanted = name.trim();
    const at = header.flatMap((h, i) => (h === wanted ? [i] : []));
    if (at.length === 0) {
      issues.push({ loc: ['body', 'column_mapping', name], msg: `Column '${name}' is not in the CSV header row`, type: 'csv_column_missing', input: target });
    } else if (at.length > 1) {
      issues.push({
        loc: ['body', 'column_mapping', name],
        msg: `Column '${name}' appears ${at.length} times in the CSV header row`,
        type: 'csv_column_ambiguous',
        input: target,
      });
    } else {
      columns.set(target, at[0]!);
    }
  }
  if (issues.length) throw new FileProblem(issues);
  return columns;
}
