import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runtimeEventsRequest } from '../../shared/schemas/runtime-events.js';
import type { VerifiedStreamClaims } from '../../shared/telephony/call-tokens.js';
import { LINES } from '../../shared/voice/phrases.js';
import type { CallBrief, ControlPlane, ReplyModel, ReplyPart, ReplyRequest, RuntimeEventInput, ToolSpec } from '../../shared/voice/ports.js';
import { ControlPlaneError } from '../../shared/voice/ports.js';
import { type OutboundMessage, outbound } from '../../shared/voice/protocol.js';
import { createRelaySession, type RelaySessionDeps, type SessionToolHooks, TOOL_FAILED_RESULT } from '../../shared/voice/session.js';
import { waitFor } from '../support/wait-for.js';

const TOKEN = 'v1.secret-call-token.mac';
const T0 = Date.parse('2026-11-24T12:00:00.000Z');
const claims: VerifiedStreamClaims = { tenant_id: 'ten_1', call_id: 'cal_1', agent_version_id: 'agv_1', number_id: 'num_1', exp: 2_000_000_000 };

function brief(over: Partial<CallBrief['definition']> = {}): CallBrief {
  return {
    claims,
    direction: 'outbound',
    use_case: 'appointment_setting',
    outcome_type: 'appointment',
    objectives: [{ id: 'book', description: 'Book a visit', required: true }],
    definition: {
      tools: ['check_calendar', 'end_call'],
      llm_route: { primary: 'openai:gpt-4o-mini', fallbacks: ['anthropic:claude-haiku'] },
      disclosure_config: { business_name: 'Acme' },
      ...over,
    },
    questions: [],
    context: {},
    transfer_targets: [],
  };
}

/** The control plane in memory: validates every post as the route would; can hold posts back or fail them. */
class MemoryControlPlane implements ControlPlane {
  stored: RuntimeEventInput[] = [];
  inFlight: RuntimeEventInput[][] = [];
  posts = 0;
  loads = 0;
  gate: Promise<void> | null = null;
  failPosts = 0;
  constructor(private readonly call: CallBrief | null) {}
  async loadCall() {
    this.loads++;
    return this.call;
  }
  async postEvents(events: readonly RuntimeEventInput[]) {
    this.posts++;
    runtimeEventsRequest.parse({ events });
    this.inFlight.push([...events]);
    if (this.gate) await this.gate;
    this.inFlight = this.inFlight.filter((b) => b[0] !== events[0]);
    if (this.failPosts > 0) {
      this.failPosts--;
      throw new ControlPlaneError('refused', 503);
    }
    this.stored.push(...events);
  }
  async checkCalendar() {
    return { slots: [] };
  }
  types() {
    return this.stored.map((e) => e.type);
  }
}

/** A reply the test feeds part by part; optionally deaf to the abort signal (a model that keeps yielding). */
class ScriptedReply {
  private parts: ReplyPart[] = [];
  private ended = false;
  private wake: (() => void) | null = null;
  /** The consumer asked for a part that was not there yet: every part pushed so far was taken and handled. */
  waiting = false;
  constructor(
    readonly request: ReplyRequest,
    private readonly ignoreAbort: boolean,
  ) {
    request.signal.addEventListener('abort', () => this.wake?.());
  }
  push(...parts: ReplyPart[]) {
    this.parts.push(...parts);
    this.waiting = false;
    this.wake?.();
  }
  end() {
    this.ended = true;
    this.wake?.();
  }
  async *stream(): AsyncGenerator<ReplyPart> {
    for (;;) {
      if (this.request.signal.aborted && !this.ignoreAbort) return;
      const part = this.parts.shift();
      if (part) {
        yield part;
        continue;
      }
      if (this.ended) return;
      this.waiting = true;
      await new Promise<void>((r) => (this.wake = r));
      this.waiting = false;
    }
  }
}

class ScriptedModel implements ReplyModel {
  replies: ScriptedReply[] = [];
  ignoreAbort = false;
  /** Runs before the reply's parts: lets a test make the model call a tool. */
  onRequest: ((reply: ScriptedReply) => void) | null = null;
  stream(request: ReplyRequest): AsyncIterable<ReplyPart> {
    const reply = new ScriptedReply(request, this.ignoreAbort);
    this.replies.push(reply);
    this.onRequest?.(reply);
    return reply.stream();
  }
}

const finish = (model = 'openai:gpt-4o-mini'): ReplyPart => ({ type: 'finish', model, usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 40 } });

