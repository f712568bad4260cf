/**
 * The list filter grammar of the API conventions, as a pure module.
 *
 *   field=a,b        → field is a OR b
 *   field.in=a,b     → same
 *   field.gte=x (.lte .gt .lt) → range
 *
 * Each list route declares its filterable fields; anything else in the query (besides
 * limit and cursor) is a 422 at ["query", name]. Values are validated per field kind and
 * date-times are normalised to UTC ISO strings so they compare correctly as stored.
 *
 * Bounded so that every accepted query is one DynamoDB can evaluate (an expression holds
 * at most 300 operators and 4 KB of text): repeated values are dropped, a parameter takes
 * at most FILTER_LIMITS.valuesPerFilter distinct values of at most .valueChars characters,
 * a query at most .filtersPerQuery filter parameters and .valuesPerQuery values in all,
 * and alternatives compile to one IN (…) per field. Beyond a bound: 422 at ["query", name].
 */
import type { ValidationIssue } from '../errors.js';
import { instantInRange } from '../schemas/common.js';
import { CONTROL_CHARACTER_TYPE, controlCharacterMessage, forbiddenCharacter } from '../schemas/text.js';

export const FILTER_LIMITS = { valuesPerFilter: 50, valueChars: 256, filtersPerQuery: 12, valuesPerQuery: 100 } as const;

type FilterKind =
  | { kind: 'string'; pattern?: RegExp }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'datetime' }
  | { kind: 'boolean' }
  | { kind: 'integer' };

/** `list`: the attribute holds a list; `field=a,b` matches items whose list contains a or b. */
export type FilterSpec = Record<string, FilterKind & { attribute?: string; list?: true }>;

type FilterOp = 'eq' | 'gte' | 'lte' | 'gt' | 'lt';
export interface FilterCondition {
  field: string;
  attribute: string;
  op: FilterOp;
  /** eq: one or more alternatives (OR); range ops: exactly one. */
  values: (string | number | boolean)[];
  /** The attribute is a list: eq means "contains". */
  list?: true;
}

const RESERVED = new Set(['limit', 'cursor']);
const SUFFIXES = new Set(['gte', 'lte', 'gt', 'lt', 'in']);

export function parseFilters(query: Record<string, string | undefined>, spec: FilterSpec): { conditions: FilterCondition[]; issues: ValidationIssue[] } {
  const conditions: FilterCondition[] = [];
  const issues: ValidationIssue[] = [];
  let filters = 0;
  let totalValues = 0;
  for (const [name, raw] of Object.entries(query)) {
    if (RESERVED.has(name) || raw === undefined) continue;
    const dot = name.lastIndexOf('.');
    const suffix = dot > 0 ? name.slice(dot + 1) : '';
    const field = dot > 0 && SUFFIXES.has(suffix) ? name.slice(0, dot) : name;
    const opName = field === name ? 'eq' : suffix;
    const kind = Object.hasOwn(spec, field) ? spec[field] : undefined;
    const fail = (msg: string, type: string, ctx?: Record<string, unknown>) =>
      issues.push({ loc: ['query', name], msg, type, input: raw.length > 200 ? `${raw.slice(0, 200)}…` : raw, ...(ctx ? { ctx } : {}) });
    if (!kind) {
      fail(`Unknown filter '${name}'. Filterable fields: ${Object.keys(spec).join(', ') || 'none'}`, 'extra_forbidden');
      continue;
    }
    if (++filters > FILTER_LIMITS.filtersPerQuery) {
      fail(`A query may use at most ${FILTER_LIMITS.filtersPerQuery} filter parameters`, 'too_many_filters', { max_filters: FILTER_LIMITS.filtersPerQuery });
      continue;
    }
    const op: FilterOp = opName === 'in' ? 'eq' : (opName as FilterOp);
    if (op !== 'eq' && (kind.kind === 'boolean' || kind.list)) {
      fail(kind.list ? 'A list filter takes only equality (contains any of the values)' : 'A boolean filter takes only equality', 'filter_operator_invalid');
      continue;
    }
    const parts = op === 'eq' ? raw.split(',') : [raw];
    const values: (string | number | boolean)[] = [];
    const seen = new Set<string | number | boolean>();
    let bad = false;
    for (const part of parts) {
      const parsed = parseValue(part.trim(), kind);
      if (!parsed.ok) {
        fail(parsed.msg, parsed.type, parsed.ctx);
        bad = true;
        break;
      }
      if (seen.has(parsed.value)) continue;
      seen.add(parsed.value);
      values.push(parsed.value);
      if (values.length > FILTER_LIMITS.valuesPerFilter) {
        fail(`A filter takes at most ${FILTER_LIMITS.valuesPerFilter} distinct values`, 'too_long', { max_length: FILTER_LIMITS.valuesPerFilter });
        bad = true;
        break;
      }
    }
    if (bad) continue;
    totalValues += values.length;
    if (totalValues > FILTER_LIMITS.valuesPerQuery) {
      fail(`A query's filters take at most ${FILTER_LIMITS.valuesPerQuery} values in all`, 'too_many_filter_values', {
        max_values: FILTER_LIMITS.valuesPerQuery,
      });
      continue;
    }
    conditions.push({ field, attribute: kind.attribute ?? field, op, values, ...(kind.list ? { list: true as const } : {}) });
  }
  conditions.sort((a, b) => (a.field + a.op).localeCompare(b.field + b.op));
  return { conditions, issues };
}

