/**
 * The usage ledger (see docs/decisions/billing.md): append-only rows, one per meter per source, each written in
 * the transaction of the state change that makes its quantity final, with the period's
 * running totals ADDed in that same transaction:
 *   - a call's telephony minutes: the transition that first stores its duration
 *     (shared/repositories/call-lifecycle.ts outbound, calls.ts inbound);
 *   - speech, characters, tokens, GPU seconds: each runtime `usage` event, in the batch that
 *     stores the event (shared/repositories/runtime-events.ts);
 *   - SMS segments: an outbound text the carrier accepted (sent or delivered; messages.ts),
 *     an inbound text when it is stored (shared/messages/receive-message.ts).
 * Idempotent per source: the row key names the source and meter and is put if absent, and
 * the state change it rides on is conditional too, so a replayed callback never meters twice.
 * Quantities are exact decimal strings on the rows and DynamoDB numbers (38 significant
 * digits, exact decimal arithmetic) on the totals, written with NumberValue, read with
 * wrapNumbers: no float ever touches a quantity.
 *
 * A byo telephony account's carrier meters are billed by the tenant's carrier: no row. A
 * mock (sandbox) account's rows are settled `sandbox`: metered apart, never estimated or
 * invoiced.
 */
import { NumberValue, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { tableName } from '../db/client.js';
import { usageKeys, usagePartition } from '../db/keys.js';
import { queryCollection, rawCollectionPages } from '../db/query.js';
import { billableMinutes, isCarrierMeter, METERS, type Meter, type Settlement } from '../policy/billing/meters.js';
import { dayOf, periodOf } from '../policy/billing/period.js';
import { addQuantities, quantityString } from '../policy/billing/quantity.js';
import type { MeterTotals } from '../policy/billing/rating.js';
import { getTelephonyAccount } from './telephony-accounts.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface UsageFact {
  meter: Meter;
  /** A non-negative decimal string (or an integer); zero writes nothing. */
  quantity: string | number;
}

/** Where a quantity comes from: its kind and a deterministic id (no '#'). */
export interface UsageSource {
  kind: 'call' | 'call_event' | 'message';
  id: string;
  call_id?: string | null;
  message_id?: string | null;
}

/** How the rows of a telephony account's traffic are written. */
export interface UsageContext {
  settlement: Settlement;
  /** byo (not sandbox): the carrier meters are the tenant's carrier's to bill. */
  carrierBilled: boolean;
  telephony_account_id: string | null;
}

/** The context of a telephony account's usage (an unknown or absent account meters as billed, managed). */
async function usageContextOf(tenantId: string, telephonyAccountId: string | null | undefined): Promise<UsageContext> {
  const account = telephonyAccountId ? await getTelephonyAccount(tenantId, telephonyAccountId) : undefined;
  const sandbox = account?.provider === 'mock';
  return { settlement: sandbox ? 'sandbox' : 'billed', carrierBilled: !sandbox && account?.mode === 'byo', telephony_account_id: telephonyAccountId ?? null };
}

const sourceKey = (s: UsageSource) => `${s.kind}.${s.id}`;

/**
 * Each running total is split over this many items: a source ADDs to the shard its key
 * hashes to (FNV-1a), so one tenant's concurrent calls, batches and texts spread their
 * writes instead of all conflicting on one hot item; readers sum the shards (still one Query,
 * at most 2 settlements × 9 meters × 8 shards items, whatever the ledger holds).
 */
export const USAGE_TOTAL_SHARDS = 8;

/** The total shard a source writes to (deterministic: a replay names the same shard). */
export function totalShardOf(source: Pick<UsageSource, 'kind' | 'id'>): number {
  let h = 0x811c9dc5;
  for (const ch of sourceKey(source as UsageSource)) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % USAGE_TOTAL_SHARDS;
}

/**
 * The transaction items that meter `facts` from `source` at `at`: per meter, the row
 * (put if absent) and its period total (ADD quantity, count and the day's share).
 */
