/**
 * The import plan: every record mapped, the invalid ones turned into rejections, the valid
 * ones grouped by phone number. Pure module.
 *
 * Rows that share a phone number are processed one after another in file order (one
 * group), so a later row is judged against the state the earlier rows left: with
 * on_duplicate=reject or skip it is a duplicate of the first row that created (or found)
 * the contact; with update it updates that contact. Groups run concurrently.
 */
import type { CsvRecord } from './csv-rows.js';
import { type MappedRow, mapRow, type RowReason } from './row-mapping.js';

export interface PhoneGroup {
  phone: string;
  /** In file order. */
  rows: MappedRow[];
}

export interface ImportPlan {
  rowsTotal: number;
  /** Rows rejected before any write (validation), with their reasons. */
  invalid: { row: number; reasons: RowReason[] }[];
  /** Valid rows by phone, groups in order of first appearance. */
  groups: PhoneGroup[];
}

export function planImport(records: readonly CsvRecord[], columns: ReadonlyMap<string, number>): ImportPlan {
  const invalid: ImportPlan['invalid'] = [];
  const byPhone = new Map<string, PhoneGroup>();
  for (const rec of records) {
    const result = mapRow(rec, columns);
    if (!result.ok) {
      invalid.push({ row: rec.row, reasons: result.reasons });
      continue;
    }
    const group = byPhone.get(result.value.phone);
    if (group) group.rows.push(result.value);
    else byPhone.set(result.value.phone, { phone: result.value.phone, rows: [result.value] });
  }
  return { rowsTotal: records.length, invalid, groups: [...byPhone.values()] };
}
