import { describe, expect, it } from 'vitest';
import { filterScope, parseFilters, toFilterExpression, type FilterSpec } from '../../shared/pagination/filters.js';

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
    const { issues } = parseFilters({ colour: 'red', status: 'queued,bogus', 'created_at.gte': 'last week', 'has_outcome.gte': 'true', has_outcome: 'yes' }, spec);
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
    expect(expr.FilterExpression).toBe('#f0 = :f0_0 AND (#f1 = :f1_0 OR #f1 = :f1_1)');
    expect(expr.ExpressionAttributeNames).toEqual({ '#f0': 'has_outcome', '#f1': 'status' });
    expect(expr.ExpressionAttributeValues).toEqual({ ':f0_0': true, ':f1_0': 'queued', ':f1_1': 'failed' });
    expect(toFilterExpression([])).toEqual({});
  });

  it('gives the same scope for the same query in any parameter order', () => {
    const a = parseFilters({ status: 'queued', 'created_at.gte': '2026-01-01' }, spec).conditions;
    const b = parseFilters({ 'created_at.gte': '2026-01-01', status: 'queued' }, spec).conditions;
    expect(filterScope(a)).toBe(filterScope(b));
    expect(filterScope(a)).not.toBe(filterScope(parseFilters({ status: 'failed' }, spec).conditions));
  });
});
