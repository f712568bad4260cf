/**
 * The voice runtime's own overhead on the local host (`BENCH_ONLY=runtime npm run bench`):
 * a ConversationRelay client plays Twilio's side against `npm start`'s relay socket for real
 * calls of a real tenant, and the runtime's part of each turn is timed as the issue defines it:
 * from a final `prompt` arriving at the session (the socket's message handed to it) to the
 * first `text` frame handed to `ws.send`. The client runs in its own process
 * (test/bench/relay-client.ts), as Twilio does, so its sockets and waits share no event loop
 * with the runtime; its round trip (prompt sent → first text received: two socket hops more)
 * is printed beside each figure.
 *   1. over 1,000 turns, with the sandbox model (the deterministic model `npm start` uses)
 *      answering at once;
 *   2. the same with a stand-in whose first token takes 300 ms, reported beyond those 300 ms
 *      (10 conversations at a time, so 1,000 turns take half a minute). The hold is the first
 *      token of a reply only: a reply that calls a tool first (check_calendar, book_meeting)
 *      is not held again for the step after the tool's result, so what is reported beyond the
 *      300 ms is the runtime's own work and its tool's round trip to the control plane, never
 *      a second model latency. The conversations start STAGGER_MS apart, as real calls' turns
 *      do not arrive in the same millisecond; the same 10 in lockstep are printed beside it
 *      (every turn's tool round trip at once: the contention case, as figure 4 is);
 *   3. `interrupt` arriving → the last frame of the interrupted reply handed to the socket (a
 *      stand-in that talks for a long time, interrupted at its first phrase); stale frames counted;
 *   4. 100 conversations at once (an echo stand-in naming each conversation's own words):
 *      overhead p99, and every reply checked by the client to belong to its own conversation.
 * Sessions load the call's brief from the table as in production; what they report to the
 * control plane goes to an in-memory sink (these calls were never answered, so the events
 * route would refuse them, and its cost is not the runtime's).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { type CreateRelaySession, defaultCreateRelaySession } from '../../infra/local/relay-session.js';
import type { LocalStack } from '../../infra/local/stack.js';
import { createTenant } from '../../shared/admin/bootstrap.js';
import { now, setClockOffsetForTests } from '../../shared/clock.js';
import { seedPlatformData } from '../../shared/seed/platform.js';
import { callTokenKey } from '../../shared/telephony/call-token-key.js';
import { mintStreamToken } from '../../shared/telephony/call-tokens.js';
import { createReplyModel } from '../../shared/voice/llm/chain.js';
import { createRegistry } from '../../shared/voice/llm/registry.js';
import { createSandboxModel } from '../../shared/voice/llm/sandbox-model.js';
import type { ReplyModel, ReplyPart, ReplyRequest } from '../../shared/voice/ports.js';
import { type ProfileSummary, startCpuProfile } from './cpu-profile.js';
import type { ClientPhase, ClientResult, ClientTurn } from './relay-client.js';
import { fmt, percentile } from './stats.js';

const FIRST_TOKEN_MS = 300;
/**
 * The slow phase's conversations start this far apart: about a tenth of one conversation
 * (greeting and four 300 ms turns), so ten spread over it. In lockstep every conversation's
 * third turn calls check_calendar in the same millisecond, which measures ten tool round
 * trips queued behind each other in one process rather than one call's overhead.
 */
const STAGGER_MS = 150;

/** The model the stack's relay uses, switched between the bench's phases. */
export class SwitchModel implements ReplyModel {
  current: ReplyModel = instantSandbox();
  stream(request: ReplyRequest): AsyncIterable<ReplyPart> {
    return this.current.stream(request);
  }
}

