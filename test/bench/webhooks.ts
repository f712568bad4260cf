/**
 * Webhook delivery (see docs/decisions/webhooks.md) on the local runtime with its workers: 2,000 events committed
 * as production commits them (the outbox items in a TransactWriteItems, one event each) and
 * delivered by the relay and the delivery worker to a node:http receiver on 127.0.0.1 that
 * answers 200 at once — events/s, commit → receipt p50/p99/max, duplicates — next to a plain
 * loop POSTing the same bodies, signed the same way, to the same receiver, 10 in flight; then
 * the burst drain: 2,000 more events committed while the relay is held (a backlog, every event
 * committed before the pipeline starts), then the relay let go and timed from that instant to
 * the last receipt — the bench's own commits are outside that window — next to the keep-alive
 * loop's time for 2,000 POSTs run just before and just after it (the same load), with the
 * DynamoDB and SQS calls and the queue messages per delivered event in that window (no commits
 * in it) — run twice, the worse run the headline and both printed; then 500 events committed at a steady 50 a
 * second (commit → receipt p50/p99). Each figure is printed with the issue's target and whether it is met.
 *
 * The stack must run its workers; bin/bench.ts starts it with WEBHOOK_BENCH_STACK.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalStack } from '../../infra/local/stack.js';
import { createTenant } from '../../shared/admin/bootstrap.js';
import { db, tableName } from '../../shared/db/client.js';
import { webhookKeys } from '../../shared/db/keys.js';
import { outboxItems } from '../../shared/events/outbox.js';
import { newId } from '../../shared/ids.js';
import type { WebhookEnvelope } from '../../shared/policy/webhooks/envelope.js';
import { sqs } from '../../shared/queues/client.js';
import { deliveryHeaders, SIGNATURE_HEADER, signatureHeader } from '../../shared/schemas/webhook-signature.js';
import { workers } from '../../shared/workers.js';
import { type ProfileSummary, startCpuProfile } from './cpu-profile.js';
import { fmt, percentile, pool } from './stats.js';
import { type DrainProfileFigures, drainProfile } from './webhook-drain-profile.js';

/** The stack options this part runs under (bin/bench.ts passes them to startLocalStack). */
export const WEBHOOK_BENCH_STACK = {
  /** The outbox relay's interval (default 250 ms); on AWS the table stream runs it within a second. */
  relayTickMs: 50,
  /** ReceiveMessage long-poll wait: it returns as soon as a message arrives, so 1 s throttles nothing. */
  pollWaitTimeSeconds: 1,
  /** The call scheduler has nothing to do here: keep its ticks (and their DynamoDB calls) out of the way. */
  schedulerTickMs: 60_000,
} as const;

/** The burst drain is run this many times: its headline is the worst run's, its spread printed. */
const DRAIN_RUNS = 2;
/** The plain loops' POSTs in flight: the table's "10 concurrent". */
const COMPARE_CONCURRENCY = 10;
/** The steady run: events committed at an even pace, one every 1000 / STEADY_RATE ms. */
const STEADY_RATE = 50;
const STEADY_EVENTS = 500;
const EVENT_TYPE = 'call.completed';
const WARM_EVENTS = 50;
const COMMIT_CONCURRENCY = 10;
const DELIVERY_DEADLINE_MS = 180_000;
const BASELINE_DEADLINE_MS = 120_000;