function world(opts: { call?: CallBrief | null; tools?: (hooks: SessionToolHooks) => ToolSpec[]; fillerAfterMs?: number; toolTimeoutMs?: number } = {}) {
  const cp = new MemoryControlPlane(opts.call === undefined ? brief() : opts.call);
  const model = new ScriptedModel();
  const sent: OutboundMessage[] = [];
  const closed: { code: number; reason: string }[] = [];
  const logs: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const clock = { ms: T0 };
  const logger = (level: string) => (msg: string, fields?: Record<string, unknown>) => logs.push({ level, msg, fields });
  const deps: RelaySessionDeps = {
    verifyToken: (token, atInstant) => (token === TOKEN && atInstant.getTime() < claims.exp * 1000 ? claims : null),
    controlPlaneFor: () => cp,
    model,
    buildTools: opts.tools ? (_b, _cp, hooks) => opts.tools!(hooks) : undefined,
    send: (m) => {
      // What reaches the socket is always a valid outbound frame.
      expect(outbound.safeParse(m).success, JSON.stringify(m)).toBe(true);
      sent.push(m);
    },
    close: (code, reason) => closed.push({ code, reason }),
    now: () => new Date(clock.ms),
    log: { info: logger('info'), warn: logger('warn'), error: logger('error') },
    fillerAfterMs: opts.fillerAfterMs ?? 1500,
    ...(opts.toolTimeoutMs ? { toolTimeoutMs: opts.toolTimeoutMs } : {}),
  };
  const session = createRelaySession(deps);
  const frame = (m: Record<string, unknown>) => session.receive(JSON.stringify(m));
  const setupFrame = (token = TOKEN) =>
    frame({ type: 'setup', sessionId: 'VX1', callSid: 'CA1', from: '+15550100', to: '+15550101', customParameters: { token } });
  const texts = () => sent.filter((m) => m.type === 'text');
  return { cp, model, sent, closed, logs, clock, session, frame, setupFrame, texts, deps };
}

describe('relay session: setup', () => {
  it('reports the disclosure and the greeting turn', async () => {
    const w = world();
    await w.setupFrame();
    await waitFor(() => w.cp.stored.length === 3);
    expect(w.cp.types()).toEqual(['disclosure', 'turn', 'usage']);
    expect(w.closed).toEqual([]);
  });

  it.each([
    ['a bad token', () => world(), 'v1.forged.mac'],
    ['no token', () => world(), ''],
    ['an unknown call', () => world({ call: null }), TOKEN],
  ])('%s closes the socket with 1008 and writes nothing', async (_what, make, token) => {
    const w = make();
    await w.setupFrame(token);
    await w.frame({ type: 'prompt', voicePrompt: 'hello', last: true });
    await w.session.socketClosed();
    expect(w.closed).toEqual([{ code: 1008, reason: expect.any(String) }]);
    expect(w.cp.posts).toBe(0);
    expect(w.sent).toEqual([]);
    expect(w.model.replies).toEqual([]);
  });

  it('a control plane that cannot load the call closes the socket (1011) and writes nothing', async () => {
    const w = world();
    w.cp.loadCall = async () => {
      throw new ControlPlaneError('unavailable', 503);
    };
    await w.setupFrame();
    await w.frame({ type: 'prompt', voicePrompt: 'hello', last: true });
    expect(w.closed).toEqual([{ code: 1011, reason: 'call_unavailable' }]);
    expect(w.cp.posts).toBe(0);
    expect(w.sent).toEqual([]);
  });

  it('a system prompt that cannot be built ends the call like a failing model', async () => {
    const w = world();
    const session = createRelaySession({
      ...w.deps,
      systemPrompt: () => {
        throw new Error('bad template');
      },
    });
    await session.receive(JSON.stringify({ type: 'setup', sessionId: 'VX2', callSid: 'CA2', customParameters: { token: TOKEN } }));
    await session.receive(JSON.stringify({ type: 'prompt', voicePrompt: 'hello', last: true }));
    await waitFor(() => w.sent.some((m) => m.type === 'end'));
    expect(w.sent.at(-1)).toEqual({ type: 'end', handoffData: '{"reason":"model_failed"}' });
  });

  it('an expired token is refused', async () => {
    const w = world();
    w.clock.ms = claims.exp * 1000 + 1;
    await w.setupFrame();
    expect(w.closed).toHaveLength(1);
    expect(w.cp.loads).toBe(0);
  });

  it('ignores a replayed setup', async () => {
    const w = world();
    await w.setupFrame();
    await w.setupFrame();
    await w.session.socketClosed();
    expect(w.cp.loads).toBe(1);
    expect(w.cp.types().filter((t) => t === 'disclosure')).toHaveLength(1);
    expect(w.logs.some((l) => l.level === 'warn' && /setup replayed/.test(l.msg))).toBe(true);
  });

  it('ignores malformed and unknown frames, and carries on', async () => {
    const w = world();
    await w.setupFrame();
    for (const raw of ['not json', '{"type":"mystery"}', '{"type":"prompt"}', '[]', '{"type":"dtmf","digit":"55"}'])
      await expect(w.session.receive(raw)).resolves.toBeUndefined();
    expect(w.logs.filter((l) => l.msg === 'inbound frame ignored').map((l) => l.fields?.reason)).toEqual([
      'not_json',
      'unknown_type',
      'malformed',
      'malformed',
      'malformed',
    ]);
    await w.frame({ type: 'prompt', voicePrompt: 'hello', last: true });
    await waitFor(() => w.model.replies.length === 1);
  });
});