const chainOf = (model: LanguageModelV3): ReplyModel => createReplyModel({ registry: createRegistry(), resolveModel: () => tracedProvider(model) });
const instantSandbox = () => chainOf(createSandboxModel({ modelId: 'sandbox-default' }));
/** The slow stand-in's first-token holds: when each was set and when it fired. */
const holdTimers: { set: number; fired?: number; ms: number }[] = [];
const slowSandbox = () =>
  chainOf(
    createSandboxModel({
      modelId: 'sandbox-slow',
      behaviour: 'slow',
      firstTokenDelayMs: FIRST_TOKEN_MS,
      timers: {
        setTimeout: (fn, ms) => {
          const rec: { set: number; fired?: number; ms: number } = { set: performance.now(), ms };
          holdTimers.push(rec);
          const sid = callOfContext.getStore();
          return setTimeout(() => {
            rec.fired = performance.now();
            mark(sid, 'holdFired');
            fn();
          }, ms);
        },
        clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
      },
    }),
  );

const usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
const tick = () => new Promise<void>((r) => setImmediate(r));

/** Talks for a long time, a word per event-loop turn, until aborted. */
const longTalker: ReplyModel = {
  async *stream(request) {
    for (let i = 0; i < 400 && !request.signal.aborted; i++) {
      yield { type: 'text', delta: `word${i}${i % 12 === 11 ? '.' : ''} ` };
      await tick();
    }
    yield { type: 'finish', model: 'stand-in-long', usage };
  },
};

/** Says back what it heard: every reply names its own conversation. */
const echo: ReplyModel = {
  async *stream(request) {
    const heard = request.messages.at(-1)?.content ?? '';
    yield { type: 'text', delta: 'You said ' };
    yield { type: 'text', delta: `${heard}.` };
    yield { type: 'finish', model: 'stand-in-echo', usage };
  },
};

/**
 * Where a turn's time goes: instants at each stage from the prompt sent to the first text frame
 * received, on this process's performance.now() clock (the client's two come back from its
 * process as epoch instants and are converted; the socket hops between the processes are only
 * as exact as the two processes' agreement on the epoch). The server's stages are marked on the
 * turn the session opened when the prompt arrived (keyed by the setup's callSid); the provider's
 * stages learn their call from the async context the session's model runs in.
 */
const STAGES = [
  'sent',
  'arrived',
  'modelCalled',
  'providerCalled',
  'providerReady',
  'holdFired',
  'providerFirst',
  'chainFirst',
  'frameSent',
  'received',
  'lastSent',
] as const;
type Stage = (typeof STAGES)[number];
/** One turn's instants, its place in its conversation, and the tools its reply ran before its first text (and how long they took). */
type TurnMarks = Partial<Record<Stage, number>> & { index: number; toolsBeforeText?: string[]; toolMs?: number };
/** Each call's latest turn, where the session's stages are marked. */
const turnInProgress = new Map<string, TurnMarks>();
/** What the session side saw of one call (keyed by the setup's callSid): its turns in prompt order, and an interrupt's aftermath. */
interface ServerCall {
  turns: TurnMarks[];
  interruptAt?: number;
  /** Text frames handed to the socket after the interrupt arrived, and the last one's instant. */
  staleFrames: number;
  lastStaleAt?: number;
}
const serverCalls = new Map<string, ServerCall>();
const toolStarted = new WeakMap<TurnMarks, number>();
const callOfContext = new AsyncLocalStorage<string>();
const mark = (callSid: string | undefined, stage: Stage) => {
  const t = callSid === undefined ? undefined : turnInProgress.get(callSid);
  if (t && t[stage] === undefined) t[stage] = performance.now();
};

/** The provider as the chain sees it, marking when it is called and when its first text comes out. */
function tracedProvider(model: LanguageModelV3): LanguageModelV3 {
  return {
    ...model,
    doStream: async (opts) => {
      const callSid = callOfContext.getStore();
      mark(callSid, 'providerCalled');
      const r = await model.doStream(opts);
      mark(callSid, 'providerReady');
      return {
        ...r,
        stream: r.stream.pipeThrough(
          new TransformStream({
            transform(part, out) {
              if (part.type === 'text-delta') mark(callSid, 'providerFirst');
              out.enqueue(part);
            },
          }),
        ),
      };
    },
  };
}

