/**
 * One CSV record → contact fields, through column_mapping, validated per field with the
 * same zod schemas the contact create request uses (contactFields). Pure module.
 *
 * Cell rules (docs/imports.md):
 *  - every cell is trimmed; an empty cell means the field is absent (never "clear it");
 *  - phone_e164: visual separators (spaces, '-', '.', '(', ')') are removed, nothing else:
 *    "+1 (555) 010-0000" → "+15550100000"; a number without '+' is rejected, since the
 *    country cannot be known;
 *  - tags, jurisdictions: split on ';' or '|', each part trimmed, empty parts dropped,
 *    repeats dropped (first kept);
 *  - lead_status: compared case-insensitively ("New" → "new");
 *  - attributes.<key>: the cell text, as a string;
 *  - do_not_call: true/false, yes/no, 1/0, case-insensitively (anything else rejects the
 *    row); true suppresses the number (run-import adds the entry in the row's transaction).
 * Every problem of a row is reported (one reason per field), each naming its field.
 */
import type * as z from 'zod';
import { toValidationIssues } from '../http/validation.js';
import type { ContactFields } from '../repositories/contacts.js';
import { contactFields } from '../schemas/contacts.js';
import type { ImportTarget } from '../schemas/imports.js';
import { contactPhone } from '../schemas/phone.js';
import type { CsvRecord } from './csv-rows.js';

export interface RowReason {
  row: number;
  line: number | null;
  field: string | null;
  type: string;
  msg: string;
}

export interface MappedRow {
  row: number;
  line: number;
  phone: string;
  fields: ContactFields;
  /** The do_not_call cell, when mapped and not empty. */
  doNotCall?: boolean;
}

export type RowResult = { ok: true; value: MappedRow } | { ok: false; reasons: RowReason[] };

/** Mapped cells of one row may total at most this many UTF-8 bytes (a DynamoDB item is at most 400 KB). */
export const MAX_ROW_BYTES = 64 * 1024;
const MAX_MSG = 300;

const LIST_SEPARATOR = /[;|]/;
const PHONE_SEPARATORS = /[\s\-.()]/g;

export const splitList = (cell: string): string[] => [
  ...new Set(
    cell
      .split(LIST_SEPARATOR)
      .map((p) => p.trim())
      .filter((p) => p !== ''),
  ),
];

export const normalizePhone = (cell: string): string => cell.replace(PHONE_SEPARATORS, '');

type FieldName = Exclude<ImportTarget, 'phone_e164' | 'do_not_call'>;

const FLAGS: Readonly<Record<string, boolean>> = { true: true, yes: true, '1': true, false: false, no: false, '0': false };
/** A do_not_call cell: true/false, yes/no, 1/0 (any case); undefined for anything else. */
const parseFlag = (cell: string): boolean | undefined => (Object.hasOwn(FLAGS, cell.toLowerCase()) ? FLAGS[cell.toLowerCase()] : undefined);

const CONVERT: Record<FieldName, (cell: string) => unknown> = {
  first_name: (c) => c,
  last_name: (c) => c,
  company: (c) => c,
  title: (c) => c,
  email: (c) => c,
  timezone: (c) => c,
  owner_user_id: (c) => c,
  lead_status: (c) => c.toLowerCase(),
  tags: splitList,
  jurisdictions: splitList,
};

export const reason = (rec: { row: number; line: number | null }, field: string | null, type: string, msg: string): RowReason => ({
  row: rec.row,
  line: rec.line,
  field,
  type,
  msg: msg.length > MAX_MSG ? `${msg.slice(0, MAX_MSG - 1)}…` : msg,
});

/**
 * Map one record. `columns` maps each target (phone_e164, a field, or attributes.<key>)
 * to its column index (csv-rows.resolveColumns).
 */
export function mapRow(rec: CsvRecord, columns: ReadonlyMap<string, number>): RowResult {
  if (rec.columnCountMismatch) {
    const { expected, got } = rec.columnCountMismatch;
    return { ok: false, reasons: [reason(rec, null, 'column_count_mismatch', `The row has ${got} cells; the header row has ${expected}`)] };
  }
  const reasons: RowReason[] = [];
  const cell = (index: number) => (rec.cells[index] ?? '').trim();

  let bytes = 0;
  for (const index of columns.values()) bytes += Buffer.byteLength(cell(index), 'utf8');
  if (bytes > MAX_ROW_BYTES) {
    return { ok: false, reasons: [reason(rec, null, 'row_too_large', `The row's mapped cells total ${bytes} bytes; at most ${MAX_ROW_BYTES} are accepted`)] };
  }

  const check = (field: string, schema: z.ZodType, value: unknown): unknown => {
    const result = schema.safeParse(value, { reportInput: true });
    if (result.success) return result.data;
    for (const issue of toValidationIssues('body', result.error.issues)) reasons.push(reason(rec, field, issue.type, issue.msg));
    return undefined;
  };

  let phone = '';
  const phoneIndex = columns.get('phone_e164');
  const rawPhone = phoneIndex === undefined ? '' : cell(phoneIndex);
  if (rawPhone === '') reasons.push(reason(rec, 'phone_e164', 'missing', 'phone_e164 is required'));
  else phone = (check('phone_e164', contactPhone, normalizePhone(rawPhone)) as string | undefined) ?? '';

  let doNotCall: boolean | undefined;
  const flagIndex = columns.get('do_not_call');
  const flagCell = flagIndex === undefined ? '' : cell(flagIndex);
  if (flagCell !== '') {
    doNotCall = parseFlag(flagCell);
    if (doNotCall === undefined) reasons.push(reason(rec, 'do_not_call', 'bool_parsing', `do_not_call must be true/false, yes/no or 1/0, not '${flagCell}'`));
  }

  const fields: ContactFields = {};
  const attributes: Record<string, string> = Object.create(null) as Record<string, string>; // keys are user text: no prototype to collide with
  for (const [target, index] of columns) {
    if (target === 'phone_e164' || target === 'do_not_call') continue;
    const value = cell(index);
    if (value === '') continue;
    if (target.startsWith('attributes.')) {
      attributes[target.slice('attributes.'.length)] = value;
      continue;
    }
    const name = target as FieldName;
    const converted = CONVERT[name](value);
    if (Array.isArray(converted) && converted.length === 0) continue; // only separators: absent
    const parsed = check(name, contactFields[name], converted);
    if (parsed !== undefined) (fields as Record<string, unknown>)[name] = parsed;
  }
  if (Object.keys(attributes).length) fields.attributes = { ...attributes }; // spread defines own keys: a plain object for the SDK

  if (reasons.length) return { ok: false, reasons };
  return { ok: true, value: { row: rec.row, line: rec.line, phone, fields, ...(doNotCall === undefined ? {} : { doNotCall }) } };
}
