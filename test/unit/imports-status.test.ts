import { describe, expect, it } from 'vitest';
import type { RowReason } from '../../shared/imports/row-mapping.js';
import { capErrors } from '../../shared/imports/run-import.js';
import { effectiveStatus, selectedStatuses, statusFilter } from '../../shared/repositories/import-jobs.js';

const now = new Date('2026-03-01T12:00:00.000Z');

describe('effective import status', () => {
  it('presents a running job whose lease has expired as failed (interrupted)', () => {
    expect(effectiveStatus({ status: 'running', lease_expires_at: '2026-03-01T12:00:30.000Z', failure_reason: null }, now)).toEqual({
      status: 'running',
      failure_reason: null,
    });
    expect(effectiveStatus({ status: 'running', lease_expires_at: '2026-03-01T11:59:59.000Z', failure_reason: null }, now)).toEqual({
      status: 'failed',
      failure_reason: 'interrupted',
    });
    expect(effectiveStatus({ status: 'completed', failure_reason: null }, now)).toEqual({ status: 'completed', failure_reason: null });
    expect(effectiveStatus({ status: 'failed', failure_reason: 'internal_error' }, now)).toEqual({ status: 'failed', failure_reason: 'internal_error' });
  });
});

describe('status filter on the effective status', () => {
  const eq = (...values: string[]) => ({ field: 'status', attribute: 'status', op: 'eq' as const, values });

  it('selects statuses by equality and by (lexicographic) range, ANDed', () => {
    expect([...selectedStatuses([eq('failed', 'completed')])].sort()).toEqual(['completed', 'failed']);
    expect([...selectedStatuses([{ field: 'status', attribute: 'status', op: 'gte', values: ['queued'] }])].sort()).toEqual(['queued', 'running']);
    expect([...selectedStatuses([eq('failed'), eq('completed')])]).toEqual([]);
  });

  it('counts an expired running job as failed and only a live one as running', () => {
    const iso = now.toISOString();
    expect(statusFilter(new Set(['failed']), iso)?.expression).toBe(
      '(#st = :st_failed OR (#st = :st_running AND (attribute_not_exists(#lease) OR #lease <= :st_now)))',
    );
    expect(statusFilter(new Set(['running']), iso)?.expression).toBe('(#st = :st_running AND #lease > :st_now)');
    expect(statusFilter(new Set(['running', 'failed']), iso)?.expression).toBe('(#st = :st_running OR #st = :st_failed)');
    expect(statusFilter(new Set(['completed']), iso)).toEqual({
      expression: '#st = :st_completed',
      names: { '#st': 'status' },
      values: { ':st_completed': 'completed' },
    });
    expect(statusFilter(new Set(['queued', 'running', 'completed', 'failed']), iso)).toBeUndefined();
    expect(statusFilter(new Set(), iso)?.expression).toBe('#st = :st_none');
  });
});

describe('capErrors', () => {
  const reason = (row: number): RowReason => ({ row, line: row + 1, field: 'email', type: 'value_error', msg: 'value is not a valid email address' });

  it('keeps the first reasons in row order and says when it cut', () => {
    const reasons = [5, 1, 3, 2, 4].map(reason);
    expect(capErrors(reasons, 3)).toEqual({ errors: [1, 2, 3].map(reason), truncated: true });
    expect(capErrors(reasons, 5).truncated).toBe(false);
  });

  it('also stops before the stored errors outgrow the job item', () => {
    const long = Array.from({ length: 1000 }, (_, i) => ({ ...reason(i + 1), msg: 'x'.repeat(300) }));
    const { errors, truncated } = capErrors(long);
    expect(truncated).toBe(true);
    expect(errors.length).toBeLessThan(1000);
    expect(JSON.stringify(errors).length).toBeLessThanOrEqual(150_000 + errors.length);
  });
});
