/**
 * Queue and dispatch (see docs/decisions/dispatch-and-carrier.md) on the local runtime with its workers and scheduler:
 *
 *  1. POST /v1/calls p50/p99 and DynamoDB calls per queued call, for deferred calls (no
 *     dispatch follows) and for allowed ones (the dispatch enqueue is in the request). Only
 *     the calls the POST handler itself makes are counted: the route runs inside an
 *     AsyncLocalStorage scope (request-scope.ts), so the scheduler's ticks and the workers'
 *     calls meanwhile are left out (and reported apart). The dispatch and analysis workers
 *     and the sandbox carrier's timeline are held while these are timed (`workers.hold`):
 *     they run in the same process, and each allowed call's dial (its judgement, the
 *     carrier's timeline) would otherwise be timed as the route's own latency; the allowed
 *     ones, timed after the 500 of part 3, start once the stack is quiet (those calls'
 *     status callbacks would otherwise share the event loop with the route);
 *     the POSTs go through http-client.ts (node:http, keep-alive): the client's own CPU is
 *     on the same event loop and would be counted as the route's;
 *  2. next to each POST, a raw TransactWriteItems of the same items, same sizes and
 *     conditions (rawBaseline: the phase's own queue transaction, captured, replayed with
 *     fresh ids and rebuilt keys for the contact the POST calls). Raw and POST alternate one
 *     by one (which goes first alternates too), so the pollers' background and the machine's
 *     load, which drift over seconds, weigh on both alike; the ratio's spread over the pairs
 *     is printed with it;
 *  3. 500 calls queued to a mix of sandbox test numbers — answered by a person (555-0100,
 *     0110), busy (0120), no answer (0121) and a machine (0122) — on an account with
 *     cps_limit 10: the time until every one is dialled (the carrier's own record of the last
 *     dial) and every one is terminal, next to the least time the cap allows (500 / 10 s), and
 *     the most dials the carrier saw in any one-second window of its clock (sliding); and
 *     where a lane's cycle goes (the send to the carrier's stamp when it answers one — else its
 *     answer —, the second after it, the time the lane lay free), from the pacer's own writes.
 */
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../infra/local/stack.js';
import { createTenant } from '../../shared/admin/bootstrap.js';
import { now, setClockOffsetForTests } from '../../shared/clock.js';
import { batchGetMany, itemAt } from '../../shared/db/batch-get.js';
import { db, tableName } from '../../shared/db/client.js';
import { callKeys, contactKeys, dispatchKeys, keys, outboxKeys, webhookKeys } from '../../shared/db/keys.js';
import { newId } from '../../shared/ids.js';
import { type CallState, isTerminal } from '../../shared/policy/call-state/machine.js';
import { laneRelease } from '../../shared/policy/dial-pacing.js';
import { seedPlatformData } from '../../shared/seed/platform.js';
import { carrierCallsFrom } from './carrier-records.js';
import { type ProfileSummary, startCpuProfile } from './cpu-profile.js';
import { requestJson } from './http-client.js';
import { inRoute } from './request-scope.js';
import { fmt, maxInAnyWindow, percentile, perSecond, pool } from './stats.js';

/** Background DynamoDB calls in a second below which the stack counts as quiet for timing a route. */
const QUIET_CALLS_PER_SECOND = 5;

/** The stack must serve this route through request-scope.ts's scopedRoute (bin/bench.ts does). */
const ROUTE = 'queueCall';
/** The scope the raw baseline's transactions run in: neither the route's calls nor the background. */
const RAW = 'rawBaseline';

/** The test numbers of the run and what the sandbox does with them (README "Sandbox test numbers"). */
const MIX = [
  { sub: '5550100', what: 'answered, goal' },
  { sub: '5550110', what: 'answered, no goal' },
  { sub: '5550120', what: 'busy' },
  { sub: '5550121', what: 'no answer' },
  { sub: '5550122', what: 'machine' },
] as const;
const AREA_CODES = ['212', '718', '917', '646', '347', '929', '516', '914', '631', '845'];