export interface WebhooksFigures {
  events: number;
  relayTickMs: number;
  pollWaitTimeSeconds: number;
  batchSize: number;
  batchesInFlight: number;
  concurrency: number;
  steadyRate: number;
  steadyEvents: number;
  steadyP50: number;
  steadyP99: number;
  steadyMax: number;
  /** The steady run's two legs: commit → on the delivery queue (the relay), and from there → receipt (poll, worker, POST). */
  steadyRelayP50: number;
  steadyRelayP99: number;
  steadyDeliverP50: number;
  steadyDeliverP99: number;
  commitConcurrency: number;
  commitSeconds: number;
  receivedAtCommitEnd: number;
  /** From the first commit to the relay's last send (every event on the delivery queue). */
  relayedSeconds: number;
  pipelineSeconds: number;
  pipelineRate: number;
  latencyP50: number;
  latencyP99: number;
  latencyMax: number;
  duplicates: number;
  /** The backlog: committed with the relay held, then drained from the instant it was let go to the last receipt. */
  backlogCommitSeconds: number;
  drainSeconds: number;
  /** From letting the relay go to its last send (the whole backlog on the delivery queue). */
  drainRelayedSeconds: number;
  drainDuplicates: number;
  /** The keep-alive loop's seconds for the same POSTs, run just before letting the relay go and just after the drain. */
  drainLoopBeforeSeconds: number;
  drainLoopAfterSeconds: number;
  /** SQS calls per delivered event in the drain, by command (the relay's and worker's sends, the poller's receives and deletes). */
  sqsCallsByCommand: Record<string, number>;
  /** Messages put on the delivery queue per delivered event in the drain (the relay's, and the worker's sending events on again). */
  messagesPerEvent: number;
  /** Events the worker sent on again in the drain (not due, deferred by a breaker, or a failed attempt). */
  eventsSentOn: number;
  baselineHttpRate: number;
  baselineFetchRate: number;
  callsPerEvent: number;
  /** Per delivered event, and the mean time of one call (every call in the window, the bench's commits included). */
  callsByCommand: Record<string, { perEvent: number; meanMs: number }>;
  conflictRetries: number;
  /** Where the drain's time went: each class of call's busy time, a batch's phases, the event loop's share. */
  drainProfile: DrainProfileFigures;
  /** With BENCH_CPU_PROFILE=<dir>: the first drain's CPU profile (this process: the stack, its workers, the SQS emulator, the receiver), summarised. */
  drainCpuProfile?: ProfileSummary;
  /** Every drain run's seconds and its keep-alive loop's mean (the drain figures above are the worst run's). */
  drainRuns: { drainSeconds: number; loopMeanSeconds: number }[];
}

/** One run of the burst drain: the figures WebhooksFigures gives for the worst. */
type DrainRun = Pick<
  WebhooksFigures,
  | 'backlogCommitSeconds'
  | 'drainSeconds'
  | 'drainRelayedSeconds'
  | 'drainDuplicates'
  | 'drainLoopBeforeSeconds'
  | 'drainLoopAfterSeconds'
  | 'sqsCallsByCommand'
  | 'messagesPerEvent'
  | 'eventsSentOn'
  | 'callsByCommand'
  | 'conflictRetries'
  | 'drainProfile'
>;

type Phase = 'idle' | 'pipeline' | 'drain' | 'steady' | 'baseline';

/** Answers 200 at once; per phase, the first receipt time of each event id and the duplicates. */
async function startBenchReceiver() {
  let phase: Phase = 'idle';
  const first = {
    idle: new Map<string, number>(),
    pipeline: new Map<string, number>(),
    drain: new Map<string, number>(),
    steady: new Map<string, number>(),
    baseline: new Map<string, number>(),
  };
  const bodies = new Map<string, { body: string; signature: string }>();
  const duplicates = { idle: 0, pipeline: 0, drain: 0, steady: 0, baseline: 0 };
  let onReceipt = () => {};
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      const body = Buffer.concat(chunks).toString('utf8');
      const id = (JSON.parse(body) as { id: string }).id;
      const seen = first[phase];
      if (seen.has(id)) duplicates[phase]++;
      else {
        seen.set(id, at);
        if (phase === 'pipeline') bodies.set(id, { body, signature: String(req.headers[SIGNATURE_HEADER.toLowerCase()] ?? '') });
      }
      onReceipt();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    first,
    bodies,
    duplicates,
    setPhase: (p: Phase) => (phase = p),
    phase: () => phase,
    /** Resolves once every id in `ids` was received in the current phase; rejects at the deadline. */
    waitFor(ids: readonly string[], deadlineMs: number, what: string): Promise<void> {
      const seen = first[phase];
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          onReceipt = () => {};
          const got = ids.filter((id) => seen.has(id)).length;
          reject(new Error(`webhooks bench: ${what}: only ${got} of ${ids.length} events reached the receiver within ${deadlineMs / 1000} s`));
        }, deadlineMs);
        const check = () => {
          if (seen.size < ids.length || !ids.every((id) => seen.has(id))) return;
          clearTimeout(timer);
          onReceipt = () => {};
          resolve();
        };
        onReceipt = check;
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One POST on a connection of its own (agent: false), as deliverOnce sends. */
const postFresh = (port: number, body: string, headers: Record<string, string>) =>
  new Promise<void>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/hooks', method: 'POST', agent: false, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`receiver answered ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });

const withDeadline = <T>(p: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`webhooks bench: ${what} did not finish within ${ms / 1000} s`)), ms)),
  );
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
};

export async function measureWebhooks(stack: LocalStack, total = 2000): Promise<WebhooksFigures> {
  const worker = workers.find((w) => w.queue === 'webhookDelivery');
  if (!worker) throw new Error('webhooks bench: no webhook-delivery worker in shared/workers.ts');
  const batchSize = Math.min(worker.batchSize, 10); // ReceiveMessage takes at most 10
  const batchesInFlight = (worker as { batchesInFlight?: number }).batchesInFlight ?? 1;
  const concurrency = COMPARE_CONCURRENCY;

  const receiver = await startBenchReceiver();
  try {
    const t = await createTenant({ name: 'Bench webhooks', adminEmail: 'webhooks@bench.test' });
    const put = await fetch(`${stack.baseUrl}/v1/webhook-endpoint`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${t.api_key.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url }),
    });
    const endpoint = (await put.json()) as { id: string; signing_secret?: string };
    if (put.status !== 201 || !endpoint.signing_secret) throw new Error(`PUT /v1/webhook-endpoint answered ${put.status}: ${JSON.stringify(endpoint)}`);
    const secret = endpoint.signing_secret;

    // DynamoDB calls by command, every try (below the transaction-conflict retry), and the conflicts retried.
    const calls: Record<string, number> = {};
    const callMs: Record<string, number> = {};
    let conflicts = 0;
    let profile = drainProfile();
    db().middlewareStack.add(
      (next, context) => async (args) => {
        const name = (context.commandName ?? 'unknown').replace(/Command$/, '');
        calls[name] = (calls[name] ?? 0) + 1;
        const s = performance.now();
        try {
          return await next(args);
        } catch (err) {
          const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
          if (reasons.some((r) => r.Code === 'TransactionConflict')) conflicts++;
          throw err;
        } finally {
          const end = performance.now();
          callMs[name] = (callMs[name] ?? 0) + end - s;
          profile.dynamo(name, args.input, s, end);
        }
      },
      { step: 'build', name: 'benchWebhooksCallCounter' },
    );

    // When each event's message was taken by SQS (the relay's sends; the worker's onward sends are later and ignored),
    // and every SQS call and message: the app's client (relay, worker) and the pollers' (receives, deletes).
    const enqueuedAt = new Map<string, number>();
    /** When the last of `ids` was taken by SQS (not when its marker went: the relay deletes markers after, one at a time). */
    const lastEnqueued = (ids: readonly string[]) => Math.max(...ids.map((id) => enqueuedAt.get(id) ?? Number.NaN));
    const sqsCalls: Record<string, number> = {};
    const sent = { messages: 0, sentOn: 0 };
    const countSqs = (name: string) => (sqsCalls[name.replace(/Command$/, '')] = (sqsCalls[name.replace(/Command$/, '')] ?? 0) + 1);
    sqs().middlewareStack.add(
      (next, context) => async (args) => {
        countSqs(context.commandName ?? 'unknown');
        const s = performance.now();
        const out = await next(args);
        profile.sqs((context.commandName ?? 'unknown').replace(/Command$/, ''), args.input, out.output, s, performance.now());
        if (context.commandName === 'SendMessageBatchCommand' || context.commandName === 'SendMessageCommand') {
          const at = performance.now();
          const input = args.input as { Entries?: { MessageBody?: string }[]; MessageBody?: string };
          const entries = input.Entries ?? [{ MessageBody: input.MessageBody }];
          sent.messages += entries.length;
          for (const e of entries) {
            const m = JSON.parse(e.MessageBody ?? '{}') as { event_id?: string; event_ids?: string[] };
            for (const id of m.event_ids ?? (m.event_id ? [m.event_id] : [])) {
              if (!enqueuedAt.has(id)) enqueuedAt.set(id, at);
              else sent.sentOn++;
            }
          }
        }
        return out;
      },
      { step: 'initialize', name: 'benchWebhooksEnqueueTimes' },
    );
    stack.sqs.middlewareStack.add(
      (next, context) => async (args) => {
        countSqs(context.commandName ?? 'unknown');
        const s = performance.now();
        const out = await next(args);
        profile.sqs((context.commandName ?? 'unknown').replace(/Command$/, ''), args.input, out.output, s, performance.now());
        return out;
      },
      { step: 'initialize', name: 'benchWebhooksPollerCalls' },
    );

    const commit = async () => {
      const data = { call_id: newId('cal'), attempt_id: newId('att'), contact_id: newId('con'), state: 'completed', disposition: 'answered' };
      const { event, items } = outboxItems(t.tenant_id, EVENT_TYPE, data, new Date());
      await db().send(new TransactWriteCommand({ TransactItems: items }));
      return { id: event.id, at: performance.now() };
    };
    const ownReads = { GetItem: 0 };
    const deliveredCount = async () => {
      ownReads.GetItem++;
      const out = await db().send(
        new GetCommand({ TableName: tableName(), Key: webhookKeys.deliveredCount(t.tenant_id, endpoint.id, EVENT_TYPE), ConsistentRead: true }),
      );
      return (out.Item?.delivered as number | undefined) ?? 0;
    };
    const ledgerSettled = async (delivered: number, what: string) => {
      const by = performance.now() + 10_000;
      while ((await deliveredCount()) < delivered) {
        if (performance.now() > by)
          throw new Error(`webhooks bench: ${what}: every event was received but the ledger did not record every delivery within 10 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };

    // Warm: handler modules, JIT, the relay's and the worker's first runs.
    receiver.setPhase('pipeline');
    const warm: string[] = [];
    await pool(Array.from({ length: WARM_EVENTS }), COMMIT_CONCURRENCY, async () => {
      warm.push((await commit()).id);
    });
    await receiver.waitFor(warm, 30_000, 'warm-up');
    await ledgerSettled(WARM_EVENTS, 'warm-up');
    receiver.first.pipeline.clear();
    receiver.bodies.clear();
    receiver.duplicates.pipeline = 0;

    const resetCalls = () => {
      for (const k of Object.keys(calls)) delete calls[k];
      for (const k of Object.keys(callMs)) delete callMs[k];
      for (const k of Object.keys(sqsCalls)) delete sqsCalls[k];
      sent.messages = 0;
      sent.sentOn = 0;
      conflicts = 0;
      ownReads.GetItem = 0;
    };

    // The keep-alive loop (fetch, COMPARE_CONCURRENCY in flight) POSTing the pipeline's bodies, signed at send time.
    const headersFor = (body: string) => deliveryHeaders(JSON.parse(body) as WebhookEnvelope, body, [secret], new Date());
    const fetchPost = async (body: string) => {
      const res = await fetch(receiver.url, { method: 'POST', headers: headersFor(body), body });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`receiver answered ${res.status}`);
    };
    /** Seconds for the loop to POST every body (after 50 to warm), in the receiver's baseline phase; the phase is restored. */
    const loopSeconds = async (bodies: readonly string[], send: (body: string) => Promise<void>, what: string) => {
      const was = receiver.phase();
      receiver.setPhase('baseline');
      await pool(bodies.slice(0, 50), COMPARE_CONCURRENCY, (body) => send(body));
      receiver.first.baseline.clear();
      const started = performance.now();
      await withDeadline(
        pool(bodies, COMPARE_CONCURRENCY, (body) => send(body)),
        BASELINE_DEADLINE_MS,
        what,
      );
      const ids = bodies.map((b) => (JSON.parse(b) as { id: string }).id);
      await receiver.waitFor(ids, 1000, what);
      const seconds = (performance.now() - started) / 1000;
      receiver.setPhase(was);
      return seconds;
    };

    // 1. The pipeline: commit `total` events, COMMIT_CONCURRENCY transactions in flight, each timestamped once it resolves.
    resetCalls();
    const committed = new Array<{ id: string; at: number }>(total);
    const firstCommitStarted = performance.now();
    await pool(
      Array.from({ length: total }, (_, i) => i),
      COMMIT_CONCURRENCY,
      async (i) => {
        committed[i] = await commit();
      },
    );
    const commitSeconds = (performance.now() - firstCommitStarted) / 1000;
    const receivedAtCommitEnd = receiver.first.pipeline.size;
    const ids = committed.map((c) => c.id);
    await receiver.waitFor(
      ids,
      Math.max(1000, DELIVERY_DEADLINE_MS - (performance.now() - firstCommitStarted)),
      `pipeline (${DELIVERY_DEADLINE_MS / 1000} s from the first commit)`,
    );
    const receipts = ids.map((id) => receiver.first.pipeline.get(id)!);
    const lastReceipt = Math.max(...receipts);
    const firstCommit = Math.min(...committed.map((c) => c.at));
    const latencies = committed.map((c, i) => receipts[i]! - c.at);
    await ledgerSettled(WARM_EVENTS + total, 'pipeline');
    const relayedSeconds = (lastEnqueued(ids) - firstCommitStarted) / 1000;
    const duplicates = receiver.duplicates.pipeline;
    const bodies = ids.map((id) => receiver.bodies.get(id)!.body);

    // 2. The burst drain, DRAIN_RUNS times over (one run's figure differed by 1.4× between two runs
    // of the same code): each time `total` events committed with the relay held (nothing reaches the
    // delivery queue meanwhile), then the relay let go; from that instant to the last receipt.
    // The headline figures are the worst run's (the highest drain ÷ loop), every run's ratio is printed.
    const drainOnce = async (run: number): Promise<DrainRun> => {
      receiver.setPhase('drain');
      receiver.first.drain.clear();
      receiver.duplicates.drain = 0;
      profile = drainProfile();
      const letGo = await stack.holdOutboxRelay();
      const backlogStarted = performance.now();
      const backlog = new Array<string>(total);
      await pool(
        Array.from({ length: total }, (_, i) => i),
        COMMIT_CONCURRENCY,
        async (i) => {
          backlog[i] = (await commit()).id;
        },
      );
      const backlogCommitSeconds = (performance.now() - backlogStarted) / 1000;
      // The loop just before the drain, while the pipeline idles (the relay held), under the same load.
      const loopBeforeSeconds = await loopSeconds(bodies, fetchPost, 'loop before the drain');
      if (receiver.first.drain.size > 0) throw new Error('webhooks bench: an event of the backlog was delivered while the relay was held');
      resetCalls();
      const profileDir = process.env.BENCH_CPU_PROFILE;
      const profiling = profileDir && run === 0 ? await startCpuProfile(profileDir, 'webhooks-drain') : undefined;
      const drainStarted = performance.now();
      profile.start();
      letGo();
      await receiver.waitFor(backlog, DELIVERY_DEADLINE_MS, `drain (${DELIVERY_DEADLINE_MS / 1000} s from letting the relay go)`);
      profile.drained();
      const drainCpuProfile = await profiling?.stop();
      const drainEnded = Math.max(...backlog.map((id) => receiver.first.drain.get(id)!));
      const drainSeconds = (drainEnded - drainStarted) / 1000;
      const drainRelayedSeconds = (lastEnqueued(backlog) - drainStarted) / 1000;
      // The ledger settles just after the last receipt (the attempt's transaction); count its calls too.
      await ledgerSettled(WARM_EVENTS + (2 + run) * total, 'drain');
      profile.stop();
      const sqsCallsByCommand = Object.fromEntries(Object.entries(sqsCalls).map(([k, n]) => [k, n / total]));
      // The pipeline's calls: every call in the window (no commits in it) less the bench's own settle checks.
      const own: Record<string, number> = { GetItem: ownReads.GetItem };
      const callsByCommand = Object.fromEntries(
        Object.entries(calls)
          .map(([k, n]) => [k, { perEvent: (n - (own[k] ?? 0)) / total, meanMs: callMs[k]! / n }] as const)
          .filter(([, v]) => v.perEvent > 0),
      );
      const figures = {
        backlogCommitSeconds,
        drainSeconds,
        drainRelayedSeconds,
        drainDuplicates: receiver.duplicates.drain,
        sqsCallsByCommand,
        messagesPerEvent: sent.messages / total,
        eventsSentOn: sent.sentOn,
        callsByCommand,
        conflictRetries: conflicts,
        drainProfile: profile.figures(drainEnded),
      };
      if (drainCpuProfile) cpuProfiles.push(drainCpuProfile);
      const loopAfterSeconds = await loopSeconds(bodies, fetchPost, 'loop after the drain');
      return { ...figures, drainLoopBeforeSeconds: loopBeforeSeconds, drainLoopAfterSeconds: loopAfterSeconds };
    };
    const drainRatio = (d: DrainRun) => d.drainSeconds / ((d.drainLoopBeforeSeconds + d.drainLoopAfterSeconds) / 2);
    const cpuProfiles: ProfileSummary[] = [];
    const drains: DrainRun[] = [];
    for (let run = 0; run < DRAIN_RUNS; run++) drains.push(await drainOnce(run));
    const worst = drains.reduce((a, b) => (drainRatio(b) > drainRatio(a) ? b : a));

    // 3. Steady: STEADY_RATE commits a second, each timestamped once it resolves; commit → receipt.
    receiver.setPhase('steady');
    const steadyCommitted: { id: string; at: number }[] = [];
    const steadyStarted = performance.now();
    const steadyCommits: Promise<void>[] = [];
    for (let i = 0; i < STEADY_EVENTS; i++) {
      const wait = steadyStarted + (i * 1000) / STEADY_RATE - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      steadyCommits.push(commit().then((c) => void steadyCommitted.push(c)));
    }
    await Promise.all(steadyCommits);
    await receiver.waitFor(
      steadyCommitted.map((c) => c.id),
      30_000,
      'steady',
    );
    const steadyLatencies = steadyCommitted.map((c) => receiver.first.steady.get(c.id)! - c.at);
    const steadyRelay = steadyCommitted.map((c) => (enqueuedAt.get(c.id) ?? NaN) - c.at);
    const steadyDeliver = steadyCommitted.map((c) => receiver.first.steady.get(c.id)! - (enqueuedAt.get(c.id) ?? NaN));
    await ledgerSettled(WARM_EVENTS + (1 + DRAIN_RUNS) * total + STEADY_EVENTS, 'steady');

    // The signature on the received bytes checks out with the endpoint's secret.
    const sample = receiver.bodies.get(ids[0]!)!;
    const t0 = Number(/t=(\d+)/.exec(sample.signature)?.[1]);
    if (sample.signature !== signatureHeader(sample.body, [secret], t0)) throw new Error('webhooks bench: a delivered signature does not verify');

    // 4. The plain loops: the same bodies, signed at send time with the same secret and header shape, same concurrency.
    const baselineHttpRate = total / (await loopSeconds(bodies, (body) => postFresh(receiver.port, body, headersFor(body)), 'baseline (node:http)'));
    const baselineFetchRate = total / (await loopSeconds(bodies, fetchPost, 'baseline (fetch)'));

    const pipelineSeconds = (lastReceipt - firstCommit) / 1000;
    return {
      events: total,
      relayTickMs: WEBHOOK_BENCH_STACK.relayTickMs,
      pollWaitTimeSeconds: WEBHOOK_BENCH_STACK.pollWaitTimeSeconds,
      batchSize,
      batchesInFlight,
      concurrency,
      steadyRate: STEADY_RATE,
      steadyEvents: STEADY_EVENTS,
      steadyP50: percentile(steadyLatencies, 50),
      steadyP99: percentile(steadyLatencies, 99),
      steadyMax: Math.max(...steadyLatencies),
      steadyRelayP50: percentile(steadyRelay, 50),
      steadyRelayP99: percentile(steadyRelay, 99),
      steadyDeliverP50: percentile(steadyDeliver, 50),
      steadyDeliverP99: percentile(steadyDeliver, 99),
      commitConcurrency: COMMIT_CONCURRENCY,
      commitSeconds,
      receivedAtCommitEnd,
      relayedSeconds,
      pipelineSeconds,
      pipelineRate: total / pipelineSeconds,
      latencyP50: percentile(latencies, 50),
      latencyP99: percentile(latencies, 99),
      latencyMax: Math.max(...latencies),
      duplicates,
      ...worst,
      drainCpuProfile: cpuProfiles[0],
      drainRuns: drains.map((d) => ({ drainSeconds: d.drainSeconds, loopMeanSeconds: (d.drainLoopBeforeSeconds + d.drainLoopAfterSeconds) / 2 })),
      baselineHttpRate,
      baselineFetchRate,
      callsPerEvent: Object.values(worst.callsByCommand).reduce((a, v) => a + v.perEvent, 0),
    };
  } finally {
    await receiver.close();
  }
}

const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

export function printWebhooks(f: WebhooksFigures): void {
  const n = f.events.toLocaleString('en-US');
  const ratio = f.pipelineRate / f.baselineFetchRate;
  const commitRate = f.events / f.commitSeconds;
  console.log(`\nWebhook delivery: ${n} events committed through the outbox to a local receiver answering 200 at once, local runtime with its workers`);
  console.log(
    `  settings: relay every ${f.relayTickMs} ms; delivery poller: batches of ${f.batchSize} messages × ${f.batchesInFlight} in flight, long-poll wait ${f.pollWaitTimeSeconds} s; commits: one event per TransactWriteItems, ${f.commitConcurrency} in flight; plain loops: ${f.concurrency} in flight`,
  );
  // The issue's burst figure: the backlog is whole before the clock starts, so the bench's own commits are not in it.
  const loopMean = (f.drainLoopBeforeSeconds + f.drainLoopAfterSeconds) / 2;
  console.log(
    `  burst drain: ${n} events committed first (the relay held; the bench's commits took ${fmt(f.backlogCommitSeconds, 2)} s), then timed from letting the relay go to the last receipt`,
  );
  console.log(
    `    drain ${fmt(f.drainSeconds, 2)} s (${fmt(f.events / f.drainSeconds, 0)} events/s; all on the delivery queue after ${fmt(f.drainRelayedSeconds, 2)} s; duplicates received ${f.drainDuplicates}; from the first backlog commit it would read ${fmt(f.backlogCommitSeconds + f.drainSeconds, 2)} s, the commits included)`,
  );
  console.log(
    `    keep-alive loop, the same ${n} POSTs, ${f.concurrency} in flight: ${fmt(f.drainLoopBeforeSeconds, 2)} s just before, ${fmt(f.drainLoopAfterSeconds, 2)} s just after (mean ${fmt(loopMean, 2)} s)`,
  );
  console.log(
    `    drain / loop ${fmt(f.drainSeconds / loopMean, 2)}× (the worst of ${f.drainRuns.length} runs)   target ≤ 3×: ${verdict(f.drainSeconds <= 3 * loopMean)}`,
  );
  const ratios = f.drainRuns.map((d) => d.drainSeconds / d.loopMeanSeconds);
  console.log(
    `    every run: ${f.drainRuns.map((d, i) => `${i + 1}: ${fmt(d.drainSeconds, 2)} s ÷ loop ${fmt(d.loopMeanSeconds, 2)} s = ${fmt(ratios[i]!, 2)}×`).join('; ')}   spread ${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)}×`,
  );
  const sqsBy = Object.entries(f.sqsCallsByCommand)
    .sort(([, a], [, b]) => b - a)
    .map(([k, v]) => `${k} ${fmt(v, 3)}`)
    .join(', ');
  console.log(
    `    per delivered event in the drain: SQS calls ${fmt(
      Object.values(f.sqsCallsByCommand).reduce((a, b) => a + b, 0),
      3,
    )} (${sqsBy}); messages sent to the delivery queue ${fmt(f.messagesPerEvent, 3)}; events sent on again by the worker ${f.eventsSentOn}`,
  );
  const by = Object.entries(f.callsByCommand)
    .sort(([, a], [, b]) => b.perEvent - a.perEvent)
    .map(([k, v]) => `${k} ${fmt(v.perEvent, 3)} × ${fmt(v.meanMs, 0)} ms`)
    .join(', ');
  console.log(
    `    DynamoDB calls ${fmt(f.callsPerEvent, 3)}   target ≤ 1.5: ${verdict(f.callsPerEvent <= 1.5)}; ${f.conflictRetries} transaction conflicts retried`,
  );
  console.log(`      ${by} (mean time per call; the relay's Queries include its idle polls)`);
  printDrainProfile(f.drainProfile, f.drainSeconds);
  if (f.drainCpuProfile) {
    const p = f.drainCpuProfile;
    console.log(`    CPU profile of the first drain (${p.file}, ${fmt(p.sampledMs, 0)} ms sampled): self`);
    for (const s of p.self.slice(0, 12)) console.log(`      ${fmt(s.ms, 0)} ms  ${s.fn}`);
    console.log('      with what they called (the application):');
    for (const s of p.total.slice(0, 12)) console.log(`      ${fmt(s.ms, 0)} ms  ${s.fn}`);
  }
  console.log(
    `  steady ${f.steadyRate} events/s (${f.steadyEvents} events) commit → receipt   p50 ${fmt(f.steadyP50, 0)} ms (target ≤ 250: ${verdict(f.steadyP50 <= 250)})   p99 ${fmt(f.steadyP99, 0)} ms (target ≤ 1000: ${verdict(f.steadyP99 <= 1000)})   max ${fmt(f.steadyMax, 0)} ms`,
  );
  console.log(
    `    of which commit → on the queue (the relay) p50 ${fmt(f.steadyRelayP50, 0)} / p99 ${fmt(f.steadyRelayP99, 0)} ms; queue → receipt (poll, worker, POST) p50 ${fmt(f.steadyDeliverP50, 0)} / p99 ${fmt(f.steadyDeliverP99, 0)} ms`,
  );
  // Delivery while the bench commits: bounded by the commits (one transaction each), so a figure of the bench, not of the pipeline.
  console.log(
    `  while committing: ${fmt(f.pipelineRate, 0)} events/s (${n} / ${fmt(f.pipelineSeconds, 2)} s from the first commit to the last receipt); the bench's commits ran at ${fmt(commitRate, 0)}/s and ended after ${fmt(f.commitSeconds, 2)} s with ${f.receivedAtCommitEnd} received, the last ${fmt(f.pipelineSeconds - f.commitSeconds, 2)} s later; all relayed after ${fmt(f.relayedSeconds, 2)} s`,
  );
  console.log(
    `    commit → receipt p50 ${fmt(f.latencyP50, 0)} ms   p99 ${fmt(f.latencyP99, 0)} ms   max ${fmt(f.latencyMax, 0)} ms   duplicates received ${f.duplicates}; ratio to the loops below ${fmt(ratio, 3)} (keep-alive), ${fmt(f.pipelineRate / f.baselineHttpRate, 3)} (a connection per POST): the commit rate's, not the pipeline's`,
  );
  console.log(`  plain loop, node:http, a connection per POST, ${f.concurrency} in flight   ${fmt(f.baselineHttpRate, 0)} events/s (measured last)`);
  console.log(`  plain loop, fetch (keep-alive), ${f.concurrency} in flight                ${fmt(f.baselineFetchRate, 0)} events/s (measured last)`);
}

/** The drain's profile: what was in flight for how much of the drain, and a batch's phases one after another. */
function printDrainProfile(p: DrainProfileFigures, drainSeconds: number): void {
  const drainMs = drainSeconds * 1000;
  const classes = Object.entries(p.classes)
    .sort(([, a], [, b]) => b.busyMs - a.busyMs)
    .map(([k, v]) => `${k} ${v.calls} calls, busy ${fmt((100 * v.busyMs) / drainMs, 0)}% (${fmt(v.sumMs / Math.max(v.busyMs, 1), 1)} at once)`)
    .join('; ');
  console.log(`    where the drain went (share of its ${fmt(drainSeconds, 2)} s with at least one in flight): ${classes}`);
  const ph = p.phases;
  console.log(
    `    ${p.batches} batches of ${fmt(p.eventsPerBatch, 0)} events, at most ${p.maxBatchesAtOnce} at once, the first received ${fmt(p.firstBatchAt, 0)} ms after letting the relay go, the last ${fmt(p.lastBatchAt, 0)} ms; event loop busy ${fmt(100 * p.eventLoopUtilization, 0)}%`,
  );
  console.log(
    `    a batch, mean ms: received → read ${fmt(ph.wait, 0)}, read ${fmt(ph.read, 0)}, lease ${fmt(ph.lease, 0)}, POSTs ${fmt(ph.posts, 0)}, ledger after the last POST ${fmt(ph.ledgerTail, 0)}, → ack ${fmt(ph.ack, 0)}; received → ack ${fmt(ph.total, 0)}`,
  );
}