describe('relay session: replies', () => {
  it('streams a reply as phrases and measures the latency from the final prompt to the first frame', async () => {
    const w = world();
    await w.setupFrame();
    w.clock.ms = T0 + 2000;
    await w.frame({ type: 'prompt', voicePrompt: 'I would like to book a visit', last: true });
    const reply = await waitFor(() => w.model.replies[0]);
    expect(reply.request).toMatchObject({ route: { primary: 'openai:gpt-4o-mini', fallbacks: ['anthropic:claude-haiku'] }, firstTokenDeadlineMs: 2500 });
    expect(reply.request.messages.at(-1)).toEqual({ role: 'user', content: 'I would like to book a visit' });
    expect(reply.request.system).toContain('<agent_plan>');
    w.clock.ms = T0 + 2600;
    reply.push({ type: 'text', delta: 'Sure' }, { type: 'text', delta: ', happy to help.' }, { type: 'text', delta: ' Which day' });
    await waitFor(() => w.texts().length === 1);
    w.clock.ms = T0 + 3000;
    reply.push({ type: 'text', delta: ' suits you?' }, finish());
    await waitFor(() => w.texts().length === 2);
    expect(w.texts()).toEqual([
      { type: 'text', token: 'Sure, happy to help.', last: false },
      { type: 'text', token: ' Which day suits you?', last: true },
    ]);
    w.clock.ms = T0 + 9000;
    await w.session.socketClosed();
    const agent = w.cp.stored.filter((e) => e.type === 'turn' && e.speaker === 'agent');
    expect(agent.at(-1)).toMatchObject({ text: 'Sure, happy to help. Which day suits you?', latency_ms: 600, model: 'openai:gpt-4o-mini' });
    expect(w.cp.stored.filter((e) => e.type === 'usage')).toEqual(
      expect.arrayContaining([expect.objectContaining({ llm_input_tokens: 100, llm_cached_input_tokens: 40 }), expect.objectContaining({ audio_seconds: 9 })]),
    );
    expect(w.cp.stored.at(-2)).toMatchObject({ type: 'hangup', by: 'contact' });
  });

  it('an interrupt mid-stream: no frame of the stale reply after it, even from a model that keeps yielding', async () => {
    const w = world();
    w.model.ignoreAbort = true;
    await w.setupFrame();
    await w.frame({ type: 'prompt', voicePrompt: 'Tell me about it', last: true });
    const reply = await waitFor(() => w.model.replies[0]);
    reply.push({ type: 'text', delta: 'It is a long story. ' }, { type: 'text', delta: 'It began' });
    await waitFor(() => w.texts().length === 1);
    await w.frame({ type: 'interrupt', utteranceUntilInterrupt: 'It is a long', durationUntilInterruptMs: 900 });
    expect(reply.request.signal.aborted).toBe(true);
    const count = w.sent.length;
    reply.push({ type: 'text', delta: ' in the spring. Then more happened. ' }, finish());
    reply.end();
    // The next reply proves the stale parts above were processed (inputs are applied in order) and dropped.
    await w.frame({ type: 'prompt', voicePrompt: 'OK, briefly', last: true });
    const next = await waitFor(() => w.model.replies[1]);
    expect(next.request.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'It is a long' },
      { role: 'user', content: 'OK, briefly' },
    ]);
    expect(w.sent.length).toBe(count);
    await w.session.socketClosed();
    expect(w.cp.stored.find((e) => e.type === 'turn' && e.speaker === 'agent' && e.interrupted)).toMatchObject({ text: 'It is a long', interrupted: true });
  });

  it('a model failing every attempt: a closing line, then end with model_failed', async () => {
    const w = world();
    await w.setupFrame();
    await w.frame({ type: 'prompt', voicePrompt: 'hello', last: true });
    const reply = await waitFor(() => w.model.replies[0]);
    reply.push(
      { type: 'fallback', model: 'openai:gpt-4o-mini', reason: 'first_token_timeout' },
      { type: 'error', reason: 'all_models_failed', models: ['openai:gpt-4o-mini', 'anthropic:claude-haiku'] },
    );
    await waitFor(() => w.sent.some((m) => m.type === 'end'));
    expect(w.sent).toEqual([
      { type: 'text', token: LINES.en!.model_failed_end, last: true },
      { type: 'end', handoffData: '{"reason":"model_failed"}' },
    ]);
    await w.session.socketClosed();
    expect(w.cp.stored.find((e) => e.type === 'hangup')).toMatchObject({ by: 'agent', reason: 'model_failed' });
  });

  it('a model failing every attempt hands the call to a rep when transfer is granted', async () => {
    const w = world({ call: { ...brief({ tools: ['transfer_to_human'] }), transfer_targets: [{ rep_id: 'rep_7', name: 'Ana' }] } });
    await w.setupFrame();
    await w.frame({ type: 'prompt', voicePrompt: 'hello', last: true });
    (await waitFor(() => w.model.replies[0])).push({ type: 'error', reason: 'all_models_failed', models: ['m'] });
    await waitFor(() => w.sent.some((m) => m.type === 'end'));
    expect(w.sent.at(-1)).toEqual({ type: 'end', handoffData: '{"reason":"transfer_to_human","rep_id":"rep_7"}' });
  });

  it('a control-plane write that fails is logged and the session keeps talking', async () => {
    const w = world();
    w.cp.failPosts = 1;
    await w.setupFrame();
    await waitFor(() => w.logs.some((l) => l.msg === 'runtime events not stored'));
    await w.frame({ type: 'prompt', voicePrompt: 'hello', last: true });
    const reply = await waitFor(() => w.model.replies[0]);
    reply.push({ type: 'text', delta: 'Hi there.' }, finish());
    await waitFor(() => w.texts().some((m) => m.last));
    await w.session.socketClosed();
    expect(w.logs.find((l) => l.msg === 'runtime events not stored')?.fields).toMatchObject({ ids: ['VX1:0', 'VX1:1', 'VX1:2'], status: 503 });
    expect(w.cp.types()).toContain('hangup');
  });
});