interface Latency {
  p50: number;
  p99: number;
  /** The POSTs' middle half (p25–p75). */
  p25: number;
  p75: number;
  /** The raw transaction timed next to each POST (rawBaseline), and its template's size. */
  raw: { p25: number; p50: number; p75: number; p99: number; items: number; bytes: number };
  /** Each pair's POST ÷ raw: p10, p50, p90. */
  pairRatio: { p10: number; p50: number; p90: number };
  /** DynamoDB calls the POST handler made, per request. */
  dynamoCalls: number;
  /** DynamoDB calls others (scheduler ticks, workers) made in the same window: not counted. */
  background: number;
  /** The background's biggest sources: command, index and key kind, with their calls. */
  backgroundTop: [string, number][];
}

export interface CallsFigures {
  calls: number;
  cps: number;
  stepMs: number;
  queuedSeconds: number;
  floorSeconds: number;
  allDialledSeconds: number;
  /** The most dials the carrier created in any one-second window of its clock. */
  maxDialsPerSecond: number;
  /** Dials the carrier created in each second from its first one (its clock), grants the pacer gave in each second from the first. */
  dialsBySecond: number[];
  dialSpanSeconds: number;
  queuedAfterFirstDialSeconds: number;
  grantsBySecond: number[];
  /** Lane takes that went through, and those refused (the lane still held: the dispatcher waited and asked again). */
  laneTakes: number;
  laneRefusals: number;
  /**
   * Each lane's use, from its writes: send → the instant its release counts from (the carrier's
   * stamp when it answered one, else its answer) (ms); send → the carrier's answer, when the
   * release was written (ms); send → the next send on the lane (the cycle, ms); and the lane's
   * idle time between a release and the next send (ms).
   */
  laneHeldMs: { p50: number; p99: number };
  laneAnswerMs: { p50: number; p99: number };
  laneCycleMs: { p50: number; mean: number };
  laneIdleMs: { p50: number; mean: number; total: number };
  /** The event loop's delay while the 500 were queued and dialled (everything shares it: routes, workers, the sandbox carrier). */
  loopDelayMs: { p50: number; p99: number };
  /** With BENCH_CPU_PROFILE=<dir>: the dispatch phase's CPU profile, summarised. */
  profile?: ProfileSummary;
  terminal: number;
  allTerminalSeconds: number | null;
  byState: Record<string, number>;
  /** The calls that ended `failed`, by end_reason. */
  failedReasons: Record<string, number>;
  /** Dials in the carrier's records: fewer than the calls when some failed before reaching it, more only if one was dialled twice. */
  carrierDials: number;
  /** POSTs answered 5xx (a route timing out under load) and sent again with the same Idempotency-Key. */
  retried: number;
  deferred: Latency;
  allowed: Latency;
  /** With BENCH_CPU_PROFILE=<dir>: the allowed POSTs' phase (raw replays and the background included), summarised. */
  postProfile?: ProfileSummary;
  /** How long the stack took to go quiet before the allowed calls were timed, and its background calls in the last second waited. */
  quiet: { seconds: number; lastSecondCalls: number };
}

const setClock = (iso: string) => setClockOffsetForTests(Date.parse(iso) - Date.now());
type Txn = NonNullable<TransactWriteCommandInput['TransactItems']>;

/** Holds and releases the workers that would share the event loop with the route — dispatch, analysis and the sandbox carrier's timeline (bin/bench.ts gates them). */
export interface WorkerGate {
  hold(): void;
  release(): void;
}

