/**
 * The usage ledger at volume (issue 15): a month of ledger rows written through the real
 * item builder (usageLedgerItems: each source's rows + the ADDs on the period totals, one
 * transaction), then GET /v1/usage/summary latency (it reads the running totals, O(meters)
 * items, whatever the row count) next to a full recomputation over every row.
 * `writeLedgerMonth` is shared with the e2e test that checks summary == recomputation.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../infra/local/stack.js';
import { createTenant } from '../../shared/admin/bootstrap.js';
import { METERS, type Meter } from '../../shared/billing/meters.js';
import { periodBounds } from '../../shared/billing/period.js';
import { db } from '../../shared/db/client.js';
import { recomputePeriodTotals, usageLedgerItems, type UsageContext } from '../../shared/repositories/usage-ledger.js';
import { fmt, percentile, pool } from './stats.js';

/** A small deterministic generator (mulberry32), so a run's rows can be written again. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const quantityFor = (meter: Meter, r: () => number): string => {
  switch (meter) {
    case 'stt_audio_seconds':
    case 'gpu_seconds':
      return (r() * 600).toFixed(3); // exact decimals with three places: no float drift allowed
    case 'telephony_minutes':
      return String(1 + Math.floor(r() * 30));
    default:
      return String(1 + Math.floor(r() * 5000));
  }
};

/**
 * Writes `rows` ledger rows for the tenant's `period`: sources of `metersPerSource` meters
 * (one transaction each, as a runtime batch or a call end commits them), spread over the
 * month's days; one source in ten is a sandbox one.
 */
export async function writeLedgerMonth(tenantId: string, period: string, rows: number, opts: { metersPerSource?: number; concurrency?: number; seed?: number } = {}): Promise<{ sources: number; rows: number; ms: number }> {
  const per = opts.metersPerSource ?? 3;
  const r = rng(opts.seed ?? 15);
  const { start, end } = periodBounds(period);
  const span = end.getTime() - start.getTime();
  const sources = Math.ceil(rows / per);
  const plan = Array.from({ length: sources }, (_, i) => {
    const count = Math.min(per, rows - i * per);
    const first = Math.floor(r() * METERS.length);
    const meters = Array.from({ length: count }, (_, k) => METERS[(first + k) % METERS.length]!);
    return { i, at: new Date(start.getTime() + Math.floor(r() * span)), sandbox: r() < 0.1, facts: meters.map((meter) => ({ meter, quantity: quantityFor(meter, r) })) };
  });
  const began = performance.now();
  await pool(plan, opts.concurrency ?? 8, async (s) => {
    const ctx: UsageContext = { settlement: s.sandbox ? 'sandbox' : 'billed', carrierBilled: false, telephony_account_id: null };
    await db().send(new TransactWriteCommand({ TransactItems: usageLedgerItems(tenantId, { kind: 'call_event', id: `bench.${s.i}` }, s.facts, ctx, s.at) }));
  });
  return { sources, rows, ms: performance.now() - began };
}

export interface LedgerFigures {
  rows: number;
  writeSeconds: number;
  rowsPerSecond: number;
  summaryP50: number;
  summaryP99: number;
  recomputeMs: number;
  agrees: boolean;
}

export async function measureUsageLedger(stack: LocalStack, rows = 100_000): Promise<LedgerFigures> {
  const t = await createTenant({ name: 'Ledger bench', adminEmail: 'ledger@bench.test' });
  const period = '2026-10';
  const written = await writeLedgerMonth(t.tenant_id, period, rows, { metersPerSource: 9, concurrency: 8 });
  const headers = { authorization: `Bearer ${t.api_key.secret}` };
  const summary = async () => {
    const res = await fetch(`${stack.baseUrl}/v1/usage/summary?period=${period}`, { headers });
    if (res.status !== 200) throw new Error(`GET /v1/usage/summary answered ${res.status}`);
    return (await res.json()) as { meters: { meter: string; quantity: string | null; event_count: number | null }[] };
  };
  for (let i = 0; i < 20; i++) await summary();
  const times: number[] = [];
  let last = await summary();
  for (let i = 0; i < 200; i++) {
    const s = performance.now();
    last = await summary();
    times.push(performance.now() - s);
  }
  const s = performance.now();
  const full = await recomputePeriodTotals(t.tenant_id, period);
  const recomputeMs = performance.now() - s;
  const agrees = full.rows === rows && last.meters.every((m) => (full.billed[m.meter as Meter]?.quantity ?? null) === m.quantity || (m.meter === 'telephony_minutes' && m.quantity === '0' && !full.billed.telephony_minutes));
  return { rows, writeSeconds: written.ms / 1000, rowsPerSecond: rows / (written.ms / 1000), summaryP50: percentile(times, 50), summaryP99: percentile(times, 99), recomputeMs, agrees };
}

export function printUsageLedger(f: LedgerFigures): void {
  console.log(`\nUsage ledger: ${f.rows.toLocaleString('en-US')} rows in one month`);
  console.log(`  written in ${fmt(f.writeSeconds)} s (${fmt(f.rowsPerSecond, 0)} rows/s, each source one transaction with its period-total ADDs)`);
  console.log(`  GET /v1/usage/summary: p50 ${fmt(f.summaryP50)} ms, p99 ${fmt(f.summaryP99)} ms (reads the running totals)`);
  console.log(`  full recomputation over every row: ${fmt(f.recomputeMs)} ms; summary agrees with it: ${f.agrees ? 'yes' : 'NO'}`);
}
