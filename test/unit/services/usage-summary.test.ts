/**
 * The period usage (shared/billing/usage-summary.ts) over the billing and usage-ledger stores:
 * the account, plan and telephony accounts from the in-memory table, the running totals (a
 * low-level Query, numbers read exactly) scripted as DynamoDB sends them.
 */
import { QueryCommand as RawQueryCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { periodUsage, usageSummary } from '../../../shared/billing/usage-summary.js';
import { keys, usageKeys, usagePartition } from '../../../shared/db/keys.js';
import { ddb, inputsOf, memoryTable } from '../../support/document-client-mock.js';

const table = memoryTable();
const T = 'ten_01JAAAAAAAAAAAAAAAAAAAAAAA';
const period = '2026-11';

const total = (settlement: string, meter: string, shard: number, quantity: string, n: number) => ({
  ...usageKeys.total(T, period, settlement, meter, shard),
  settlement,
  meter,
  quantity,
  event_count: n,
});

function totals(items: Record<string, unknown>[]) {
  ddb.on(RawQueryCommand).resolves({ Items: items.map((i) => marshall(i)) });
}

beforeEach(() => {
  table.reset();
  table.put({ ...keys.tenant(T), id: T, created_at: '2026-01-01T00:00:00.000Z' });
  table.put({ ...keys.telephonyAccount(T, 'tac_01JAAAAAAAAAAAAAAAAAAAAAAA'), mode: 'managed', provider: 'twilio' });
});

describe('periodUsage', () => {
  it('rates the billed totals (shards summed) on the tenant’s plan; a tenant with no stored account is on the default plan', async () => {
    totals([total('billed', 'telephony_minutes', 0, '70', 3), total('billed', 'telephony_minutes', 4, '50.5', 2)]);
    const usage = await periodUsage(T, period);
    expect(usage.plan.id).toBe('plan_starter');
    expect(usage.rated.mode).toBe('managed');
    const minutes = usage.rated.meters.find((m) => m.meter === 'telephony_minutes')!;
    // 120.5 minutes against the starter plan's 100 included.
    expect(minutes).toMatchObject({ quantity: '120.5', event_count: 5, included_quantity: '100', overage_quantity: '20.5' });
    expect(usage.periodStart.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(usage.periodEnd.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(inputsOf(RawQueryCommand)[0]).toMatchObject({ ConsistentRead: true, ExpressionAttributeValues: { ':pk': { S: usagePartition(T, period) } } });
  });

  it('sandbox totals are never rated: only noted as sandbox usage', async () => {
    totals([total('sandbox', 'telephony_minutes', 1, '500', 9)]);
    const withSandbox = await periodUsage(T, period);
    const minutes = withSandbox.rated.meters.find((m) => m.meter === 'telephony_minutes')!;
    expect(minutes).toMatchObject({ quantity: '0', event_count: 0 });
    totals([]);
    const without = await periodUsage(T, period);
    expect(withSandbox.rated.rated_total_minor).toBe(without.rated.rated_total_minor);
  });

  it('an unknown tenant is not_found, before any usage is read', async () => {
    totals([]);
    await expect(periodUsage('ten_01JZZZZZZZZZZZZZZZZZZZZZZZ', period)).rejects.toMatchObject({ kind: 'not_found' });
    expect(inputsOf(RawQueryCommand)).toHaveLength(0);
  });
});

describe('usageSummary', () => {
  it('presents the period, the mode, the currency and every meter in registry order', async () => {
    totals([total('billed', 'sms_segments', 2, '4', 4)]);
    const summary = await usageSummary(T, period);
    expect(summary).toMatchObject({ period, period_start: '2026-11-01T00:00:00.000Z', telephony_mode: 'managed', currency: 'usd' });
    expect(summary.meters.find((m) => m.meter === 'sms_segments')).toMatchObject({ quantity: '4', event_count: 4 });
    expect(summary.meters[0]!.meter).toBe('telephony_minutes');
  });
});