describe('relay session: events', () => {
  it('are posted in order, at most 25 a request, while speech goes on', async () => {
    const w = world();
    await w.setupFrame();
    await waitFor(() => w.cp.stored.length === 3);
    let release!: () => void;
    w.cp.gate = new Promise<void>((r) => (release = r));
    await w.frame({ type: 'prompt', voicePrompt: 'Are you a robot?', last: true });
    expect(w.texts()).toHaveLength(1); // said while the post is held
    for (let i = 0; i < 30; i++) await w.frame({ type: 'dtmf', digit: String(i % 10) });
    release();
    w.cp.gate = null;
    await w.session.socketClosed();
    const ids = w.cp.stored.map((e) => Number(e.id.split(':')[1]));
    expect(ids).toEqual(ids.map((_, i) => i));
    expect(w.cp.stored.filter((e) => e.type === 'turn' && e.speaker === 'contact')).toHaveLength(31);
    // The memory control plane refuses a batch over 25 (as the route does): nothing failed, and the backlog left in few posts.
    expect(w.logs.filter((l) => l.msg === 'runtime events not stored')).toEqual([]);
    expect(w.cp.posts).toBeLessThanOrEqual(6);
  });
});

describe('relay session: compliance', () => {
  it('an opt-out is stored before the acknowledgement is spoken', async () => {
    const w = world();
    await w.setupFrame();
    await waitFor(() => w.cp.stored.length === 3);
    let release!: () => void;
    w.cp.gate = new Promise<void>((r) => (release = r));
    w.clock.ms = T0 + 3000;
    const said = w.frame({ type: 'prompt', voicePrompt: 'Please stop calling me.', last: true });
    await waitFor(() => w.cp.inFlight.flat().some((e) => e.type === 'opt_out'));
    expect(w.sent).toEqual([]);
    release();
    w.cp.gate = null;
    await said;
    expect(w.sent).toEqual([
      { type: 'text', token: LINES.en!.opt_out_ack, last: true },
      { type: 'end', handoffData: '{"reason":"opt_out"}' },
    ]);
    expect(w.model.replies).toEqual([]);
    await w.session.socketClosed();
    expect(w.cp.types().slice(3)).toEqual(['turn', 'opt_out', 'usage', 'turn', 'outcome', 'hangup', 'usage']);
  });
});

