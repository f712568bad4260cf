/**
 * The list filter grammar of SPEC Conventions 6, as a pure module.
 *
 *   field=a,b        → field is a OR b
 *   field.in=a,b     → same
 *   field.gte=x (.lte .gt .lt) → range
 *
 * Each list route declares its filterable fields; anything else in the query (besides
 * limit and cursor) is a 422 at ["query", name]. Values are validated per field kind and
 * date-times are normalised to UTC ISO strings so they compare correctly as stored.
 */
import type { ValidationIssue } from '../http/errors.js';

export type FilterKind =
  | { kind: 'string'; pattern?: RegExp }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'datetime' }
  | { kind: 'boolean' }
  | { kind: 'integer' };

export type FilterSpec = Record<string, FilterKind & { attribute?: string }>;

export type FilterOp = 'eq' | 'gte' | 'lte' | 'gt' | 'lt';
export interface FilterCondition {
  field: string;
  attribute: string;
  op: FilterOp;
  /** eq: one or more alternatives (OR); range ops: exactly one. */
  values: (string | number | boolean)[];
}

const RESERVED = new Set(['limit', 'cursor']);
const SUFFIXES = new Set(['gte', 'lte', 'gt', 'lt', 'in']);

export function parseFilters(
  query: Record<string, string | undefined>,
  spec: FilterSpec,
): { conditions: FilterCondition[]; issues: ValidationIssue[] } {
  const conditions: FilterCondition[] = [];
  const issues: ValidationIssue[] = [];
  for (const [name, raw] of Object.entries(query)) {
    if (RESERVED.has(name) || raw === undefined) continue;
    const dot = name.lastIndexOf('.');
    const suffix = dot > 0 ? name.slice(dot + 1) : '';
    const field = dot > 0 && SUFFIXES.has(suffix) ? name.slice(0, dot) : name;
    const opName = field === name ? 'eq' : suffix;
    const kind = Object.hasOwn(spec, field) ? spec[field] : undefined;
    if (!kind) {
      issues.push({ loc: ['query', name], msg: `Unknown filter '${name}'. Filterable fields: ${Object.keys(spec).join(', ') || 'none'}`, type: 'extra_forbidden', input: raw });
      continue;
    }
    const op: FilterOp = opName === 'in' ? 'eq' : (opName as FilterOp);
    if (op !== 'eq' && kind.kind === 'boolean') {
      issues.push({ loc: ['query', name], msg: 'A boolean filter takes only equality', type: 'filter_operator_invalid', input: raw });
      continue;
    }
    const parts = op === 'eq' ? raw.split(',') : [raw];
    const values: (string | number | boolean)[] = [];
    let bad = false;
    for (const part of parts) {
      const parsed = parseValue(part.trim(), kind);
      if (parsed.ok) values.push(parsed.value);
      else {
        issues.push({ loc: ['query', name], msg: parsed.msg, type: parsed.type, input: raw });
        bad = true;
        break;
      }
    }
    if (!bad) conditions.push({ field, attribute: kind.attribute ?? field, op, values });
  }
  conditions.sort((a, b) => (a.field + a.op).localeCompare(b.field + b.op));
  return { conditions, issues };
}

type Parsed = { ok: true; value: string | number | boolean } | { ok: false; msg: string; type: string };

function parseValue(v: string, kind: FilterKind): Parsed {
  if (v === '') return { ok: false, msg: 'Filter value must not be empty', type: 'string_too_short' };
  switch (kind.kind) {
    case 'string':
      return kind.pattern && !kind.pattern.test(v)
        ? { ok: false, msg: `String should match pattern '${kind.pattern.source}'`, type: 'string_pattern_mismatch' }
        : { ok: true, value: v };
    case 'enum':
      return kind.values.includes(v)
        ? { ok: true, value: v }
        : { ok: false, msg: `Input should be ${kind.values.map((x) => `'${x}'`).join(', ')}`, type: 'enum' };
    case 'boolean':
      if (v === 'true') return { ok: true, value: true };
      if (v === 'false') return { ok: true, value: false };
      return { ok: false, msg: 'Input should be a valid boolean (true or false)', type: 'bool_parsing' };
    case 'integer':
      return /^-?\d{1,15}$/.test(v)
        ? { ok: true, value: Number(v) }
        : { ok: false, msg: 'Input should be a valid integer', type: 'int_parsing' };
    case 'datetime': {
      // A bare date means midnight UTC; anything else must carry a time zone.
      const iso = /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v;
      const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(iso);
      const t = ok && realDate(iso.slice(0, 10)) ? Date.parse(iso) : NaN;
      return Number.isNaN(t)
        ? { ok: false, msg: 'Input should be a valid datetime or date (ISO 8601)', type: 'datetime_parsing' }
        : { ok: true, value: new Date(t).toISOString() };
    }
  }
}

/** 2026-02-30 parses (as March 2) but names no day: refuse it. */
const realDate = (ymd: string): boolean => new Date(`${ymd}T00:00:00Z`).toISOString().slice(0, 10) === ymd;

/** Canonical text of the conditions, so a cursor can be bound to the exact query. */
export const filterScope = (conditions: FilterCondition[]): string =>
  conditions.map((c) => `${c.field}.${c.op}=${c.values.map(String).join(',')}`).join('&');

/** DynamoDB FilterExpression for the conditions (AND across fields, OR within eq). */
export function toFilterExpression(conditions: FilterCondition[]): {
  FilterExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  if (conditions.length === 0) return {};
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const clauses = conditions.map((c, i) => {
    const n = `#f${i}`;
    names[n] = c.attribute;
    if (c.op === 'eq') {
      const alts = c.values.map((v, j) => {
        values[`:f${i}_${j}`] = v;
        return `${n} = :f${i}_${j}`;
      });
      return alts.length === 1 ? alts[0] : `(${alts.join(' OR ')})`;
    }
    const sym = { gte: '>=', lte: '<=', gt: '>', lt: '<' }[c.op];
    values[`:f${i}`] = c.values[0];
    return `${n} ${sym} :f${i}`;
  });
  return { FilterExpression: clauses.join(' AND '), ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}
