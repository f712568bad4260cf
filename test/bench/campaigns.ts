/**
 * A campaign (see docs/decisions/campaigns.md) on the local runtime with its workers and scheduler: 1,000 contacts
 * imported as a list (sandbox numbers that answer and reach the goal: short scripted
 * calls), a pool of 5 numbers, cps_limit 20, concurrency_cap 50. Reported: the wall time
 * from start to `completed` next to the least time the caps allow — max(N / cps,
 * N × mean call length / cap) — and, from the sandbox carrier's own records, the most calls
 * alive at once and the most dials created in any one-second window of its clock (sliding);
 * and where the time beyond the bound goes: the start to the first dial (the scrub), how full the
 * cap was kept while calls ran, how long a freed slot waited for its next dial, and the last
 * end to `completed`.
 * Beside it, every DynamoDB write the run makes is counted per partition key (a middleware on
 * the client, in the bench only): the hottest keys with their writes per second, to check the
 * capacity model (docs/capacity.md) against the code.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../infra/local/stack.js';
import { createTenant } from '../../shared/admin/bootstrap.js';
import { setClockOffsetForTests } from '../../shared/clock.js';
import { db, tableName } from '../../shared/db/client.js';
import { keys } from '../../shared/db/keys.js';
import { seedPlatformData } from '../../shared/seed/platform.js';
import { carrierCallsFrom } from './carrier-records.js';
import { countWritesPerPartition, type PartitionWrites } from './partition-writes.js';
import { fmt, maxInAnyWindow, percentile } from './stats.js';

export interface CampaignFigures {
  contacts: number;
  cps: number;
  cap: number;
  stepMs: number;
  scrubSeconds: number;
  /** Start → every contact judged (contacts_total reached the list; the scrub now goes on while the first pages dial). */
  scrubDoneSeconds: number;
  completedSeconds: number;
  meanCallSeconds: number;
  boundSeconds: number;
  maxInFlight: number;
  maxDialsPerSecond: number;
  /** Start → the carrier's first dial (s). */
  firstDialSeconds: number;
  /** The carrier's last end → the campaign seen `completed` (s). */
  lastEndSeconds: number;
  /** Calls alive on average from the first dial to the last end, over the cap (1: every slot always busy). */
  slotUse: number;
  /** A freed slot's wait: the k-th end (carrier clock) to the (k + cap)-th dial, once the cap is full (ms). */
  refillMs: { p50: number; p99: number; mean: number };
  dialed: number;
  completedGoal: number;
  /** The hottest partition keys of the run (start → completed), and the hottest single items. */
  hotKeys: PartitionWrites[];
  hotItems: PartitionWrites[];
  /** Every counter shard of the campaign, hot or not. */
  counterShards: PartitionWrites[];
}

/** A Wednesday 10:00 in New York after the wall clock (imported consents carry the real time). */
const allowedInstant = () => {
  let t = Date.parse('2026-11-18T15:00:00.000Z');
  while (t < Date.now() + 3_600_000) t += 7 * 86_400_000;
  return t;
};

/** A read is asked again when the local server dropped the connection (a kept-alive socket it closed under load); a write never is. */
async function fetchRetrying(url: string, init: Parameters<typeof fetch>[1], idempotent: boolean): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch (err) {
      if (!idempotent || attempt >= 5) throw err;
    }
  }
}

/** CAMPAIGN_BENCH_CONTACTS: a shorter run on a machine too loaded for a thousand calls within the deadline (the figures are ratios). */
const benchContacts = () => Number(process.env.CAMPAIGN_BENCH_CONTACTS) || 1000;