export function usageLedgerItems(tenantId: string, source: UsageSource, facts: readonly UsageFact[], ctx: UsageContext, at: Date): TransactItem[] {
  const period = periodOf(at);
  const day = dayOf(at);
  const items: TransactItem[] = [];
  const shard = totalShardOf(source);
  const seen = new Set<Meter>();
  for (const fact of facts) {
    if (seen.has(fact.meter)) throw new Error(`meter ${fact.meter} twice for one source`);
    seen.add(fact.meter);
    const q = quantityString(fact.quantity);
    if (q === null) throw new Error(`invalid quantity for ${fact.meter}`);
    if (q === '0') continue;
    if (ctx.carrierBilled && isCarrierMeter(fact.meter)) continue;
    items.push({
      Put: {
        TableName: tableName(),
        Item: {
          ...usageKeys.row(tenantId, period, sourceKey(source), fact.meter),
          type: 'usage_row',
          tenant_id: tenantId,
          period,
          meter: fact.meter,
          quantity: q,
          settlement: ctx.settlement,
          source_type: source.kind,
          source_id: source.id,
          call_id: source.call_id ?? null,
          message_id: source.message_id ?? null,
          telephony_account_id: ctx.telephony_account_id,
          at: at.toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
    items.push({
      Update: {
        TableName: tableName(),
        Key: usageKeys.total(tenantId, period, ctx.settlement, fact.meter, shard),
        UpdateExpression: 'SET #type = :type, meter = :meter, settlement = :settlement, #shard = :shard ADD quantity :q, event_count :one, #dq :q, #dc :one',
        ExpressionAttributeNames: { '#type': 'type', '#shard': 'shard', '#dq': `d${day}_quantity`, '#dc': `d${day}_count` },
        ExpressionAttributeValues: {
          ':type': 'usage_total',
          ':meter': fact.meter,
          ':settlement': ctx.settlement,
          ':shard': shard,
          ':q': NumberValue.from(q),
          ':one': 1,
        },
      },
    });
  }
  return items;
}

/** A runtime `usage` event's quantities, by meter. */
export function runtimeUsageFacts(event: {
  audio_seconds?: number;
  characters_spoken?: number;
  llm_input_tokens?: number;
  llm_cached_input_tokens?: number;
  llm_output_tokens?: number;
  gpu_seconds?: number;
}): UsageFact[] {
  // JSON numbers: their shortest decimal form is the value the runtime sent (1.1 stays "1.1").
  // Cached input tokens are part of the input (the schema bounds them by it): the uncached
  // rest is metered as prompt tokens, the cached part apart, so no token is billed twice.
  const prompt = event.llm_input_tokens === undefined ? undefined : Math.max(0, event.llm_input_tokens - (event.llm_cached_input_tokens ?? 0));
  const pairs: [Meter, number | undefined][] = [
    ['stt_audio_seconds', event.audio_seconds],
    ['tts_characters', event.characters_spoken],
    ['llm_prompt_tokens', prompt],
    ['llm_cached_prompt_tokens', event.llm_cached_input_tokens],
    ['llm_completion_tokens', event.llm_output_tokens],
    ['gpu_seconds', event.gpu_seconds],
  ];
  return pairs.filter((p): p is [Meter, number] => p[1] !== undefined).map(([meter, n]) => ({ meter, quantity: String(n) }));
}

export interface PeriodTotals {
  billed: MeterTotals;
  sandbox: MeterTotals;
  /** The totals of one day of the period (UTC), when asked for. */
  day: { billed: MeterTotals; sandbox: MeterTotals };
}

const numText = (v: unknown): string =>
  v && typeof v === 'object' && 'value' in v ? String((v as { value: unknown }).value) : typeof v === 'number' || typeof v === 'string' ? String(v) : '0';

/** The period's running totals: one Query of the total shards (at most 2 settlements × 9 meters × USAGE_TOTAL_SHARDS items), summed per meter. */
export async function readPeriodTotals(tenantId: string, period: string, day?: string): Promise<PeriodTotals> {
  type Sum = { q: string; n: number };
  const sums = { billed: new Map<Meter, Sum>(), sandbox: new Map<Meter, Sum>() };
  const days = { billed: new Map<Meter, Sum>(), sandbox: new Map<Meter, Sum>() };
  const add = (map: Map<Meter, Sum>, meter: Meter, q: unknown, n: unknown) => {
    const cur = map.get(meter) ?? { q: '0', n: 0 };
    map.set(meter, { q: addQuantities(cur.q, numText(q)), n: cur.n + Number(numText(n)) });
  };
  const pages = rawCollectionPages({ pk: usagePartition(tenantId, period), prefix: usageKeys.totalsPrefix }, { ConsistentRead: true });
  for await (const page of pages) {
    for (const raw of page.Items ?? []) {
      const item = unmarshall(raw, { wrapNumbers: true });
      const settlement = item.settlement as Settlement;
      const meter = item.meter as Meter;
      if (!METERS.includes(meter) || (settlement !== 'billed' && settlement !== 'sandbox')) continue;
      add(sums[settlement], meter, item.quantity, item.event_count);
      if (day && item[`d${day}_count`] !== undefined) add(days[settlement], meter, item[`d${day}_quantity`], item[`d${day}_count`]);
    }
  }
  // Registry order, like the recomputation's view.
  const view = (map: Map<Meter, Sum>): MeterTotals =>
    Object.fromEntries(METERS.filter((m) => map.has(m)).map((m) => [m, { quantity: map.get(m)!.q, event_count: map.get(m)!.n }]));
  return { billed: view(sums.billed), sandbox: view(sums.sandbox), day: { billed: view(days.billed), sandbox: view(days.sandbox) } };
}

/** Every row of the period, summed (the full recomputation the running totals must equal; for tests, audits, the bench). */
export async function recomputePeriodTotals(tenantId: string, period: string): Promise<{ billed: MeterTotals; sandbox: MeterTotals; rows: number }> {
  const sums: Record<Settlement, Partial<Record<Meter, { q: string; n: number }>>> = { billed: {}, sandbox: {} };
  const items = await queryCollection({ pk: usagePartition(tenantId, period), prefix: usageKeys.rowsPrefix }, { ConsistentRead: true });
  for (const item of items) {
    const s = sums[item.settlement as Settlement];
    const m = item.meter as Meter;
    const cur = s[m] ?? { q: '0', n: 0 };
    s[m] = { q: addQuantities(cur.q, item.quantity as string), n: cur.n + 1 };
  }
  const rows = items.length;
  const view = (s: (typeof sums)['billed']): MeterTotals => Object.fromEntries(Object.entries(s).map(([m, v]) => [m, { quantity: v!.q, event_count: v!.n }]));
  return { billed: view(sums.billed), sandbox: view(sums.sandbox), rows };
}

/** The rows a source wrote (tests and support: what a call or a message metered). */
export async function usageRowsOf(tenantId: string, period: string, source: Pick<UsageSource, 'kind' | 'id'>): Promise<Record<string, unknown>[]> {
  return queryCollection(
    { pk: usagePartition(tenantId, period), prefix: `${usageKeys.rowsPrefix}${sourceKey(source as UsageSource)}#` },
    { ConsistentRead: true },
  );
}

/**
 * The ledger items of a batch of runtime events (call-events.ts): the fresh `usage` events'
 * quantities, summed per meter into ONE row per meter whose source is the batch's first
 * fresh usage event (stored in the same transaction, so the key is new exactly once and a
 * resent batch, whose events are already stored, meters nothing). At most 12 items.
 */
export async function runtimeUsageLedgerItems(
  tenantId: string,
  call: { id: string; telephony_account_id?: string | null },
  events: readonly { id: string; type: string }[],
  at: Date,
): Promise<TransactItem[]> {
  const usage = events.filter((e) => e.type === 'usage') as unknown as (Parameters<typeof runtimeUsageFacts>[0] & { id: string })[];
  if (usage.length === 0) return [];
  const sums = new Map<Meter, string>();
  for (const e of usage) for (const f of runtimeUsageFacts(e)) sums.set(f.meter, addQuantities(sums.get(f.meter) ?? '0', f.quantity));
  const ctx = await usageContextOf(tenantId, call.telephony_account_id);
  const facts = METERS.filter((m) => sums.has(m)).map((meter) => ({ meter, quantity: sums.get(meter)! }));
  return usageLedgerItems(tenantId, { kind: 'call_event', id: `${call.id}.${usage[0]!.id}`, call_id: call.id }, facts, ctx, at);
}

/** A call's telephony minutes, in the transaction that first stores its duration. */
export async function callMinutesLedgerItems(
  tenantId: string,
  call: { id: string; telephony_account_id?: string | null },
  durationSeconds: number,
  at: Date,
): Promise<TransactItem[]> {
  const minutes = billableMinutes(durationSeconds);
  if (minutes === 0) return [];
  return usageLedgerItems(
    tenantId,
    { kind: 'call', id: call.id, call_id: call.id },
    [{ meter: 'telephony_minutes', quantity: minutes }],
    await usageContextOf(tenantId, call.telephony_account_id),
    at,
  );
}

/** A text's segments: an outbound one the carrier accepted, an inbound one when stored. */
export async function messageSegmentsLedgerItems(
  tenantId: string,
  message: { id: string; segments: number; telephony_account_id: string | null },
  at: Date,
): Promise<TransactItem[]> {
  if (!(message.segments > 0)) return [];
  return usageLedgerItems(
    tenantId,
    { kind: 'message', id: message.id, message_id: message.id },
    [{ meter: 'sms_segments', quantity: message.segments }],
    await usageContextOf(tenantId, message.telephony_account_id),
    at,
  );
}