/** A session's model: marks the call, and runs each read of the chain in the call's context. */
function tracedModel(model: ReplyModel, callSid: () => string | undefined): ReplyModel {
  return {
    stream(request) {
      const sid = callSid();
      mark(sid, 'modelCalled');
      const parts = callOfContext.run(sid ?? '', () => model.stream(request)[Symbol.asyncIterator]());
      return {
        [Symbol.asyncIterator]: () => ({
          next: async () => {
            const r = await callOfContext.run(sid ?? '', () => parts.next());
            if (!r.done && r.value.type === 'text') mark(sid, 'chainFirst');
            const t = sid ? turnInProgress.get(sid) : undefined;
            if (t && !r.done && t.chainFirst === undefined && r.value.type === 'tool-call') {
              t.toolsBeforeText ??= [];
              t.toolsBeforeText.push(r.value.toolName);
              toolStarted.set(t, performance.now());
            }
            if (t && !r.done && t.chainFirst === undefined && r.value.type === 'tool-result')
              t.toolMs = (t.toolMs ?? 0) + performance.now() - (toolStarted.get(t) ?? NaN);
            return r;
          },
          return: async () => (await parts.return?.()) ?? { done: true as const, value: undefined },
        }),
      };
    },
  };
}

/** The session `npm start` serves, reporting to an in-memory sink instead of the events route (and marking a turn's stages). */
export const sinkSessions: CreateRelaySession = (deps) => {
  let callSid: string | undefined;
  let call: ServerCall | undefined;
  const session = defaultCreateRelaySession({
    ...deps,
    model: tracedModel(deps.model, () => callSid),
    send: (message) => {
      if (message.type === 'text') {
        mark(callSid, 'frameSent');
        if (message.last) mark(callSid, 'lastSent');
        if (call?.interruptAt !== undefined) {
          call.staleFrames++;
          call.lastStaleAt = performance.now();
        }
      }
      deps.send(message);
    },
    controlPlaneFor: (claims) => {
      const real = deps.controlPlaneFor(claims);
      return { loadCall: (c) => real.loadCall(c), postEvents: async () => {}, checkCalendar: (q) => real.checkCalendar(q) };
    },
  });
  return {
    ...session,
    receive(raw) {
      const at = performance.now();
      const msg = JSON.parse(raw) as { type?: string; callSid?: string };
      if (msg.type === 'setup' && msg.callSid) {
        callSid = msg.callSid;
        call = { turns: [], staleFrames: 0 };
        serverCalls.set(callSid, call);
      } else if (msg.type === 'prompt' && call && callSid) {
        const marks: TurnMarks = { index: call.turns.length, arrived: at };
        call.turns.push(marks);
        turnInProgress.set(callSid, marks);
      } else if (msg.type === 'interrupt' && call) call.interruptAt ??= at;
      return session.receive(raw);
    },
  };
};