export async function measureCampaign(stack: LocalStack, total = benchContacts(), cps = 20, cap = 50): Promise<CampaignFigures> {
  await seedPlatformData();
  const t = await createTenant({ name: 'Bench campaign', adminEmail: 'campaign@bench.test' });
  const auth = { authorization: `Bearer ${t.api_key.secret}`, 'content-type': 'application/json' };
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetchRetrying(
      `${stack.baseUrl}${path}`,
      { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) },
      method === 'GET',
    );
    const json = await res.json();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json as Record<string, any>;
  };
  const account = await api('POST', '/v1/telephony-accounts', { mode: 'byo', provider: 'mock' });
  await api('POST', `/v1/telephony-accounts/${account.id}/verify`);
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.telephonyAccount(t.tenant_id, account.id),
      UpdateExpression: 'SET cps_limit = :c',
      ExpressionAttributeValues: { ':c': cps },
    }),
  );
  const numbers = [];
  for (let i = 0; i < 5; i++) numbers.push(await api('POST', '/v1/phone-numbers', { phone_e164: `+1212555920${i}`, telephony_account_id: account.id }));
  const profile = await api('POST', '/v1/compliance-profiles', {
    name: 'Bench reminders',
    call_purpose: 'informational',
    subject: 'appointment_reminders',
    seller_name: 'Acme Solar LLC',
  });
  const agent = await api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', {
    disclosure_config: { business_name: 'Acme Solar', opener: 'This call is from Acme Solar.' },
    compliance_profile_id: profile.id,
  });
  await api('POST', `/v1/agents/${agent.id}/publish`);
  const phones = Array.from({ length: total }, (_, i) => `+1212${String(3000000 + i).padStart(7, '0')}`);
  const imported = await api('POST', '/v1/contact-imports', {
    file_name: 'bench.csv',
    content: `Phone\r\n${phones.join('\r\n')}\r\n`,
    column_mapping: { Phone: 'phone_e164' },
    consent_attestation: { signer_name: 'Bench', signer_title: 'Ops', affirmation: 'They agreed in writing to reminder calls.', consent_basis: 'pewc' },
    list_name: 'Bench list',
    consent_scope: { purposes: ['appointment_reminders'] },
  });
  const pool = await api('POST', '/v1/number-pools', { name: 'Bench pool', phone_number_ids: numbers.map((n) => n.id) });
  const campaign = await api('POST', '/v1/campaigns', {
    name: 'Bench',
    agent_id: agent.id,
    target: { contact_list_id: imported.target_list_id },
    number_pool_id: pool.id,
    telephony_account_id: account.id,
    concurrency_cap: cap,
  });

  setClockOffsetForTests(allowedInstant() - Date.now());
  const writes = countWritesPerPartition(db());
  const started = performance.now();
  const startedWall = Date.now();
  await api('POST', `/v1/campaigns/${campaign.id}/start`);
  let scrubSeconds = NaN;
  let scrubDoneSeconds = NaN;
  let c: Record<string, any> = {};
  const deadline = performance.now() + Number(process.env.CAMPAIGN_BENCH_DEADLINE_S ?? 900) * 1000;
  while (performance.now() < deadline) {
    c = await api('GET', `/v1/campaigns/${campaign.id}`);
    if (Number.isNaN(scrubSeconds) && !['scrubbing', 'ready'].includes(c.status)) scrubSeconds = (performance.now() - started) / 1000;
    if (Number.isNaN(scrubDoneSeconds) && c.contacts_total === total) scrubDoneSeconds = (performance.now() - started) / 1000;
    if (c.status === 'completed') break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const completedSeconds = (performance.now() - started) / 1000;
  const completedWall = Date.now();
  const { partitions: hotKeys, items: hotItems, group: counterShards } = writes.stop(completedSeconds, /#CAMPAIGN#[^#]+#COUNTERS#\d+$/);
  if (c.status !== 'completed') throw new Error(`campaign not completed in time: ${JSON.stringify(c)}`);

  const calls = (await carrierCallsFrom(numbers.map((n) => n.phone_e164 as string))).map((x) => ({ created: x.created, ended: x.ended ?? Date.now() }));
  const events = calls
    .flatMap((x) => [
      { at: x.created, d: 1 },
      { at: x.ended, d: -1 },
    ])
    .sort((a, b) => a.at - b.at || a.d - b.d);
  let alive = 0;
  let maxInFlight = 0;
  for (const e of events) {
    alive += e.d;
    maxInFlight = Math.max(maxInFlight, alive);
  }
  const meanCallSeconds = calls.reduce((s, x) => s + (x.ended - x.created), 0) / calls.length / 1000;
  const creates = calls.map((x) => x.created).sort((a, b) => a - b);
  const ends = calls.map((x) => x.ended).sort((a, b) => a - b);
  const firstDial = creates[0]!;
  const lastEnd = ends.at(-1)!;
  const aliveMs = calls.reduce((s, x) => s + (x.ended - x.created), 0);
  // Once the cap is full, the (k + cap)-th dial can only follow the k-th end: the gap is the refill's latency.
  const refills: number[] = [];
  for (let k = 0; k + cap < creates.length; k++) refills.push(creates[k + cap]! - ends[k]!);
  setClockOffsetForTests(0);
  return {
    contacts: total,
    cps,
    cap,
    stepMs: Number(process.env.SANDBOX_STEP_MS),
    scrubSeconds,
    scrubDoneSeconds,
    completedSeconds,
    meanCallSeconds,
    boundSeconds: Math.max(total / cps, (total * meanCallSeconds) / cap),
    maxInFlight,
    maxDialsPerSecond: maxInAnyWindow(calls.map((x) => x.created)),
    firstDialSeconds: (firstDial - startedWall) / 1000,
    lastEndSeconds: (completedWall - lastEnd) / 1000,
    slotUse: aliveMs / (cap * (lastEnd - firstDial)),
    refillMs: { p50: percentile(refills, 50), p99: percentile(refills, 99), mean: refills.reduce((a, b) => a + b, 0) / Math.max(1, refills.length) },
    dialed: c.dialed,
    completedGoal: c.completed_goal,
    hotKeys,
    hotItems,
    counterShards,
  };
}

export function printCampaign(f: CampaignFigures): void {
  console.log(`\n## Campaign: ${f.contacts} contacts, cps_limit ${f.cps}, concurrency_cap ${f.cap}, SANDBOX_STEP_MS ${f.stepMs}`);
  console.log(
    `scrub (start → running)          ${fmt(f.scrubSeconds)} s   (start → every contact judged ${fmt(f.scrubDoneSeconds)} s; dials begin after the first page)`,
  );
  console.log(
    `start → completed                 ${fmt(f.completedSeconds)} s   (bound the caps impose: ${fmt(f.boundSeconds)} s = max(${f.contacts}/${f.cps}, ${f.contacts} × ${fmt(f.meanCallSeconds, 2)} s / ${f.cap}); bound/actual ${fmt(f.boundSeconds / f.completedSeconds, 2)})`,
  );
  console.log(`max calls alive at the carrier    ${f.maxInFlight}   (cap ${f.cap})`);
  console.log(`max dials in any 1-second window  ${f.maxDialsPerSecond}   (cps_limit ${f.cps}; the carrier's clock, sliding)`);
  console.log(`dialed ${f.dialed}, completed_goal ${f.completedGoal}`);
  console.log(
    `where the time goes: start → first dial ${fmt(f.firstDialSeconds)} s; calls alive ${fmt(f.slotUse, 3)} of the cap on average from the first dial to the last end; a freed slot's next dial (the k-th end → the (k + cap)-th dial, carrier clock) p50 ${fmt(f.refillMs.p50, 0)} ms, p99 ${fmt(f.refillMs.p99, 0)} ms, mean ${fmt(f.refillMs.mean, 0)} ms; last end → completed ${fmt(f.lastEndSeconds)} s`,
  );
  console.log('hottest partition keys, start → completed (writes: items written, each item of a transaction counts; WCU: 1 KB units, ×2 in a transaction):');
  const line = (k: PartitionWrites) =>
    console.log(
      `  ${k.partition.padEnd(64)} ${String(k.writes).padStart(6)} writes  ${fmt(k.writesPerSecond).padStart(6)}/s mean  ${String(k.peakPerSecond).padStart(4)}/s peak (1-s window)  ~${fmt(k.wcuPerSecond).padStart(6)} WCU/s mean`,
    );
  for (const k of f.hotKeys) line(k);
  // The counters an attempt moves (launch, dial, end) live on shards of their own keys (docs/capacity.md): each should take its share.
  console.log(
    `the campaign's counter shards (${f.counterShards.length} keys; the campaign item itself is among the items below only for its lease and moves):`,
  );
  for (const k of f.counterShards) line(k);
  console.log(`hottest single items (one item never splits over partitions; per attempt: writes / ${f.contacts} contacts):`);
  for (const k of f.hotItems) line(k);
}