export async function measureCalls(stack: LocalStack, workers: WorkerGate = { hold() {}, release() {} }, total = 500, cps = 10): Promise<CallsFigures> {
  await seedPlatformData();
  const t = await createTenant({ name: 'Bench calls', adminEmail: 'calls@bench.test' });
  const auth = { authorization: `Bearer ${t.api_key.secret}`, 'content-type': 'application/json' };
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const { status, json } = await requestJson(stack.baseUrl, method, path, { headers: { ...auth, ...headers }, body });
    if (status >= 300) throw new Error(`${method} ${path} answered ${status}: ${JSON.stringify(json)}`);
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
  const FROM = '+12125559100';
  await api('POST', '/v1/phone-numbers', { phone_e164: FROM, telephony_account_id: account.id });
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
  const evidence = { artifact_type: 'web_form', artifact_ref: 'https://bench.test/1', content_hash: 'a'.repeat(64) };
  // Every scenario of the mix in every New York area code, called in turn.
  const contacts: Record<string, any>[] = [];
  for (const npa of AREA_CODES) {
    for (const m of MIX)
      contacts.push(
        await api('POST', '/v1/contacts', {
          phone_e164: `+1${npa}${m.sub}`,
          consent: { consent_basis: 'pewc', captured_at: '2026-01-01T00:00:00Z', scope: { purposes: ['appointment_reminders'] }, evidence },
        }),
      );
  }
  // A 5xx (the route timed out on a loaded machine) is sent again with the same key, as a client would: the key makes it safe.
  let retried = 0;
  const queue = async (i: number) => {
    const key = randomUUID();
    for (let tries = 1; ; tries++) {
      try {
        return await api('POST', '/v1/calls', { agent_id: agent.id, contact_id: contacts[i % contacts.length]!.id }, { 'idempotency-key': key });
      } catch (err) {
        if (tries >= 4 || !/ answered 5\d\d/.test((err as Error).message)) throw err;
        retried++;
      }
    }
  };
  const time = async (fn: () => Promise<unknown>) => {
    const s = performance.now();
    await fn();
    return performance.now() - s;
  };

  // Counting: the route's own calls and everyone else's, apart (the raw baseline's are neither); and, while `capturing`, the route's next queue transaction kept as the raw baseline's template.
  let counting = false;
  let capturing = false;
  const backgroundBy = new Map<string, number>();
  let own = 0;
  let others = 0;
  let template: Txn | undefined;
  // The pacer's writes during the dispatch run: grants (the account's PACE item) and lane takes (its LANE# items).
  let pacing = false;
  const grantTimes: number[] = [];
  let laneTakes = 0;
  let laneRefusals = 0;
  // Per lane, in the order written: a take (its send instant) or a release (the instant it frees, and when it was written), on the dispatchers' clock.
  const laneUse = new Map<string, { take?: number; release?: number; written?: number }[]>();
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Key?: { sk?: unknown }; UpdateExpression?: string; ExpressionAttributeValues?: Record<string, number> };
      const sk = input.Key?.sk;
      const lane = typeof sk === 'string' && sk.startsWith('LANE#');
      const take = lane && input.UpdateExpression?.startsWith('SET #at');
      const release = lane && input.UpdateExpression?.startsWith('SET #release');
      if (pacing && (sk === 'PACE' || lane)) {
        try {
          const out = await next(args);
          const uses = laneUse.get(sk as string) ?? laneUse.set(sk as string, []).get(sk as string)!;
          if (take) {
            laneTakes++;
            uses.push({ take: input.ExpressionAttributeValues?.[':at'] });
          } else if (release) {
            uses.push({ release: input.ExpressionAttributeValues?.[':release'], written: now().getTime() });
          } else grantTimes.push(Date.now());
          return out;
        } catch (err) {
          if (take) laneRefusals++;
          throw err;
        }
      }
      const scope = inRoute.getStore();
      const mine = scope === ROUTE;
      if (scope === RAW) return next(args);
      if (counting) mine ? own++ : others++;
      if (counting && !mine) {
        // Whose: the command and the key's or index's kind (the part of the pk before its ids), so the background can be named.
        const req = args.input as { Key?: { pk?: unknown }; IndexName?: string; TableName?: string; ExpressionAttributeValues?: Record<string, unknown> };
        const pk =
          typeof req.Key?.pk === 'string'
            ? req.Key.pk
            : (Object.values(req.ExpressionAttributeValues ?? {}).find((v) => typeof v === 'string' && /#/.test(v)) as string | undefined);
        const what = `${context.commandName} ${req.IndexName ?? ''} ${(pk ?? '').split('#').slice(0, 3).join('#')}`;
        backgroundBy.set(what, (backgroundBy.get(what) ?? 0) + 1);
      }
      const items = (args.input as TransactWriteCommandInput).TransactItems;
      if (mine && capturing && items?.some((i) => i.Put?.Item?.type === 'call')) {
        template = structuredClone(items);
        capturing = false;
      }
      return next(args);
    },
    { step: 'initialize', name: 'benchCallsCounter' },
  );
  /** Waits (at most a minute) for a second with almost no background DynamoDB calls; the last second's count. */
  const untilQuiet = async (): Promise<number> => {
    const deadline = performance.now() + 60_000;
    counting = true;
    try {
      for (;;) {
        others = 0;
        await new Promise((r) => setTimeout(r, 1000));
        if (others <= QUIET_CALLS_PER_SECOND || performance.now() > deadline) return others;
      }
    } finally {
      counting = false;
    }
  };
  /** Warms the route up with `n` POSTs and keeps the queue transaction of one of them (the phase's raw template). */
  const warm = async (n: number): Promise<Txn> => {
    template = undefined;
    capturing = true;
    for (let i = 0; i < n; i++) await queue(i);
    capturing = false;
    if (!template) throw new Error('no queue transaction was captured');
    return template;
  };
  /** `n` POSTs, each paired with a raw replay of `txn` to the same contact (rawBaseline); the one that goes first alternates. */
  const measure = async (n: number, txn: Txn): Promise<Latency> => {
    const raw = rawBaseline(txn);
    own = 0;
    others = 0;
    backgroundBy.clear();
    counting = true;
    const times: number[] = [];
    const rawTimes: number[] = [];
    for (let i = 0; i < n; i++) {
      const items = raw.next(contacts[i % contacts.length] as { id: string; phone_e164: string });
      const post = () => time(() => queue(i));
      const commit = () => inRoute.run(RAW, () => time(() => db().send(new TransactWriteCommand({ TransactItems: items }))));
      if (i % 2 === 0) {
        times.push(await post());
        rawTimes.push(await commit());
      } else {
        rawTimes.push(await commit());
        times.push(await post());
      }
    }
    counting = false;
    const top = [...backgroundBy].sort((a, b) => b[1] - a[1]).slice(0, 6);
    const ratios = times.map((t, i) => t / rawTimes[i]!);
    return {
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      p25: percentile(times, 25),
      p75: percentile(times, 75),
      raw: {
        p25: percentile(rawTimes, 25),
        p50: percentile(rawTimes, 50),
        p75: percentile(rawTimes, 75),
        p99: percentile(rawTimes, 99),
        items: txn.length,
        bytes: JSON.stringify(txn).length,
      },
      pairRatio: { p10: percentile(ratios, 10), p50: percentile(ratios, 50), p90: percentile(ratios, 90) },
      dynamoCalls: own / n,
      background: others,
      backgroundTop: top,
    };
  };

  // 1a. Deferred calls (Mon 22:00 in New York, due Tue 08:00): no dispatch follows. The workers are held for every timed request.
  workers.hold();
  setClock('2026-11-17T03:00:00.000Z');
  const deferred = await measure(200, await warm(20));

  // 3. 500 calls at an allowed time (Mon 10:00 in New York, before the deferred ones fall due), 10 in flight, while the workers dial.
  setClock('2026-11-16T15:00:00.000Z');
  workers.release();
  pacing = true;
  const profileDir = process.env.BENCH_CPU_PROFILE;
  const profiling = profileDir ? await startCpuProfile(profileDir, 'calls-dispatch') : undefined;
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const started = performance.now();
  const startedWall = Date.now();
  const ids: string[] = new Array<string>(total);
  await pool(
    Array.from({ length: total }, (_, i) => i),
    10,
    async (i) => {
      ids[i] = (await queue(i)).call_id as string;
    },
  );
  const queuedSeconds = (performance.now() - started) / 1000;
  const queuedWall = Date.now();
  type Seen = { state: CallState; provider_call_sid: string | null; end_reason: string | null } | undefined;
  /** The open calls' states, 100 to a BatchGetItem: one GetItem each kept the event loop the dispatchers share busy with the bench's own polling. */
  const readStates = async (open: number[]): Promise<Seen[]> => {
    const keys = open.map((i) => callKeys.call(t.tenant_id, ids[i]!));
    const found = await batchGetMany(keys, { fields: ['state', 'provider_call_sid', 'end_reason'] });
    return keys.map((k) => itemAt(found, k) as Seen);
  };
  let allDialledSeconds = NaN;
  let allTerminalSeconds: number | null = null;
  let terminal = 0;
  let byState: Record<string, number> = {};
  const deadline = performance.now() + Math.max(240_000, (total / cps) * 4000);
  // Only the calls not yet terminal are read again: reading all 500 every 250 ms was itself
  // thousands of reads a second on the same DynamoDB Local the dispatchers use.
  const states = new Array<Seen>(ids.length);
  while (performance.now() < deadline) {
    const open = ids.flatMap((_, i) => (states[i] && isTerminal(states[i]!.state) ? [] : [i]));
    for (const [k, seen] of (await readStates(open)).entries()) states[open[k]!] = seen;
    const dialled = states.filter((s) => s && (s.provider_call_sid || isTerminal(s.state))).length;
    terminal = states.filter((s) => s && isTerminal(s.state)).length;
    byState = {};
    for (const s of states) byState[s?.state ?? 'missing'] = (byState[s?.state ?? 'missing'] ?? 0) + 1;
    if (dialled === ids.length && Number.isNaN(allDialledSeconds)) allDialledSeconds = (performance.now() - started) / 1000;
    if (terminal === ids.length && !Number.isNaN(allDialledSeconds)) {
      allTerminalSeconds = (performance.now() - started) / 1000;
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  // The carrier's own clock: when the last dial reached it (not when a poll of ours noticed), and its busiest second.
  loopDelay.disable();
  const cpuProfile = await profiling?.stop();
  const dials = (await carrierCallsFrom([FROM])).map((c) => c.created);
  if (dials.length === total) allDialledSeconds = (Math.max(...dials) - startedWall) / 1000;
  const maxDialsPerSecond = maxInAnyWindow(dials);
  pacing = false;
  const held: number[] = [];
  const answered: number[] = [];
  const cycle: number[] = [];
  const idle: number[] = [];
  for (const uses of laneUse.values()) {
    for (let i = 0; i + 1 < uses.length; i++) {
      const a = uses[i]!;
      const b = uses[i + 1]!;
      // take → release: the release is the stamp (or the answer) + the second and the guard; release → take: the lane lay free.
      // (A release at the take's own instant is a lane given back unused: no answer to time.)
      const used = a.take !== undefined && b.release !== undefined && b.release - a.take >= laneRelease(0);
      if (used) {
        held.push(b.release! - a.take! - laneRelease(0));
        answered.push(b.written! - a.take!);
        const c = uses[i + 2];
        if (c?.take !== undefined) cycle.push(c.take - a.take!);
      }
      if (a.release !== undefined && b.take !== undefined) idle.push(Math.max(0, b.take - a.release));
    }
  }

  const failedReasons: Record<string, number> = {};
  for (const s of states) if (s?.state === 'failed') failedReasons[s.end_reason ?? 'none'] = (failedReasons[s.end_reason ?? 'none'] ?? 0) + 1;

  // 1b. Allowed calls, one at a time: the dispatch enqueue is in each request; the dials wait until they are timed.
  // The sandbox carrier's timeline is held too (the run's calls still playing would post their
  // status callbacks into the same event loop), and the timing starts once the stack is quiet.
  workers.hold();
  const allowedTemplate = await warm(20);
  const quietStarted = performance.now();
  const backgroundBefore = await untilQuiet();
  const quietSeconds = (performance.now() - quietStarted) / 1000;
  const postProfiling = profileDir ? await startCpuProfile(profileDir, 'calls-post') : undefined;
  const allowed = await measure(200, allowedTemplate);
  const postProfile = await postProfiling?.stop();
  workers.release();

  setClockOffsetForTests(0);
  return {
    calls: total,
    cps,
    stepMs: Number(process.env.SANDBOX_STEP_MS) || 500,
    queuedSeconds,
    floorSeconds: total / cps,
    allDialledSeconds,
    maxDialsPerSecond,
    dialsBySecond: perSecond(dials),
    dialSpanSeconds: (Math.max(...dials) - Math.min(...dials)) / 1000,
    queuedAfterFirstDialSeconds: (queuedWall - Math.min(...dials)) / 1000,
    grantsBySecond: perSecond(grantTimes),
    laneTakes,
    laneRefusals,
    laneHeldMs: { p50: percentile(held, 50), p99: percentile(held, 99) },
    laneAnswerMs: { p50: percentile(answered, 50), p99: percentile(answered, 99) },
    laneCycleMs: { p50: percentile(cycle, 50), mean: cycle.reduce((a, b) => a + b, 0) / Math.max(1, cycle.length) },
    laneIdleMs: { p50: percentile(idle, 50), mean: idle.reduce((a, b) => a + b, 0) / Math.max(1, idle.length), total: idle.reduce((a, b) => a + b, 0) },
    loopDelayMs: { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6 },
    profile: cpuProfile,
    terminal,
    allTerminalSeconds,
    byState,
    failedReasons,
    carrierDials: dials.length,
    retried,
    deferred,
    allowed,
    postProfile,
    quiet: { seconds: quietSeconds, lastSecondCalls: backgroundBefore },
  };
}

/** A stored item's fields as the key builders read them (every one a string). */
type StoredItem = Record<string, string> & { event?: Record<string, string> };

/**
 * The keys of each item of a queue transaction, by its `type`, rebuilt with the builders the
 * route's stores use (shared/db/keys.ts). Several are derived from ids: the outbox marker's
 * partition and the event's webhook due index carry a shard of the event id's hash, the due
 * item's partition a shard of the call id's, the attempt's partition is the contact's.
 */
const KEYS_OF: Record<string, (item: StoredItem, ctx: { tenantId: string; idempotencyKey: string }) => Record<string, string>> = {
  call: (i) => ({ ...callKeys.call(i.tenant_id!, i.id!), ...callKeys.callIndex(i.tenant_id!, i.id!) }),
  contact_attempt: (i) => contactKeys.attempt(i.tenant_id!, i.contact_id!, i.id!),
  event: ({ event: e }) => ({ ...outboxKeys.event(e!.tenant_id!, e!.id!), ...webhookKeys.dueIndex(e!.created_at!, e!.tenant_id!, e!.id!) }),
  outbox_pending: (i) => outboxKeys.pending(i.event_id!),
  dispatch_due: (i) => dispatchKeys.due(i.scheduled_for!, i.tenant_id!, i.call_id!),
  idempotency: (_, c) => keys.idempotency(c.tenantId, ROUTE, c.idempotencyKey),
};
const KEY_ATTRIBUTE = /^(pk|sk|gsi\d+(pk|sk))$/;

/** `items` with every key rebuilt from the item's own fields; throws on an item or a key attribute it cannot rebuild. */
function rekey(items: Txn, ctx: { tenantId: string; idempotencyKey: string }): Txn {
  return items.map((i) => {
    const item = i.Put?.Item as StoredItem | undefined;
    const keysOf = item && KEYS_OF[item.type!];
    if (!item || !keysOf) throw new Error(`rawBaseline cannot rebuild the keys of ${JSON.stringify(item?.type ?? Object.keys(i))}`);
    const rebuilt = keysOf(item, ctx);
    const stale = Object.keys(item).filter((k) => KEY_ATTRIBUTE.test(k) && !(k in rebuilt));
    if (stale.length) throw new Error(`rawBaseline does not rebuild ${stale.join(', ')} of a ${item.type} item`);
    return { ...i, Put: { ...i.Put!, Item: { ...item, ...rebuilt } } };
  });
}

/**
 * A captured queue transaction, replayed as a POST would commit it: the call, attempt and
 * event ids, the Idempotency-Key and the contact (its id and number: the POST paired with the
 * replay calls that contact) are replaced (same lengths), and then every key is rebuilt from
 * the replayed item (rekey), not copied. A copied key would keep the template's shards and
 * partitions, so the replays would all write the same few partitions (the template's outbox
 * and due shards, the template's contact), which no run of real POSTs does. The template's
 * own keys, rebuilt, must come back unchanged, or the bench stops: the route keys something
 * in a way this does not know. The route takes its Idempotency-Key inside the transaction (a
 * conditional Put of the completed record), so no claim precedes a replay.
 */
function rawBaseline(template: Txn) {
  const callPut = template.find((i) => i.Put?.Item?.type === 'call')!.Put!.Item!;
  const tenantId = callPut.tenant_id as string;
  const eventIds = template.flatMap((i) => (i.Put?.Item?.type === 'event' ? [(i.Put.Item.event as { id: string }).id] : []));
  const idem = template.find((i) => i.Put?.Item?.type === 'idempotency')!.Put!;
  const oldKey = (idem.Item!.sk as string).slice(`IDEMPOTENCY#${ROUTE}#`.length);
  if (JSON.stringify(rekey(template, { tenantId, idempotencyKey: oldKey })) !== JSON.stringify(template))
    throw new Error("rawBaseline's rebuilt keys differ from the route's: the key builders here are not the ones the route used");
  const text = JSON.stringify(template);
  return {
    next(contact: { id: string; phone_e164: string }): Txn {
      const idempotencyKey = randomUUID();
      const swaps: [string, string][] = [
        [callPut.id as string, newId('cal')],
        [callPut.attempt_id as string, newId('att')],
        ...eventIds.map((id): [string, string] => [id, newId('evt')]),
        [oldKey, idempotencyKey],
        [callPut.contact_id as string, contact.id],
        [callPut.to_e164 as string, contact.phone_e164],
      ];
      let out = text;
      for (const [from, to] of swaps) {
        if (from.length !== to.length) throw new Error(`rawBaseline swaps ${from} for ${to}: not the same length`);
        out = out.replaceAll(from, to);
      }
      return rekey(JSON.parse(out) as Txn, { tenantId, idempotencyKey });
    },
  };
}

export function printCalls(f: CallsFigures): void {
  const mix = MIX.map((m) => `${m.sub.slice(3, 7)} ${m.what}`).join(', ');
  console.log(
    `\nQueue and dispatch: ${f.calls} calls to sandbox test numbers (${mix}; equal shares), cps_limit ${f.cps}, SANDBOX_STEP_MS ${f.stepMs}, local runtime with its workers`,
  );
  console.log(`  all queued after ${fmt(f.queuedSeconds, 1)} s (10 requests in flight)`);
  console.log(
    `  all dialled after ${fmt(f.allDialledSeconds, 1)} s   (the cap allows no less than ${fmt(f.floorSeconds, 0)} s: bound/actual ${fmt(f.floorSeconds / f.allDialledSeconds, 2)})`,
  );
  // From the first dial to the last, the queueing's own pace is out of it: what the pacing alone allows.
  const span = f.dialSpanSeconds;
  console.log(
    `  first to last dial ${fmt(span, 1)} s (carrier clock; the ceiling allows no less than ${fmt((f.calls - 1) / f.cps, 1)} s: bound/actual ${fmt((f.calls - 1) / f.cps / span, 2)}); last call queued ${fmt(f.queuedAfterFirstDialSeconds, 1)} s after the first dial`,
  );
  console.log(`  max dials in any 1-second window of the carrier's clock: ${f.maxDialsPerSecond}   (cps_limit ${f.cps})`);
  const series = (what: string, counts: number[]) => {
    // The seconds between the first and the last are the steady part (the edges are partial).
    const inner = counts.slice(1, -1);
    const mean = inner.reduce((a, b) => a + b, 0) / Math.max(1, inner.length);
    console.log(
      `  ${what} per second: mean ${fmt(mean, 2)} over the ${inner.length} full seconds (${fmt(mean / f.cps, 2)} of cps), min ${Math.min(...inner)}, max ${Math.max(...inner)}: ${counts.join(' ')}`,
    );
  };
  series('dials (carrier clock)', f.dialsBySecond);
  series('grants (pacer)', f.grantsBySecond);
  console.log(`  lane takes ${f.laneTakes}, refused ${f.laneRefusals} (the lane still held: waited, asked again)`);
  console.log(
    `  a lane's cycle (send → next send on the lane): p50 ${fmt(f.laneCycleMs.p50, 0)} ms, mean ${fmt(f.laneCycleMs.mean, 0)} ms; send → carrier's answer p50 ${fmt(f.laneAnswerMs.p50, 0)} ms, p99 ${fmt(f.laneAnswerMs.p99, 0)} ms; send → the release's origin (the carrier's stamp when it answers one, else its answer) p50 ${fmt(f.laneHeldMs.p50, 0)} ms, p99 ${fmt(f.laneHeldMs.p99, 0)} ms (+ ${laneRelease(0)} ms held after it); free between a release and the next send p50 ${fmt(f.laneIdleMs.p50, 0)} ms, mean ${fmt(f.laneIdleMs.mean, 0)} ms (${fmt(f.laneIdleMs.total / 1000 / f.cps, 1)} s per lane in all)`,
  );
  console.log(
    f.allTerminalSeconds === null
      ? `  terminal: ${f.terminal} of ${f.calls} within the bound (${JSON.stringify(f.byState)})`
      : `  all terminal after ${fmt(f.allTerminalSeconds, 1)} s   (ratio ${fmt(f.allTerminalSeconds / f.floorSeconds, 2)}; ${JSON.stringify(f.byState)})`,
  );
  console.log(`  event loop delay while queueing and dialling: p50 ${fmt(f.loopDelayMs.p50, 1)} ms, p99 ${fmt(f.loopDelayMs.p99, 1)} ms`);
  if (f.profile) {
    console.log(`  CPU profile (${f.profile.file}): ${fmt(f.profile.sampledMs / 1000, 1)} s of CPU sampled; application functions by total time:`);
    for (const x of f.profile.total.slice(0, 25)) console.log(`    ${fmt(x.ms, 0)} ms  ${x.fn}`);
  }
  if (Object.keys(f.failedReasons).length) console.log(`  failed calls by end_reason: ${JSON.stringify(f.failedReasons)}`);
  console.log(`  dials in the carrier's records: ${f.carrierDials} for ${f.calls} calls`);
  if (f.retried) console.log(`  ${f.retried} POSTs answered 5xx (route timeout under load) and were sent again with their Idempotency-Key`);
  const line = (what: string, l: Latency) =>
    console.log(
      `  POST /v1/calls ${what} p50 ${fmt(l.p50, 2)} ms   p99 ${fmt(l.p99, 2)} ms   (p25–p75 ${fmt(l.p25, 1)}–${fmt(l.p75, 1)})   ${fmt(l.dynamoCalls, 2)} DynamoDB calls each (200 sequential, dispatch, analysis and carrier timeline workers held; ${l.background} background calls meanwhile, not counted)`,
    );
  const raw = (what: string, l: Latency) =>
    console.log(
      `  raw TransactWriteItems next to each ${what} POST: p50 ${fmt(l.raw.p50, 2)} ms   p99 ${fmt(l.raw.p99, 2)} ms   (p25–p75 ${fmt(l.raw.p25, 1)}–${fmt(l.raw.p75, 1)}; the phase's queue transaction replayed with fresh ids and rebuilt keys: ${l.raw.items} items, ${l.raw.bytes} bytes of JSON)`,
    );
  line('deferred', f.deferred);
  raw('deferred', f.deferred);
  line('allowed ', f.allowed);
  raw('allowed', f.allowed);
  for (const l of [f.deferred, f.allowed])
    console.log(`    background by source: ${l.backgroundTop.map(([k, n]) => `${k.replace(/\s+/g, ' ').trim()} ${n}`).join('; ')}`);
  console.log(
    `    (allowed timed once the stack was quiet: ${fmt(f.quiet.seconds, 1)} s after the hold, ${f.quiet.lastSecondCalls} background calls in its last second)`,
  );
  const ratio = (l: Latency) =>
    `${fmt(l.p50 / l.raw.p50, 2)}× (each pair's POST ÷ raw: p10 ${fmt(l.pairRatio.p10, 2)}, p50 ${fmt(l.pairRatio.p50, 2)}, p90 ${fmt(l.pairRatio.p90, 2)})`;
  if (f.postProfile) {
    const p = f.postProfile;
    console.log(
      `  CPU profile of the allowed POSTs' phase (${p.file}): ${fmt(p.sampledMs / 1000, 1)} s of CPU sampled; by self time, then application functions by total time:`,
    );
    for (const x of p.self.slice(0, 15)) console.log(`    ${fmt(x.ms, 0)} ms self  ${x.fn}`);
    for (const x of p.total.slice(0, 25)) console.log(`    ${fmt(x.ms, 0)} ms  ${x.fn}`);
  }
  console.log(`  POST ÷ raw at p50 (raw and POST alternated): deferred ${ratio(f.deferred)}, allowed ${ratio(f.allowed)}`);
}
