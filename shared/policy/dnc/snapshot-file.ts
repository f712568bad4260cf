/**
 * A National DNC registry download for one area code (the FTC's per-area-code file: one
 * ten-digit number per line), read into what the snapshot stores: per exchange (the three
 * digits after the area code) a bitmap of the 10,000 line numbers, bit set = listed.
 * Pure module: every line is checked before anything is written.
 *
 * Blank lines are ignored (a trailing newline, CRLF). Any other line that is not ten digits
 * of this area code makes the whole file refused. A number listed twice counts once.
 */
const LINES_PER_EXCHANGE = 10_000;
const BITMAP_BYTES = LINES_PER_EXCHANGE / 8;
/** Lines quoted in a refusal; the count of bad lines is always exact. */
const QUOTED_PROBLEMS = 10;

const AREA_CODE = /^[2-9]\d{2}$/;

export class DncFileProblem extends Error {}

export interface ParsedSnapshot {
  /** Exchange ('555') → bitmap of its listed line numbers. */
  exchanges: Map<string, Uint8Array>;
  /** Distinct listed numbers. */
  numbers: number;
}

export const isListed = (bitmap: Uint8Array, line: number): boolean => ((bitmap[line >> 3] ?? 0) & (1 << (line & 7))) !== 0;

/** The as-of date: YYYY-MM-DD naming a real day, not after `today` (a future date would keep a snapshot fresh it never was). */
export function asOfProblem(asOf: string, today: Date): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(asOf) || new Date(`${asOf}T00:00:00Z`).toISOString().slice(0, 10) !== asOf)
    return `--as-of must be a date YYYY-MM-DD, not '${asOf}'`;
  if (asOf > today.toISOString().slice(0, 10)) return `--as-of ${asOf} is in the future`;
  return undefined;
}

export function parseDncFile(text: string, areaCode: string): ParsedSnapshot {
  if (!AREA_CODE.test(areaCode)) throw new DncFileProblem(`--area-code must be three digits, the first 2-9, not '${areaCode}'`);
  const exchanges = new Map<string, Uint8Array>();
  const problems: string[] = [];
  let bad = 0;
  let numbers = 0;
  const lines = text.split(/\r\n|\n|\r/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const problem = !/^\d{10}$/.test(line) ? 'is not a ten-digit number' : !line.startsWith(areaCode) ? `is not in area code ${areaCode}` : undefined;
    if (problem) {
      if (++bad <= QUOTED_PROBLEMS) problems.push(`line ${i + 1}: '${line.length > 40 ? `${line.slice(0, 40)}…` : line}' ${problem}`);
      continue;
    }
    const exchange = line.slice(3, 6);
    const lineNumber = Number(line.slice(6));
    let bitmap = exchanges.get(exchange);
    if (!bitmap) {
      bitmap = new Uint8Array(BITMAP_BYTES);
      exchanges.set(exchange, bitmap);
    }
    const mask = 1 << (lineNumber & 7);
    if ((bitmap[lineNumber >> 3]! & mask) === 0) {
      bitmap[lineNumber >> 3]! |= mask;
      numbers++;
    }
  }
  if (bad)
    throw new DncFileProblem(
      `the file has ${bad} bad line${bad === 1 ? '' : 's'}; nothing was loaded:\n${problems.join('\n')}${bad > QUOTED_PROBLEMS ? `\n… and ${bad - QUOTED_PROBLEMS} more` : ''}`,
    );
  if (numbers === 0) throw new DncFileProblem('the file lists no numbers; nothing was loaded (an empty snapshot would clear the area code)');
  return { exchanges, numbers };
}
