/**
 * The runtime bench's Twilio stand-in (test/bench/runtime.ts), run as a child process so the
 * ConversationRelay client has its own event loop, as Twilio's does: its sockets, parsing and
 * waiting never delay the runtime it times. The parent sends one phase at a time over IPC and
 * gets back what the client saw; its instants are epoch milliseconds (performance.timeOrigin +
 * performance.now()), comparable with the parent's on the same machine.
 */
import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';

const GREETING_MS = 250;

export type ClientPhase =
  | { op: 'timed'; url: string; tokens: string[]; turns: number; parallel: number; staggerMs: number }
  | { op: 'interrupt'; url: string; tokens: string[]; interrupts: number }
  | { op: 'concurrent'; url: string; tokens: string[]; turnsEach: number };

/** One turn as the client saw it: prompt sent → first text frame received (epoch ms). */
export interface ClientTurn {
  callSid: string;
  /** The turn's place in its conversation (the session counts its prompts the same way). */
  index: number;
  sent: number;
  received?: number;
}

export interface ClientInterrupt {
  callSid: string;
  /** `interrupt` sent → the last text frame of the old reply received; 0 when none came after it. */
  lagMs: number;
  staleFrames: number;
}

export type ClientResult =
  | { op: 'timed'; turns: ClientTurn[] }
  | { op: 'interrupt'; interrupts: ClientInterrupt[] }
  | { op: 'concurrent'; turns: ClientTurn[]; misdelivered: number };

const epoch = () => performance.timeOrigin + performance.now();

interface Frame {
  at: number;
  msg: Record<string, unknown>;
}

/** One ConversationRelay connection as Twilio holds it. */
class RelayClient {
  private frames: Frame[] = [];
  private waiters: (() => void)[] = [];
  closed = false;
  readonly callSid = `CA${randomUUID().replace(/-/g, '')}`;
  private constructor(private ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push({ at: epoch(), msg: JSON.parse(String(data)) as Record<string, unknown> });
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
    client.send({
      type: 'setup',
      sessionId: `VX${randomUUID().replace(/-/g, '')}`,
      callSid: client.callSid,
      direction: 'outbound-api',
      customParameters: { token },
    });
    // Twilio speaks the welcome greeting (the disclosure, seconds long) before the contact can answer;
    // a quarter second of it is enough for the session to load its call, as it does behind the greeting.
    await client.until(client.count, () => false, GREETING_MS);
    return client;
  }

  send(msg: Record<string, unknown>): number {
    this.ws.send(JSON.stringify(msg));
    return epoch();
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

/** One turn: its timing, the reply's whole text, and whether the session ended. */
async function turn(client: RelayClient, words: string, index: number): Promise<{ timing: ClientTurn; text: string; ended: boolean }> {
  const from = client.count;
  const sent = client.send({ type: 'prompt', voicePrompt: words, lang: 'en-US', last: true });
  // An `end` the session sent after the previous reply's last text may come first: no reply follows it.
  const first = await client.until(from, (f) => isText(f) || f.msg.type === 'end');
  const firstText = first && isText(first) ? first : undefined;
  const end = await client.until(from, isReplyEnd);
  const frames = client.framesFrom(from);
  const text = frames
    .filter(isText)
    .map((f) => String(f.msg.token))
    .join('');
  return {
    timing: { callSid: client.callSid, index, sent, ...(firstText ? { received: firstText.at } : {}) },
    text,
    ended: client.closed || frames.some((f) => f.msg.type === 'end') || !end,
  };
}

async function pool<T>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

/**
 * Conversations until `turns` turns got a first text, `parallel` at a time, each call's socket
 * reused after it closes; the n-th conversation slot starts n × `staggerMs` after the first.
 */
async function timed(p: Extract<ClientPhase, { op: 'timed' }>): Promise<ClientTurn[]> {
  const done: ClientTurn[] = [];
  await pool(p.tokens.slice(0, p.parallel), p.parallel, async (token, slot) => {
    if (p.staggerMs && slot > 0) await new Promise((r) => setTimeout(r, slot * p.staggerMs));
    while (done.length < p.turns) {
      const client = await RelayClient.open(p.url, token);
      for (let i = 0; i < 12 && done.length < p.turns; i++) {
        const t = await turn(client, i === 0 ? 'Yes, that is me.' : 'Yes, sure.', i);
        if (t.timing.received !== undefined && done.length < p.turns) done.push(t.timing);
        if (t.ended) break;
      }
      client.close();
      await client.until(client.count, () => false, 2000);
    }
  });
  return done.slice(0, p.turns);
}

async function interrupts(p: Extract<ClientPhase, { op: 'interrupt' }>): Promise<ClientInterrupt[]> {
  const out: ClientInterrupt[] = [];
  for (let i = 0; i < p.interrupts; i++) {
    const client = await RelayClient.open(p.url, p.tokens[i % p.tokens.length]!);
    const from = client.count;
    client.send({ type: 'prompt', voicePrompt: 'Tell me everything.', lang: 'en-US', last: true });
    const first = await client.until(from, isText);
    if (first) {
      const sentAt = client.send({ type: 'interrupt', utteranceUntilInterrupt: String(first.msg.token), durationUntilInterruptMs: 200 });
      // A quiet quarter second after the interrupt: whatever of the old reply arrives by then was sent after it.
      await client.until(client.count, () => false, 250);
      const stale = client.framesFrom(from).filter((f) => f.at >= sentAt && isText(f));
      out.push({ callSid: client.callSid, lagMs: stale.length ? stale.at(-1)!.at - sentAt : 0, staleFrames: stale.length });
    }
    client.close();
    await client.until(client.count, () => false, 2000);
  }
  return out;
}

/** Every conversation at once; each reply must name its own conversation's words. */
async function concurrent(p: Extract<ClientPhase, { op: 'concurrent' }>): Promise<{ turns: ClientTurn[]; misdelivered: number }> {
  const turns: ClientTurn[] = [];
  let misdelivered = 0;
  await Promise.all(
    p.tokens.map(async (token, c) => {
      const client = await RelayClient.open(p.url, token);
      for (let i = 0; i < p.turnsEach; i++) {
        const words = `conversation ${c} turn ${i}`;
        const r = await turn(client, words, i);
        if (r.timing.received !== undefined) turns.push(r.timing);
        if (!r.text.includes(words)) misdelivered++;
      }
      client.close();
    }),
  );
  return { turns, misdelivered };
}

async function runPhase(p: ClientPhase): Promise<ClientResult> {
  if (p.op === 'timed') return { op: 'timed', turns: await timed(p) };
  if (p.op === 'interrupt') return { op: 'interrupt', interrupts: await interrupts(p) };
  return { op: 'concurrent', ...(await concurrent(p)) };
}

process.on('message', (p: ClientPhase) => {
  runPhase(p).then(
    (result) => process.send?.({ ok: true, result }),
    (err: unknown) => process.send?.({ ok: false, error: (err as Error)?.stack ?? String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