describe('relay session: tools', () => {
  function calendarTool(execute: (args: unknown, ctx?: { signal: AbortSignal }) => Promise<unknown>): ToolSpec {
    return { name: 'check_calendar', description: 'Free slots', input: z.object({}), execute };
  }

  async function callingTool(w: ReturnType<typeof world>) {
    await w.setupFrame();
    await w.frame({ type: 'prompt', voicePrompt: 'When are you free?', last: true });
    const reply = await waitFor(() => w.model.replies[0]);
    reply.push({ type: 'text', delta: 'Let me check.' });
    // The host holds a delta that cannot complete a phrase yet; the tool call hands it over first.
    await waitFor(() => reply.waiting);
    const result = reply.request.tools[0]!.execute({}, { signal: reply.request.signal });
    return { reply, result };
  }

  it('a slow tool gets one filler phrase', async () => {
    let release!: (v: unknown) => void;
    const w = world({ fillerAfterMs: 20, tools: () => [calendarTool(() => new Promise((r) => (release = r)))] });
    const { reply, result } = await callingTool(w);
    await waitFor(() => w.texts().some((m) => m.token.includes(LINES.en!.filler)));
    expect(w.texts().map((m) => m.token)).toEqual(['Let me check.', ` ${LINES.en!.filler}`]);
    release({ slots: [] });
    await expect(result).resolves.toEqual({ slots: [] });
    reply.push({ type: 'text', delta: ' Tuesday works.' }, finish());
    await waitFor(() => w.texts().some((m) => m.last));
    expect(w.texts().filter((m) => m.token.includes(LINES.en!.filler))).toHaveLength(1);
  });

  it('a fast tool gets no filler', async () => {
    const w = world({ fillerAfterMs: 5_000, tools: () => [calendarTool(async () => ({ slots: [] }))] });
    const { reply, result } = await callingTool(w);
    await result;
    reply.push(finish());
    await waitFor(() => w.texts().some((m) => m.last));
    expect(w.texts().map((m) => m.token)).toEqual(['Let me check.', '']);
  });

  it('a failing tool: the contact hears one graceful sentence and the model is told it failed', async () => {
    const w = world({ tools: () => [calendarTool(async () => Promise.reject(new Error('calendar down')))] });
    const { result } = await callingTool(w);
    await expect(result).resolves.toEqual(TOOL_FAILED_RESULT);
    expect(w.texts().map((m) => m.token)).toEqual(['Let me check.', ` ${LINES.en!.tool_failed}`]);
    expect(w.logs.find((l) => l.msg === 'tool failed')?.fields).toMatchObject({ tool: 'check_calendar' });
  });

  it('a tool that never answers times out: the graceful sentence, the model told it failed, the tool aborted', async () => {
    let toolSignal: AbortSignal | undefined;
    const w = world({
      fillerAfterMs: 5_000,
      toolTimeoutMs: 30,
      tools: () => [
        calendarTool((_args: unknown, ctx?: { signal: AbortSignal }) => {
          toolSignal = ctx?.signal;
          return new Promise(() => {});
        }),
      ],
    });
    const { result } = await callingTool(w);
    await expect(result).resolves.toEqual(TOOL_FAILED_RESULT);
    expect(toolSignal?.aborted).toBe(true);
    expect(w.texts().map((m) => m.token)).toEqual(['Let me check.', ` ${LINES.en!.tool_failed}`]);
  });

  it("a tool's expected refusal (ToolError) goes to the model in its own words, with no runtime sentence", async () => {
    class ToolError extends Error {
      override name = 'ToolError';
    }
    const w = world({ tools: () => [calendarTool(async () => Promise.reject(new ToolError('That time has already passed: offer a future time')))] });
    const { result } = await callingTool(w);
    await expect(result).resolves.toEqual({ ...TOOL_FAILED_RESULT, message: 'That time has already passed: offer a future time' });
    expect(w.texts().map((m) => m.token)).toEqual(['Let me check.']);
    expect(w.logs.filter((l) => l.msg === 'tool failed')).toEqual([]);
  });

  it('end_call: the reply finishes, then end with the handoff, then the hangup', async () => {
    const endCall = (hooks: SessionToolHooks): ToolSpec => ({
      name: 'end_call',
      description: 'End',
      input: z.object({}),
      execute: async () => {
        hooks.requestEnd({ reason: 'end_call' });
        return { ok: true };
      },
    });
    const w = world({ tools: (hooks) => [endCall(hooks)] });
    await w.setupFrame();
    await w.frame({ type: 'prompt', voicePrompt: "That's all, thanks", last: true });
    const reply = await waitFor(() => w.model.replies[0]);
    await reply.request.tools[0]!.execute({}, { signal: reply.request.signal });
    w.clock.ms = T0 + 4000;
    reply.push({ type: 'text', delta: 'Thank you, goodbye!' }, finish());
    await waitFor(() => w.sent.some((m) => m.type === 'end'));
    expect(w.sent).toEqual([
      { type: 'text', token: 'Thank you, goodbye!', last: true },
      { type: 'end', handoffData: '{"reason":"end_call"}' },
    ]);
    await w.session.socketClosed();
    expect(w.cp.types().slice(-5)).toEqual(['usage', 'turn', 'outcome', 'hangup', 'usage']);
    expect(w.cp.stored.find((e) => e.type === 'hangup')).toMatchObject({ by: 'agent' });
  });
});