type Parsed = { ok: true; value: string | number | boolean } | { ok: false; msg: string; type: string; ctx?: Record<string, unknown> };

function parseValue(v: string, kind: FilterKind): Parsed {
  if (v === '') return { ok: false, msg: 'Filter value must not be empty', type: 'string_too_short' };
  if (v.length > FILTER_LIMITS.valueChars)
    return {
      ok: false,
      msg: `A filter value has at most ${FILTER_LIMITS.valueChars} characters`,
      type: 'string_too_long',
      ctx: { max_length: FILTER_LIMITS.valueChars },
    };
  if (!v.isWellFormed()) return { ok: false, msg: 'Filter value contains a lone UTF-16 surrogate', type: 'string_unicode' };
  const control = forbiddenCharacter(v);
  if (control) return { ok: false, msg: controlCharacterMessage(control), type: CONTROL_CHARACTER_TYPE };
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
      return /^-?\d{1,15}$/.test(v) ? { ok: true, value: Number(v) } : { ok: false, msg: 'Input should be a valid integer', type: 'int_parsing' };
    case 'datetime': {
      // A bare date means midnight UTC; anything else must carry a time zone.
      const iso = /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v;
      const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(iso);
      const t = ok && realDate(iso.slice(0, 10)) ? Date.parse(iso) : NaN;
      if (Number.isNaN(t)) return { ok: false, msg: 'Input should be a valid datetime or date (ISO 8601)', type: 'datetime_parsing' };
      if (!instantInRange(t)) return { ok: false, msg: 'Date-time must fall within years 0001–9999 once converted to UTC', type: 'datetime_out_of_range' };
      return { ok: true, value: new Date(t).toISOString() };
    }
  }
}

/** 2026-02-30 parses (as March 2) but names no day: refuse it. */
const realDate = (ymd: string): boolean => new Date(`${ymd}T00:00:00Z`).toISOString().slice(0, 10) === ymd;

/** Canonical text of the conditions, so a cursor can be bound to the exact query. */
export const filterScope = (conditions: FilterCondition[]): string => conditions.map((c) => `${c.field}.${c.op}=${c.values.map(String).join(',')}`).join('&');

/** DynamoDB FilterExpression for the conditions (AND across fields, OR within eq). */
export function toFilterExpression(conditions: FilterCondition[]): {
  FilterExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  if (conditions.length === 0) return {};
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  let v = 0;
  const value = (x: unknown) => {
    const placeholder = `:v${v++}`;
    values[placeholder] = x;
    return placeholder;
  };
  const clauses = conditions.map((c, i) => {
    const n = `#f${i}`;
    names[n] = c.attribute;
    if (c.list) return `(${c.values.map((x) => `contains(${n}, ${value(x)})`).join(' OR ')})`;
    if (c.op === 'eq') return c.values.length === 1 ? `${n} = ${value(c.values[0])}` : `${n} IN (${c.values.map(value).join(', ')})`;
    const sym = { gte: '>=', lte: '<=', gt: '>', lt: '<' }[c.op];
    return `${n} ${sym} ${value(c.values[0])}`;
  });
  return { FilterExpression: clauses.join(' AND '), ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}