/** The Twilio stand-in's process: one phase at a time. */
class ClientProcess {
  private readonly child: ChildProcess;
  private constructor() {
    this.child = fork(fileURLToPath(new URL('./relay-client.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  }

  static start(): ClientProcess {
    return new ClientProcess();
  }

  run<P extends ClientPhase>(phase: P): Promise<Extract<ClientResult, { op: P['op'] }>> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the relay client process exited (${code}) during ${phase.op}`));
      this.child.once('exit', onExit);
      this.child.once('message', (m: { ok: true; result: Extract<ClientResult, { op: P['op'] }> } | { ok: false; error: string }) => {
        this.child.off('exit', onExit);
        if (m.ok) resolve(m.result);
        else reject(new Error(`relay client: ${m.error}`));
      });
      this.child.send(phase);
    });
  }

  stop(): void {
    this.child.disconnect();
  }
}

/** The client's epoch instant on this process's performance.now() clock. */
const local = (epochMs: number) => epochMs - performance.timeOrigin;

/** The session's record of a turn the client timed, with the client's two instants added. */
function joined(t: ClientTurn): TurnMarks | undefined {
  const marks = serverCalls.get(t.callSid)?.turns[t.index];
  if (!marks) return undefined;
  marks.sent = local(t.sent);
  if (t.received !== undefined) marks.received = local(t.received);
  return marks;
}

/** Runtime side (prompt arrived → first text frame handed to the socket) and the client's round trip, per turn. */
interface Timings {
  runtime: number[];
  roundTrip: number[];
}

function timingsOf(turns: readonly ClientTurn[], stages: TurnMarks[] = [], less = 0): Timings {
  const out: Timings = { runtime: [], roundTrip: [] };
  for (const t of turns) {
    const marks = joined(t);
    if (t.received !== undefined) out.roundTrip.push(t.received - t.sent - less);
    if (!marks || marks.arrived === undefined || marks.frameSent === undefined) continue;
    out.runtime.push(marks.frameSent - marks.arrived - less);
    stages.push(marks);
  }
  return out;
}

/**
 * Conversations until `turns` turns were timed, `parallel` at a time, each call's socket reused
 * after it closes; the n-th conversation slot starts n × `staggerMs` after the first.
 */
async function timedTurns(
  client: ClientProcess,
  stack: LocalStack,
  tokens: string[],
  turns: number,
  parallel: number,
  stages: TurnMarks[] = [],
  staggerMs = 0,
  less = 0,
): Promise<Timings> {
  serverCalls.clear();
  turnInProgress.clear();
  const seen = await client.run({ op: 'timed', url: stack.relayUrl, tokens, turns, parallel, staggerMs });
  return timingsOf(seen.turns, stages, less);
}

/** Where a slow phase's time went, turn by turn, how late the event loop ran meanwhile, and the connections its tools opened to the control plane. */
interface SlowStages {
  turns: TurnMarks[];
  cpuMsPerTurn: number;
  loopDelayMs: { p50: number; p99: number; max: number };
  holdsLateMs: number[];
  connectionsOpened: number;
  /** Event-loop stalls longer than BLOCK_MS (ms each). */
  blocksMs: number[];
  /** The garbage collector's pauses (ms each), and which were full (mark-compact) collections. */
  gcPausesMs: number[];
  gcMajorMs: number[];
  /** With BENCH_CPU_PROFILE=<dir>: the phase's CPU profile, summarised. */
  profile?: ProfileSummary;
}

/** A stall of the event loop this long delays every conversation's next frame by as much. */
const BLOCK_MS = 50;

/** Records every stretch longer than BLOCK_MS during which a 5 ms timer could not run, and the garbage collector's pauses meanwhile. */
function watchBlocks(): { stop(): { blocksMs: number[]; gcPausesMs: number[]; gcMajorMs: number[] } } {
  const blocksMs: number[] = [];
  const gcPausesMs: number[] = [];
  const gcMajorMs: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const t = performance.now();
    if (t - last - 5 > BLOCK_MS) blocksMs.push(t - last - 5);
    last = t;
  }, 5);
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcPausesMs.push(e.duration);
      if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gcMajorMs.push(e.duration);
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  return {
    stop: () => {
      clearInterval(timer);
      gc.disconnect();
      return { blocksMs, gcPausesMs, gcMajorMs };
    },
  };
}

/** A figure on the runtime side (the headline), and the client's round trip for the same turns. */
interface Figure {
  p50: number;
  p99: number;
  turns: number;
  roundTrip: { p50: number; p99: number; turns: number };
}

const figureOf = (t: Timings): Figure => ({
  p50: percentile(t.runtime, 50),
  p99: percentile(t.runtime, 99),
  turns: t.runtime.length,
  roundTrip: { p50: percentile(t.roundTrip, 50), p99: percentile(t.roundTrip, 99), turns: t.roundTrip.length },
});

export interface RuntimeFigures {
  instant: Figure;
  /** Starts staggered (the figure); `lockstep` the same conversations started together. */
  slow: Figure;
  slowStages: SlowStages;
  lockstep: Figure;
  lockstepStages: SlowStages;
  /** Runtime side (interrupt arrived → last stale frame handed to the socket), the client's view beside it. */
  interrupt: { p99: number; staleFrames: number; interrupts: number; client: { p99: number; staleFrames: number } };
  concurrent: Figure & { conversations: number; misdelivered: number };
}

/** 1,000 turns with the slow stand-in, 10 conversations at a time, their n-th started n × staggerMs after the first. */
async function slowPhase(client: ClientProcess, stack: LocalStack, tokens: string[], staggerMs: number, name: string) {
  const marks: TurnMarks[] = [];
  holdTimers.length = 0;
  let connectionsOpened = 0;
  // The only fetches of this phase are the tools' requests to the control plane (events go to the sink).
  const opened = () => connectionsOpened++;
  diagnostics.subscribe('undici:client:connected', opened);
  const profileDir = process.env.BENCH_CPU_PROFILE;
  const profiling = profileDir ? await startCpuProfile(profileDir, `runtime-${name}`) : undefined;
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const blocks = watchBlocks();
  const cpuBefore = process.cpuUsage();
  const times = await timedTurns(client, stack, tokens, 1000, 10, marks, staggerMs, FIRST_TOKEN_MS);
  loopDelay.disable();
  const cpu = process.cpuUsage(cpuBefore);
  const { blocksMs, gcPausesMs, gcMajorMs } = blocks.stop();
  const profile = await profiling?.stop();
  diagnostics.unsubscribe('undici:client:connected', opened);
  const stages: SlowStages = {
    turns: marks,
    cpuMsPerTurn: (cpu.user + cpu.system) / 1000 / Math.max(1, times.runtime.length),
    loopDelayMs: { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 },
    holdsLateMs: holdTimers.filter((h) => h.fired !== undefined).map((h) => h.fired! - h.set - h.ms),
    connectionsOpened,
    blocksMs,
    gcPausesMs,
    gcMajorMs,
    ...(profile ? { profile } : {}),
  };
  return { figure: figureOf(times), stages };
}

export async function measureRuntime(stack: LocalStack, model: SwitchModel): Promise<RuntimeFigures> {
  await seedPlatformData();
  // Calls queued at night in New York are deferred: they exist, pinned to a version, and nobody dials them.
  setClockOffsetForTests(Date.parse('2026-11-17T03:00:00.000Z') - Date.now());
  const t = await createTenant({ name: 'Bench runtime', adminEmail: 'runtime@bench.test' });
  const auth = { authorization: `Bearer ${t.api_key.secret}`, 'content-type': 'application/json' };
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { ...auth, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, any>;
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const account = await api('POST', '/v1/telephony-accounts', { mode: 'byo', provider: 'mock' });
  await api('POST', `/v1/telephony-accounts/${account.id}/verify`);
  const number = await api('POST', '/v1/phone-numbers', { phone_e164: '+12125559200', telephony_account_id: account.id });
  const profile = await api('POST', '/v1/compliance-profiles', {
    name: 'Bench runtime',
    call_purpose: 'informational',
    subject: 'appointment_reminders',
    seller_name: 'Acme Solar LLC',
  });
  const agent = await api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', {
    disclosure_config: { business_name: 'Acme Solar' },
    compliance_profile_id: profile.id,
  });
  const version = await api('POST', `/v1/agents/${agent.id}/publish`);
  const evidence = { artifact_type: 'web_form', artifact_ref: 'https://bench.test/1', content_hash: 'a'.repeat(64) };
  const key = await callTokenKey();
  const tokens: string[] = [];
  for (let i = 0; i < 100; i++) {
    const contact = await api('POST', '/v1/contacts', {
      phone_e164: `+1212555${String(3000 + i).padStart(4, '0')}`,
      consent: { consent_basis: 'pewc', captured_at: '2026-01-01T00:00:00Z', scope: { purposes: ['appointment_reminders'] }, evidence },
    });
    const call = await api('POST', '/v1/calls', { agent_id: agent.id, contact_id: contact.id }, { 'idempotency-key': randomUUID() });
    tokens.push(
      mintStreamToken(
        key,
        { tenant_id: t.tenant_id, call_id: call.call_id as string, agent_version_id: version.id as string, number_id: number.id as string },
        now(),
      ),
    );
  }

  const client = ClientProcess.start();
  try {
    model.current = instantSandbox();
    await timedTurns(client, stack, tokens, 50, 1); // warm
    const instant = await timedTurns(client, stack, tokens, 1000, 1);

    model.current = slowSandbox();
    const lockstep = await slowPhase(client, stack, tokens, 0, 'lockstep');
    const slow = await slowPhase(client, stack, tokens, STAGGER_MS, 'staggered');

    model.current = longTalker;
    serverCalls.clear();
    const { interrupts } = await client.run({ op: 'interrupt', url: stack.relayUrl, tokens: tokens.slice(0, 10), interrupts: 200 });
    const lags: number[] = [];
    let staleFrames = 0;
    for (const i of interrupts) {
      const call = serverCalls.get(i.callSid);
      if (call?.interruptAt === undefined) continue;
      lags.push(call.lastStaleAt === undefined ? 0 : call.lastStaleAt - call.interruptAt);
      staleFrames += call.staleFrames;
    }

    model.current = echo;
    serverCalls.clear();
    const together = await client.run({ op: 'concurrent', url: stack.relayUrl, tokens, turnsEach: 5 });
    return {
      instant: figureOf(instant),
      slow: slow.figure,
      slowStages: slow.stages,
      lockstep: lockstep.figure,
      lockstepStages: lockstep.stages,
      interrupt: {
        p99: percentile(lags, 99),
        staleFrames,
        interrupts: lags.length,
        client: {
          p99: percentile(
            interrupts.map((i) => i.lagMs),
            99,
          ),
          staleFrames: interrupts.reduce((n, i) => n + i.staleFrames, 0),
        },
      },
      concurrent: { ...figureOf(timingsOf(together.turns)), conversations: tokens.length, misdelivered: together.misdelivered },
    };
  } finally {
    client.stop();
    setClockOffsetForTests(0);
  }
}

const roundTrip = (f: Figure, less = '') =>
  `    client round trip (prompt sent → first text received, client in its own process${less}): p50 ${fmt(f.roundTrip.p50)} ms p99 ${fmt(f.roundTrip.p99)} ms over ${f.roundTrip.turns} turns`;

export function printRuntime(f: RuntimeFigures): void {
  console.log(
    '\nVoice runtime on the local host (runtime side: a final prompt arriving at the session → its first text frame handed to the socket; the ConversationRelay client in a child process)',
  );
  console.log(
    `  runtime overhead (instant model) p50 ${fmt(f.instant.p50)} ms p99 ${fmt(f.instant.p99)} ms over ${f.instant.turns} turns (targets p50 ≤ 15, p99 ≤ 60)`,
  );
  console.log(roundTrip(f.instant));
  console.log(
    `  runtime overhead beyond a ${FIRST_TOKEN_MS} ms first token p50 ${fmt(f.slow.p50)} ms p99 ${fmt(f.slow.p99)} ms over ${f.slow.turns} turns, 10 conversations at a time started ${STAGGER_MS} ms apart (target p99 ≤ 60)`,
  );
  console.log(roundTrip(f.slow, `, beyond ${FIRST_TOKEN_MS} ms`));
  printStages(f.slowStages);
  console.log(
    `  the same 10 conversations in lockstep (every turn at once): p50 ${fmt(f.lockstep.p50)} ms p99 ${fmt(f.lockstep.p99)} ms over ${f.lockstep.turns} turns`,
  );
  console.log(roundTrip(f.lockstep, `, beyond ${FIRST_TOKEN_MS} ms`));
  printStages(f.lockstepStages);
  console.log(
    `  interrupt to last stale frame p99 ${fmt(f.interrupt.p99)} ms over ${f.interrupt.interrupts} interrupts, ${f.interrupt.staleFrames} stale frames in all (target p99 ≤ 20)`,
  );
  console.log(
    `    as the client saw it (interrupt sent → last stale frame received): p99 ${fmt(f.interrupt.client.p99)} ms, ${f.interrupt.client.staleFrames} stale frames`,
  );
  console.log(
    `  100 conversations overhead p99 ${fmt(f.concurrent.p99)} ms over ${f.concurrent.turns} turns; replies delivered to the wrong conversation: ${f.concurrent.misdelivered} (targets p99 ≤ 100, 0)`,
  );
  console.log(roundTrip(f.concurrent));
}

/** The segments between consecutive stages; the provider's segment is counted beyond its first-token hold. */
const SEGMENTS: { name: string; from: Stage; to: Stage; less?: number }[] = [
  { name: 'client → session (socket)', from: 'sent', to: 'arrived' },
  { name: 'session: queue + step → model called', from: 'arrived', to: 'modelCalled' },
  { name: 'chain → provider called', from: 'modelCalled', to: 'providerCalled' },
  { name: 'provider: decides its reply', from: 'providerCalled', to: 'providerReady' },
  { name: `provider hold beyond ${FIRST_TOKEN_MS} ms`, from: 'providerReady', to: 'holdFired', less: FIRST_TOKEN_MS },
  { name: 'hold fired → provider first token', from: 'holdFired', to: 'providerFirst' },
  { name: 'AI SDK → chain yields text', from: 'providerFirst', to: 'chainFirst' },
  { name: 'phrase + step → text frame sent', from: 'chainFirst', to: 'frameSent' },
  { name: 'session → client (socket)', from: 'frameSent', to: 'received' },
];
/** Not on the path to the first frame: the rest of the reply, after its first token. */
const REST = { name: '(first token → last frame sent)', from: 'providerFirst', to: 'lastSent' } as const;

const segment = (t: TurnMarks, s: (typeof SEGMENTS)[number]): number | undefined => {
  const a = t[s.from];
  const b = t[s.to];
  return a === undefined || b === undefined ? undefined : b - a - (s.less ?? 0);
};

function printStages(stages: SlowStages): void {
  const { turns, loopDelayMs } = stages;
  const row = (label: string, values: number[]) =>
    values.length
      ? `${label.padEnd(44)} p50 ${fmt(percentile(values, 50)).padStart(6)}  p99 ${fmt(percentile(values, 99)).padStart(6)}  max ${fmt(Math.max(...values)).padStart(6)}`
      : `${label.padEnd(44)} (none)`;
  const of = (s: (typeof SEGMENTS)[number] | typeof REST) => turns.map((t) => segment(t, s)).filter((v): v is number => v !== undefined);
  // The runtime side, as the headline figure: per turn, and for the slowest turns.
  const total = (t: TurnMarks) => (t.frameSent ?? NaN) - (t.arrived ?? NaN) - FIRST_TOKEN_MS;
  const clientSide = turns.map((t) => (t.received ?? NaN) - (t.sent ?? NaN) - FIRST_TOKEN_MS).filter(Number.isFinite);
  console.log(`    where it goes (${turns.length} turns; ms):`);
  console.log(`      ${row('in the runtime: prompt read → first frame sent', turns.map(total).filter(Number.isFinite))}`);
  console.log(`      ${row('client: prompt sent → first frame received', clientSide)}`);
  for (const s of [...SEGMENTS, REST]) console.log(`      ${row(s.name, of(s))}`);
  for (let i = 0; i < 12; i++) {
    const list = turns.filter((t) => t.index === i);
    if (!list.length) continue;
    const tools = [...new Set(list.map((t) => t.toolsBeforeText?.join('+') ?? 'none'))].join(', ');
    console.log(`      ${row(`turn ${i + 1} of a conversation (${list.length})`, list.map(total))}  tools before its text: ${tools}`);
  }
  const toolNames = [...new Set(turns.flatMap((t) => (t.toolMs === undefined ? [] : [t.toolsBeforeText?.join('+') ?? ''])))];
  for (const name of toolNames)
    console.log(
      `      ${row(
        `  of which ${name} call → result`,
        turns.filter((t) => t.toolMs !== undefined && t.toolsBeforeText?.join('+') === name).map((t) => t.toolMs!),
      )}`,
    );
  const tools = turns.filter((t) => t.toolMs !== undefined).length;
  console.log(`    control-plane connections opened: ${stages.connectionsOpened} for ${tools} tool calls before a first text (keep-alive)`);
  const worst = [...turns].sort((a, b) => total(b) - total(a)).slice(0, 5);
  console.log(`    the 5 slowest turns (segments as above, in order):`);
  for (const t of worst)
    console.log(
      `      ${fmt(total(t)).padStart(6)}  turn ${t.index + 1}  [${SEGMENTS.map((s) => fmt(segment(t, s) ?? NaN)).join(', ')}]  tools before text: ${t.toolsBeforeText?.join(' ') ?? 'none'} (${fmt(t.toolMs ?? 0)} ms)`,
    );
  // Whose first tokens were handled between this turn's hold running out and its own first token.
  const due = (t: TurnMarks) => (t.providerReady ?? NaN) + FIRST_TOKEN_MS;
  const ahead = turns.map(
    (t) => turns.filter((o) => o !== t && o.providerFirst !== undefined && o.providerFirst > due(t) && o.providerFirst < (t.providerFirst ?? -Infinity)).length,
  );
  const late = stages.holdsLateMs;
  console.log(
    `    other conversations' first tokens handled while one's was due: p50 ${percentile(ahead, 50)} p99 ${percentile(ahead, 99)}; hold timers late p50 ${fmt(percentile(late, 50))} p99 ${fmt(percentile(late, 99))} ms`,
  );
  console.log(
    `    process CPU per turn (runtime and API in this process; the client in its own) ${fmt(stages.cpuMsPerTurn, 2)} ms; event loop delay p50 ${fmt(loopDelayMs.p50)} p99 ${fmt(loopDelayMs.p99)} max ${fmt(loopDelayMs.max)} ms`,
  );
  const blocks = stages.blocksMs;
  console.log(
    `    event-loop blocks over ${BLOCK_MS} ms: ${blocks.length}${blocks.length ? ` (longest ${fmt(Math.max(...blocks))} ms, ${fmt(blocks.reduce((a, b) => a + b, 0))} ms in all)` : ''}`,
  );
  const gc = stages.gcPausesMs;
  console.log(
    `    garbage collection: ${gc.length} pauses, ${fmt(gc.reduce((a, b) => a + b, 0) / Math.max(1, turns.length), 2)} ms per turn, longest ${fmt(gc.length ? Math.max(...gc) : 0)} ms, ${gc.filter((ms) => ms > BLOCK_MS).length} over ${BLOCK_MS} ms; full collections ${stages.gcMajorMs.length} (longest ${fmt(Math.max(0, ...stages.gcMajorMs))} ms); heap used ${fmt(process.memoryUsage().heapUsed / 2 ** 20, 0)} MB`,
  );
  if (stages.profile) printProfile(stages.profile, turns.length);
}

function printProfile(p: ProfileSummary, turns: number): void {
  console.log(`    CPU profile (${p.file}): ${fmt(p.sampledMs / Math.max(1, turns), 2)} ms sampled per turn; the heaviest functions (ms per turn):`);
  const rows = (list: ProfileSummary['self']) => list.slice(0, 12).map((r) => `      ${fmt(r.ms / Math.max(1, turns), 3).padStart(7)}  ${r.fn}`);
  console.log('     by their own time:');
  for (const r of rows(p.self)) console.log(r);
  console.log("     the application's functions with what they called:");
  for (const r of rows(p.total)) console.log(r);
}