describe('relay session: tools reporting events', () => {
  it('post through the session queue, in order with its own events, and learn when the control plane refused them', async () => {
    let queued!: ControlPlane;
    const w = world({ call: brief() });
    const session = createRelaySession({
      ...w.deps,
      buildTools: (_b, cp) => {
        queued = cp;
        return [];
      },
    });
    await session.receive(JSON.stringify({ type: 'setup', sessionId: 'VX3', callSid: 'CA3', customParameters: { token: TOKEN } }));
    const at = new Date(T0).toISOString();
    await queued.postEvents([{ id: 'VX3:evt-0', at, type: 'recorded_response', kind: 'objective', question_id: 'book', value: 'yes' }]);
    expect(w.cp.stored.map((e) => e.id)).toEqual(['VX3:0', 'VX3:1', 'VX3:2', 'VX3:evt-0']);
    w.cp.failPosts = 1;
    await expect(queued.postEvents([{ id: 'VX3:evt-1', at, type: 'outcome', outcome: { outcome_type: 'none', goal_reached: true } }])).rejects.toBeInstanceOf(
      ControlPlaneError,
    );
  });
});

describe('relay session: tool event ids', () => {
  it('are deterministic per session, apart from the core ids, and kept in the state', async () => {
    let taken: string[] = [];
    const w = world({ call: brief() });
    const session = createRelaySession({
      ...w.deps,
      buildTools: (_b, _cp, _hooks, ids) => {
        taken = [ids.next('rr'), ids.next(''), ids.next('7'), ids.next('a:b/c')];
        return [];
      },
    });
    await session.receive(JSON.stringify({ type: 'setup', sessionId: 'VX9', callSid: 'CA9', customParameters: { token: TOKEN } }));
    expect(taken).toEqual(['VX9:rr-0', 'VX9:tool-1', 'VX9:7-2', 'VX9:a_b_c-3']);
    expect(session.state().toolEventSeq).toBe(4);
  });
});

describe('relay session: logs', () => {
  it('never log the call token, what the contact said or what the model said', async () => {
    const w = world();
    await w.setupFrame('v1.forged.mac');
    const v = world();
    await v.setupFrame();
    await v.frame({ type: 'prompt', voicePrompt: 'my secret is swordfish', last: true });
    const reply = await waitFor(() => v.model.replies[0]);
    reply.push({ type: 'text', delta: 'The answer is marmalade.' }, finish());
    await waitFor(() => v.texts().some((m) => m.last));
    await v.frame({ type: 'error', description: 'something' });
    await v.session.socketClosed();
    const text = JSON.stringify([...w.logs, ...v.logs]);
    for (const secret of ['forged', TOKEN, 'swordfish', 'marmalade']) expect(text).not.toContain(secret);
  });
});
