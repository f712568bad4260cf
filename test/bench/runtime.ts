/**
 * The voice runtime's own overhead on the local host (`BENCH_ONLY=runtime npm run bench`):
 * a ConversationRelay client on loopback plays Twilio's side against `npm start`'s relay
 * socket for real calls of a real tenant, and times what the runtime adds:
 *   1. a final `prompt` sent → the first `text` frame received, over 1,000 turns, with the
 *      sandbox model (the deterministic model `npm start` uses) answering at once;
 *   2. the same with a stand-in whose first token takes 300 ms, reported beyond those 300 ms
 *      (10 conversations at a time, so 1,000 turns take half a minute);
 *   3. `interrupt` sent → the last frame of the interrupted reply received (a stand-in that
 *      talks for a long time, interrupted at its first phrase); stale frames counted;
 *   4. 100 conversations at once (an echo stand-in naming each conversation's own words):
 *      overhead p99, and every reply checked to belong to its own conversation.
 * Sessions load the call's brief from the table as in production; what they report to the
 * control plane goes to an in-memory sink (these calls were never answered, so the events
 * route would refuse them, and its cost is not the runtime's).
 */
import { randomUUID } from 'node:crypto';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { WebSocket } from 'ws';
import { createTenant } from '../../shared/admin/bootstrap.js';
import { now, setClockOffsetForTests } from '../../shared/clock.js';
import { seedPlatformData } from '../../shared/seed/platform.js';
import { callTokenKey } from '../../shared/telephony/call-token-key.js';
import { mintStreamToken } from '../../shared/telephony/call-tokens.js';
import { createReplyModel } from '../../shared/voice/llm/chain.js';
import { createRegistry } from '../../shared/voice/llm/registry.js';
import { createSandboxModel } from '../../shared/voice/llm/sandbox-model.js';
import type { ReplyModel, ReplyPart, ReplyRequest } from '../../shared/voice/ports.js';
import type { LocalStack } from '../../infra/local/stack.js';
import { defaultCreateRelaySession, type CreateRelaySession } from '../../infra/local/relay-session.js';
import { fmt, percentile, pool } from './stats.js';

const FIRST_TOKEN_MS = 300;
const GREETING_MS = 250;

/** The model the stack's relay uses, switched between the bench's phases. */
export class SwitchModel implements ReplyModel {
  current: ReplyModel = instantSandbox();
  stream(request: ReplyRequest): AsyncIterable<ReplyPart> {
    return this.current.stream(request);
  }
}

const chainOf = (model: LanguageModelV3): ReplyModel => createReplyModel({ registry: createRegistry(), resolveModel: () => model });
const instantSandbox = () => chainOf(createSandboxModel({ modelId: 'sandbox-default' }));
const slowSandbox = () => chainOf(createSandboxModel({ modelId: 'sandbox-slow', behaviour: 'slow', firstTokenDelayMs: FIRST_TOKEN_MS }));

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

/** The session `npm start` serves, reporting to an in-memory sink instead of the events route. */
export const sinkSessions: CreateRelaySession = (deps) =>
  defaultCreateRelaySession({
    ...deps,
    controlPlaneFor: (claims) => {
      const real = deps.controlPlaneFor(claims);
      return { loadCall: (c) => real.loadCall(c), postEvents: async () => {}, checkCalendar: (q) => real.checkCalendar(q) };
    },
  });

interface Frame {
  at: number;
  msg: Record<string, unknown>;
}

