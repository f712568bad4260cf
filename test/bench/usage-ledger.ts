/**
 * The usage ledger at volume (see docs/decisions/billing.md): a month of ledger rows written through the real
 * item builder (usageLedgerItems: each source's rows + the ADDs on the period totals, one
 * transaction), then GET /v1/usage/summary latency (it reads the running totals, O(meters)
 * items, whatever the row count) next to a full recomputation over every row.
 * `writeLedgerMonth` is shared with the e2e test that checks summary == recomputation.
 */
import { isDeepStrictEqual } from 'node:util';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../infra/local/stack.js';
import { createTenant } from '../../shared/admin/bootstrap.js';
import { db } from '../../shared/db/client.js';
import { METERS, type Meter } from '../../shared/policy/billing/meters.js';
import { periodBounds } from '../../shared/policy/billing/period.js';
import { planById } from '../../shared/policy/billing/plans.js';
import { type MeterTotals, ratePeriod } from '../../shared/policy/billing/rating.js';
import { readPeriodTotals, recomputePeriodTotals, type UsageContext, usageLedgerItems } from '../../shared/repositories/usage-ledger.js';
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
export async function writeLedgerMonth(
  tenantId: string,
  period: string,
  rows: number,
  opts: { metersPerSource?: number; concurrency?: number; seed?: number } = {},
): Promise<{ sources: number; rows: number; ms: number }> {
  const per = opts.metersPerSource ?? 3;
  const r = rng(opts.seed ?? 15);
  const { start, end } = periodBounds(period);
  const span = end.getTime() - start.getTime();
  const sources = Math.ceil(rows / per);
  const plan = Array.from({ length: sources }, (_, i) => {
    const count = Math.min(per, rows - i * per);
    const first = Math.floor(r() * METERS.length);
    const meters = Array.from({ length: count }, (_, k) => METERS[(first + k) % METERS.length]!);
    return {
      i,
      at: new Date(start.getTime() + Math.floor(r() * span)),
      sandbox: r() < 0.1,
      facts: meters.map((meter) => ({ meter, quantity: quantityFor(meter, r) })),
    };
  });
  const began = performance.now();
  await pool(plan, opts.concurrency ?? 8, async (s) => {
    const ctx: UsageContext = { settlement: s.sandbox ? 'sandbox' : 'billed', carrierBilled: false, telephony_account_id: null };
    await db().send(new TransactWriteCommand({ TransactItems: usageLedgerItems(tenantId, { kind: 'call_event', id: `bench.${s.i}` }, s.facts, ctx, s.at) }));
  });
  return { sources, rows, ms: performance.now() - began };
}

/** What GET /v1/usage/summary answers (the fields the agreement compares). */
export interface SummaryBody {
  period: string;
  telephony_mode: string;
  rated_total_minor: number;
  billing_period_estimate: unknown;
  meters: unknown[];
}

/**
 * Where the running totals and the summary disagree with a full recomputation over every row:
 * the row count, both settlements' totals (quantity AND event_count, every meter), and the
 * whole summary (meters, estimate, rated total) against the rating of the recomputed totals.
 * Empty when they agree.
 */
export function ledgerDisagreements(input: {
  rows: number;
  full: { billed: MeterTotals; sandbox: MeterTotals; rows: number };
  totals: { billed: MeterTotals; sandbox: MeterTotals };
  summary: SummaryBody;
  planId?: string;
}): string[] {
  const { full, totals, summary } = input;
  const out: string[] = [];
  if (full.rows !== input.rows) out.push(`rows: ${full.rows} recomputed, ${input.rows} written`);
  for (const settlement of ['billed', 'sandbox'] as const) {
    if (!isDeepStrictEqual(totals[settlement], full[settlement]))
      out.push(`${settlement} totals: ${JSON.stringify(totals[settlement])} != recomputed ${JSON.stringify(full[settlement])}`);
  }
  const { start, end } = periodBounds(summary.period);
  const expected = ratePeriod({
    plan: planById(input.planId ?? 'plan_starter')!,
    telephonyMode: summary.telephony_mode as Parameters<typeof ratePeriod>[0]['telephonyMode'],
    totals: full.billed,
    hadSandboxUsage: Object.keys(full.sandbox).length > 0,
    periodStart: start,
    periodEnd: end,
  });
  if (!isDeepStrictEqual(summary.meters, expected.meters)) out.push('summary meters differ from the recomputation');
  if (!isDeepStrictEqual(summary.billing_period_estimate, expected.estimate)) out.push('summary estimate differs from the recomputation');
  if (summary.rated_total_minor !== expected.rated_total_minor) out.push(`rated_total_minor ${summary.rated_total_minor} != ${expected.rated_total_minor}`);
  return out;
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
    return (await res.json()) as SummaryBody;
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
  const disagreements = ledgerDisagreements({ rows, full, totals: await readPeriodTotals(t.tenant_id, period), summary: last });
  for (const d of disagreements) console.error(`  ledger disagreement: ${d}`);
  const agrees = disagreements.length === 0;
  return {
    rows,
    writeSeconds: written.ms / 1000,
    rowsPerSecond: rows / (written.ms / 1000),
    summaryP50: percentile(times, 50),
    summaryP99: percentile(times, 99),
    recomputeMs,
    agrees,
  };
}

export function printUsageLedger(f: LedgerFigures): void {
  console.log(`\nUsage ledger: ${f.rows.toLocaleString('en-US')} rows in one month`);
  console.log(`  written in ${fmt(f.writeSeconds)} s (${fmt(f.rowsPerSecond, 0)} rows/s, each source one transaction with its period-total ADDs)`);
  console.log(`  GET /v1/usage/summary: p50 ${fmt(f.summaryP50)} ms, p99 ${fmt(f.summaryP99)} ms (reads the running totals)`);
  console.log(`  full recomputation over every row: ${fmt(f.recomputeMs)} ms; summary agrees with it: ${f.agrees ? 'yes' : 'NO'}`);
}
