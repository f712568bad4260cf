import { describe, expect, it } from 'vitest';
import { FILTER_LIMITS, type FilterSpec, filterScope, parseFilters, toFilterExpression } from '../../shared/pagination/filters.js';

const spec: FilterSpec = {
  status: { kind: 'enum', values: ['queued', 'running', 'completed', 'failed'] },
  created_at: { kind: 'datetime' },
  has_outcome: { kind: 'boolean' },
  phone_e164: { kind: 'string', pattern: /^\+[1-9]\d{6,14}$/ },
};

describe('filter grammar', () => {
  it('parses bare (comma = OR), .in and range forms', () => {
    const { conditions, issues } = parseFilters(
      { status: 'queued,failed', 'created_at.gte': '2026-01-01', 'created_at.lt': '2026-02-01T00:00:00+01:00', 'phone_e164.in': '+15551230000' },
      spec,
    );
    expect(issues).toEqual([]);
    expect(conditions).toEqual([
      { field: 'created_at', attribute: 'created_at', op: 'gte', values: ['2026-01-01T00:00:00.000Z'] },
      { field: 'created_at', attribute: 'created_at', op: 'lt', values: ['2026-01-31T23:00:00.000Z'] },
      { field: 'phone_e164', attribute: 'phone_e164', op: 'eq', values: ['+15551230000'] },
      { field: 'status', attribute: 'status', op: 'eq', values: ['queued', 'failed'] },
    ]);
  });

  it('refuses undeclared filters and bad values at ["query", name]', () => {
    const { issues } = parseFilters(
      { colour: 'red', status: 'queued,bogus', 'created_at.gte': 'last week', 'has_outcome.gte': 'true', has_outcome: 'yes' },
      spec,
    );
    expect(issues.map((i) => [i.loc, i.type])).toEqual([
      [['query', 'colour'], 'extra_forbidden'],
      [['query', 'status'], 'enum'],
      [['query', 'created_at.gte'], 'datetime_parsing'],
      [['query', 'has_outcome.gte'], 'filter_operator_invalid'],
      [['query', 'has_outcome'], 'bool_parsing'],
    ]);
  });

  it('builds a DynamoDB filter expression: AND across fields, OR within one', () => {
    const { conditions } = parseFilters({ status: 'queued,failed', has_outcome: 'true' }, spec);
    const expr = toFilterExpression(conditions);
    expect(expr.FilterExpression).toBe('#f0 = :v0 AND #f1 IN (:v1, :v2)');
    expect(expr.ExpressionAttributeNames).toEqual({ '#f0': 'has_outcome', '#f1': 'status' });
    expect(expr.ExpressionAttributeValues).toEqual({ ':v0': true, ':v1': 'queued', ':v2': 'failed' });
    expect(toFilterExpression([])).toEqual({});
  });

  it('gives the same scope for the same query in any parameter order', () => {
    const a = parseFilters({ status: 'queued', 'created_at.gte': '2026-01-01' }, spec).conditions;
    const b = parseFilters({ 'created_at.gte': '2026-01-01', status: 'queued' }, spec).conditions;
    expect(filterScope(a)).toBe(filterScope(b));
    expect(filterScope(a)).not.toBe(filterScope(parseFilters({ status: 'failed' }, spec).conditions));
  });

  it('drops repeated values, so a long list of one value is one equality', () => {
    const { conditions, issues } = parseFilters({ status: Array(151).fill('queued').join(',') }, spec);
    expect(issues).toEqual([]);
    expect(conditions).toEqual([{ field: 'status', attribute: 'status', op: 'eq', values: ['queued'] }]);
  });

  it('bounds distinct values per filter, values per query, value length and filters per query', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`).join(',');
    const tooMany = parseFilters({ name: many(FILTER_LIMITS.valuesPerFilter + 1) }, { name: { kind: 'string' } });
    expect(tooMany.issues).toMatchObject([{ loc: ['query', 'name'], type: 'too_long' }]);
    expect(parseFilters({ name: many(FILTER_LIMITS.valuesPerFilter) }, { name: { kind: 'string' } }).issues).toEqual([]);

    const wide: FilterSpec = { a: { kind: 'string' }, b: { kind: 'string' }, c: { kind: 'string' } };
    const total = parseFilters({ a: many(50), b: many(50), c: 'x' }, wide);
    expect(total.issues).toMatchObject([{ loc: ['query', 'c'], type: 'too_many_filter_values' }]);

    const long = parseFilters({ a: 'x'.repeat(FILTER_LIMITS.valueChars + 1) }, wide);
    expect(long.issues).toMatchObject([{ loc: ['query', 'a'], type: 'string_too_long' }]);

    const fields: FilterSpec = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, { kind: 'string' } as const]));
    const query = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, 'x']));
    const capped = parseFilters(query, fields);
    expect(capped.conditions).toHaveLength(FILTER_LIMITS.filtersPerQuery);
    expect(capped.issues).toHaveLength(20 - FILTER_LIMITS.filtersPerQuery);
    expect(capped.issues[0]).toMatchObject({ type: 'too_many_filters' });
  });

  it('refuses date-times whose UTC form leaves years 0001-9999', () => {
    for (const v of ['9999-12-31T23:59:59-01:00', '0000-01-01T00:00:00+01:00']) {
      expect(parseFilters({ 'created_at.gte': v }, spec).issues, v).toMatchObject([{ loc: ['query', 'created_at.gte'], type: 'datetime_out_of_range' }]);
    }
    expect(parseFilters({ 'created_at.gte': '9999-12-31T23:59:59Z' }, spec).issues).toEqual([]);
  });

  it('an accepted query always compiles to an expression DynamoDB can hold', () => {
    const fields: FilterSpec = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`field_${i}`, { kind: 'string' } as const]));
    const query = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`field_${i}`, Array.from({ length: 60 }, (_, j) => `value-${j}`).join(',')]));
    const { conditions } = parseFilters(query, fields);
    const expr = toFilterExpression(conditions);
    expect(Buffer.byteLength(expr.FilterExpression ?? '')).toBeLessThan(4096);
    expect(Object.keys(expr.ExpressionAttributeValues ?? {}).length).toBeLessThanOrEqual(FILTER_LIMITS.valuesPerQuery);
  });

  it('a list field matches items whose list contains any value, and takes equality only', () => {
    const listSpec: FilterSpec = { capabilities: { kind: 'enum', values: ['voice', 'sms'], list: true } };
    const { conditions, issues } = parseFilters({ capabilities: 'sms,voice' }, listSpec);
    expect(issues).toEqual([]);
    const expr = toFilterExpression(conditions);
    expect(expr.FilterExpression).toBe('(contains(#f0, :v0) OR contains(#f0, :v1))');
    expect(expr.ExpressionAttributeValues).toEqual({ ':v0': 'sms', ':v1': 'voice' });
    expect(parseFilters({ 'capabilities.gte': 'sms' }, listSpec).issues).toMatchObject([
      { loc: ['query', 'capabilities.gte'], type: 'filter_operator_invalid' },
    ]);
  });
});