/** One ConversationRelay connection as Twilio holds it. */
class RelayClient {
  private frames: Frame[] = [];
  private waiters: (() => void)[] = [];
  closed = false;
  private constructor(private ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push({ at: performance.now(), msg: JSON.parse(String(data)) as Record<string, unknown> });
      for (const w of this.waiters.splice(0)) w();
    });
    ws.on('close', () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
  }

  static async open(url: string, token: string): Promise<RelayClient> {
    const ws = new WebSocket(`${url}?token=${encodeURIComponent(token)}`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const client = new RelayClient(ws);
    client.send({ type: 'setup', sessionId: `VX${randomUUID().replace(/-/g, '')}`, callSid: `CA${randomUUID().replace(/-/g, '')}`, direction: 'outbound-api', customParameters: { token } });
    // Twilio speaks the welcome greeting (the disclosure, seconds long) before the contact can answer;
    // a quarter second of it is enough for the session to load its call, as it does behind the greeting.
    await client.until(client.count, () => false, GREETING_MS);
    return client;
  }

  send(msg: Record<string, unknown>): number {
    this.ws.send(JSON.stringify(msg));
    return performance.now();
  }

  /** Frames from index `from` on, once one matches (or the socket closes, or the deadline passes). */
  async until(from: number, match: (f: Frame) => boolean, deadlineMs = 10_000): Promise<Frame | undefined> {
    const end = performance.now() + deadlineMs;
    for (;;) {
      const hit = this.frames.slice(from).find(match);
      if (hit || this.closed || performance.now() > end) return hit;
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.max(1, end - performance.now()));
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  get count(): number {
    return this.frames.length;
  }

  framesFrom(from: number): Frame[] {
    return this.frames.slice(from);
  }

  close(): void {
    this.ws.close();
  }
}

const isText = (f: Frame) => f.msg.type === 'text';
const isReplyEnd = (f: Frame) => (f.msg.type === 'text' && f.msg.last === true) || f.msg.type === 'end';

/** One turn: the prompt's send time → first text frame; the reply's whole text; whether the session ended. */
async function turn(client: RelayClient, words: string): Promise<{ firstMs: number | undefined; text: string; ended: boolean }> {
  const from = client.count;
  const sent = client.send({ type: 'prompt', voicePrompt: words, lang: 'en-US', last: true });
  const first = await client.until(from, isText);
  const end = await client.until(from, isReplyEnd);
  const frames = client.framesFrom(from);
  const text = frames.filter(isText).map((f) => String(f.msg.token)).join('');
  return { firstMs: first ? first.at - sent : undefined, text, ended: client.closed || frames.some((f) => f.msg.type === 'end') || !end };
}

/** Conversations until `turns` turns were timed, `parallel` at a time, each call's socket reused after it closes. */
async function timedTurns(stack: LocalStack, tokens: string[], turns: number, parallel: number): Promise<number[]> {
  const times: number[] = [];
  await pool(tokens.slice(0, parallel), parallel, async (token) => {
    while (times.length < turns) {
      const client = await RelayClient.open(stack.relayUrl, token);
      for (let i = 0; i < 12 && times.length < turns; i++) {
        const t = await turn(client, i === 0 ? 'Yes, that is me.' : 'Yes, sure.');
        if (t.firstMs !== undefined) times.push(t.firstMs);
        if (t.ended) break;
      }
      client.close();
      await client.until(client.count, () => false, 2000);
    }
  });
  return times.slice(0, turns);
}

export interface RuntimeFigures {
  instant: { p50: number; p99: number; turns: number };
  slow: { p50: number; p99: number; turns: number };
  interrupt: { p99: number; staleFrames: number; interrupts: number };
  concurrent: { p99: number; conversations: number; turns: number; misdelivered: number };
}

export async function measureRuntime(stack: LocalStack, model: SwitchModel): Promise<RuntimeFigures> {
  await seedPlatformData();
  // Calls queued at night in New York are deferred: they exist, pinned to a version, and nobody dials them.
  setClockOffsetForTests(Date.parse('2026-11-17T03:00:00.000Z') - Date.now());
  const t = await createTenant({ name: 'Bench runtime', adminEmail: 'runtime@bench.test' });
  const auth = { authorization: `Bearer ${t.api_key.secret}`, 'content-type': 'application/json' };
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${stack.baseUrl}${path}`, { method, headers: { ...auth, ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json()) as Record<string, any>;
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  const account = await api('POST', '/v1/telephony-accounts', { mode: 'byo', provider: 'mock' });
  await api('POST', `/v1/telephony-accounts/${account.id}/verify`);
  const number = await api('POST', '/v1/phone-numbers', { phone_e164: '+12125559200', telephony_account_id: account.id });
  const profile = await api('POST', '/v1/compliance-profiles', { name: 'Bench runtime', call_purpose: 'informational', subject: 'appointment_reminders', seller_name: 'Acme Solar LLC' });
  const agent = await api('POST', '/v1/templates/tpl_sdr_outbound/instantiate', { disclosure_config: { business_name: 'Acme Solar' }, compliance_profile_id: profile.id });
  const version = await api('POST', `/v1/agents/${agent.id}/publish`);
  const evidence = { artifact_type: 'web_form', artifact_ref: 'https://bench.test/1', content_hash: 'a'.repeat(64) };
  const key = await callTokenKey();
  const tokens: string[] = [];
  for (let i = 0; i < 100; i++) {
    const contact = await api('POST', '/v1/contacts', { phone_e164: `+1212555${String(3000 + i).padStart(4, '0')}`, consent: { consent_basis: 'pewc', captured_at: '2026-01-01T00:00:00Z', scope: { purposes: ['appointment_reminders'] }, evidence } });
    const call = await api('POST', '/v1/calls', { agent_id: agent.id, contact_id: contact.id }, { 'idempotency-key': randomUUID() });
    tokens.push(mintStreamToken(key, { tenant_id: t.tenant_id, call_id: call.call_id as string, agent_version_id: version.id as string, number_id: number.id as string }, now()));
  }

  model.current = instantSandbox();
  await timedTurns(stack, tokens, 50, 1); // warm
  const instant = await timedTurns(stack, tokens, 1000, 1);

  model.current = slowSandbox();
  const slow = (await timedTurns(stack, tokens, 1000, 10)).map((ms) => ms - FIRST_TOKEN_MS);

  model.current = longTalker;
  const lags: number[] = [];
  let staleFrames = 0;
  for (let i = 0; i < 200; i++) {
    const client = await RelayClient.open(stack.relayUrl, tokens[i % 10]!);
    const from = client.count;
    client.send({ type: 'prompt', voicePrompt: 'Tell me everything.', lang: 'en-US', last: true });
    const first = await client.until(from, isText);
    if (first) {
      const sentAt = client.send({ type: 'interrupt', utteranceUntilInterrupt: String(first.msg.token), durationUntilInterruptMs: 200 });
      // A quiet quarter second after the interrupt: whatever of the old reply arrives by then was sent after it.
      await client.until(client.count, () => false, 250);
      const stale = client.framesFrom(from).filter((f) => f.at >= sentAt && isText(f));
      staleFrames += stale.length;
      lags.push(stale.length ? stale.at(-1)!.at - sentAt : 0);
    }
    client.close();
    await client.until(client.count, () => false, 2000);
  }

  model.current = echo;
  const concurrentTimes: number[] = [];
  let misdelivered = 0;
  await Promise.all(
    tokens.map(async (token, c) => {
      const client = await RelayClient.open(stack.relayUrl, token);
      for (let i = 0; i < 5; i++) {
        const words = `conversation ${c} turn ${i}`;
        const r = await turn(client, words);
        if (r.firstMs !== undefined) concurrentTimes.push(r.firstMs);
        if (!r.text.includes(words)) misdelivered++;
      }
      client.close();
    }),
  );
  setClockOffsetForTests(0);
  return {
    instant: { p50: percentile(instant, 50), p99: percentile(instant, 99), turns: instant.length },
    slow: { p50: percentile(slow, 50), p99: percentile(slow, 99), turns: slow.length },
    interrupt: { p99: percentile(lags, 99), staleFrames, interrupts: lags.length },
    concurrent: { p99: percentile(concurrentTimes, 99), conversations: tokens.length, turns: concurrentTimes.length, misdelivered },
  };
}

export function printRuntime(f: RuntimeFigures): void {
  console.log('\nVoice runtime on the local host (loopback ConversationRelay client; prompt sent → first text frame received)');
  console.log(`  runtime overhead (instant model) p50 ${fmt(f.instant.p50)} ms p99 ${fmt(f.instant.p99)} ms over ${f.instant.turns} turns (targets p50 ≤ 15, p99 ≤ 60)`);
  console.log(`  runtime overhead beyond a ${FIRST_TOKEN_MS} ms first token p50 ${fmt(f.slow.p50)} ms p99 ${fmt(f.slow.p99)} ms over ${f.slow.turns} turns, 10 conversations at a time`);
  console.log(`  interrupt to last stale frame p99 ${fmt(f.interrupt.p99)} ms over ${f.interrupt.interrupts} interrupts, ${f.interrupt.staleFrames} stale frames in all (target p99 ≤ 20)`);
  console.log(`  100 conversations overhead p99 ${fmt(f.concurrent.p99)} ms over ${f.concurrent.turns} turns; replies delivered to the wrong conversation: ${f.concurrent.misdelivered} (targets p99 ≤ 100, 0)`);
}
