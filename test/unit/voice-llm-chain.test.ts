import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createReplyModel, TOOL_FAILED_OUTPUT } from '../../shared/voice/llm/chain.js';
import type { ReplyPart, ReplyRequest, ToolSpec } from '../../shared/voice/ports.js';

const usage = (input: number, output: number, cacheRead = 0): LanguageModelV3Usage => ({
  inputTokens: { total: input, noCache: input - cacheRead, cacheRead, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});
const finish = (u = usage(10, 2), unified: 'stop' | 'tool-calls' = 'stop'): LanguageModelV3StreamPart => ({
  type: 'finish',
  usage: u,
  finishReason: { unified, raw: undefined },
});
const words = (...ws: string[]): LanguageModelV3StreamPart[] => [
  { type: 'text-start', id: 't' },
  ...ws.map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
  { type: 'text-end', id: 't' },
];

/** A provider stream: the parts, then closed — or, with `hang`, held open until the call is aborted. */
function streamOf(parts: LanguageModelV3StreamPart[], opts: { hang?: boolean; signal?: AbortSignal } = {}): ReadableStream<LanguageModelV3StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(p);
      if (!opts.hang) return controller.close();
      const stop = () => controller.error(opts.signal?.reason ?? new Error('aborted'));
      if (opts.signal?.aborted) stop();
      else opts.signal?.addEventListener('abort', stop, { once: true });
    },
  });
}

function model(
  id: string,
  step: (opts: LanguageModelV3CallOptions, call: number) => { parts: LanguageModelV3StreamPart[]; hang?: boolean } | Error,
): MockLanguageModelV3 {
  let calls = 0;
  return new MockLanguageModelV3({
    modelId: id,
    doStream: async (opts) => {
      const out = step(opts, calls++);
      if (out instanceof Error) throw out;
      return { stream: streamOf([{ type: 'stream-start', warnings: [] }, ...out.parts], { hang: out.hang, signal: opts.abortSignal }) };
    },
  });
}

function chain(models: Record<string, LanguageModelV3>) {
  return createReplyModel({ registry: { isKnownModel: (id) => id in models }, resolveModel: (id) => models[id]! });
}

function request(route: string[], extra: Partial<ReplyRequest> = {}): ReplyRequest {
  return {
    system: 'You are a test agent.',
    messages: [{ role: 'user', content: 'Hello?' }],
    tools: [],
    route: { primary: route[0]!, fallbacks: route.slice(1) },
    signal: new AbortController().signal,
    firstTokenDeadlineMs: 5_000,
    ...extra,
  };
}

async function collect(parts: AsyncIterable<ReplyPart>): Promise<ReplyPart[]> {
  const out: ReplyPart[] = [];
  for await (const p of parts) out.push(p);
  return out;
}

const text = (parts: ReplyPart[]) => parts.flatMap((p) => (p.type === 'text' ? [p.delta] : [])).join('');
const kinds = (parts: ReplyPart[]) => parts.map((p) => p.type);

describe('reply chain', () => {
  it('streams the primary reply with its model and usage (cached input tokens included)', async () => {
    const a = model('a', () => ({ parts: [...words('Hello ', 'there.'), finish(usage(120, 4, 100))] }));
    const parts = await collect(chain({ a }).stream(request(['a', 'b'])));
    expect(parts).toEqual([
      { type: 'text', delta: 'Hello ' },
      { type: 'text', delta: 'there.' },
      { type: 'finish', model: 'a', usage: { inputTokens: 120, outputTokens: 4, cachedInputTokens: 100 } },
    ]);
    expect(a.doStreamCalls[0]!.prompt[0]).toEqual({ role: 'system', content: 'You are a test agent.' });
  });

  it('falls over to the next model when one fails before any token (thrown or an error part)', async () => {
    const a = model('a', () => new Error('503 from provider'));
    const b = model('b', () => ({ parts: [{ type: 'error', error: new Error('overloaded') }] }));
    const c = model('c', () => ({ parts: [...words('From c.'), finish()] }));
    const parts = await collect(chain({ a, b, c }).stream(request(['a', 'b', 'c'])));
    expect(parts.slice(0, 2)).toEqual([
      { type: 'fallback', model: 'a', reason: 'error' },
      { type: 'fallback', model: 'b', reason: 'error' },
    ]);
    expect(text(parts)).toBe('From c.');
    expect(parts.at(-1)).toMatchObject({ type: 'finish', model: 'c' });
  });

  it('an unknown model id fails its attempt and the chain moves on', async () => {
    const b = model('b', () => ({ parts: [...words('ok'), finish()] }));
    const parts = await collect(chain({ b }).stream(request(['ghost', 'b'])));
    expect(parts[0]).toEqual({ type: 'fallback', model: 'ghost', reason: 'error' });
    expect(text(parts)).toBe('ok');
  });

  it('falls over when the first token misses the deadline, aborting the slow call', async () => {
    const a = model('a', () => ({ parts: [], hang: true }));
    const b = model('b', () => ({ parts: [...words('Quick.'), finish()] }));
    const started = Date.now();
    const parts = await collect(chain({ a, b }).stream(request(['a', 'b'], { firstTokenDeadlineMs: 30 })));
    expect(parts[0]).toEqual({ type: 'fallback', model: 'a', reason: 'first_token_timeout' });
    expect(text(parts)).toBe('Quick.');
    expect(a.doStreamCalls[0]!.abortSignal?.aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('the deadline is for the first token only: a slow reply after it is not abandoned', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const a = new MockLanguageModelV3({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          async start(c) {
            c.enqueue({ type: 'stream-start', warnings: [] });
            for (const p of words('First ')) c.enqueue(p);
            await gate;
            for (const p of words('then the rest.')) c.enqueue(p);
            c.enqueue(finish());
            c.close();
          },
        }),
      }),
    });
    const parts: ReplyPart[] = [];
    for await (const p of chain({ a }).stream(request(['a', 'b'], { firstTokenDeadlineMs: 20 }))) {
      parts.push(p);
      if (parts.length === 1) setTimeout(release, 60);
    }
    expect(text(parts)).toBe('First then the rest.');
    expect(kinds(parts)).not.toContain('fallback');
  });

  it('a deadline of 0 or Infinity means no deadline (not an instant timeout)', async () => {
    for (const firstTokenDeadlineMs of [0, Number.POSITIVE_INFINITY]) {
      const a = new MockLanguageModelV3({
        doStream: async () => ({
          stream: new ReadableStream<LanguageModelV3StreamPart>({
            async start(c) {
              await new Promise((r) => setTimeout(r, 30));
              for (const p of [...words('Late but fine.'), finish()]) c.enqueue(p);
              c.close();
            },
          }),
        }),
      });
      const parts = await collect(chain({ a }).stream(request(['a', 'b'], { firstTokenDeadlineMs })));
      expect(text(parts)).toBe('Late but fine.');
    }
  });

  it('never falls over once a token was emitted: the reply ends with what was said', async () => {
    const a = model('a', () => ({ parts: [...words('Let me '), { type: 'error', error: new Error('connection reset') }] }));
    const b = model('b', () => ({ parts: [...words('Other model'), finish()] }));
    const parts = await collect(chain({ a, b }).stream(request(['a', 'b'])));
    expect(parts).toEqual([
      { type: 'text', delta: 'Let me ' },
      { type: 'finish', model: 'a', usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 } },
    ]);
    expect(b.doStreamCalls).toHaveLength(0);
  });

  it('every model failing is one error part naming the models', async () => {
    const a = model('a', () => new Error('down'));
    const b = model('b', () => ({ parts: [], hang: true }));
    const parts = await collect(chain({ a, b }).stream(request(['a', 'b'], { firstTokenDeadlineMs: 20 })));
    expect(parts).toEqual([
      { type: 'fallback', model: 'a', reason: 'error' },
      { type: 'fallback', model: 'b', reason: 'first_token_timeout' },
      { type: 'error', reason: 'all_models_failed', models: ['a', 'b'] },
    ]);
  });

  it('aborting the request ends the stream promptly and aborts the model call', async () => {
    const a = model('a', () => ({ parts: words('Partial '), hang: true }));
    const abort = new AbortController();
    const parts: ReplyPart[] = [];
    const started = Date.now();
    for await (const p of chain({ a }).stream(request(['a', 'b'], { signal: abort.signal }))) {
      parts.push(p);
      abort.abort();
    }
    expect(parts).toEqual([{ type: 'text', delta: 'Partial ' }]);
    expect(a.doStreamCalls[0]!.abortSignal?.aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('an already aborted request yields nothing and calls no model', async () => {
    const a = model('a', () => ({ parts: [...words('x'), finish()] }));
    const abort = new AbortController();
    abort.abort();
    expect(await collect(chain({ a }).stream(request(['a'], { signal: abort.signal })))).toEqual([]);
    expect(a.doStreamCalls).toHaveLength(0);
  });

  describe('tools', () => {
    const toolCall = (id: string, name: string, input: unknown): LanguageModelV3StreamPart => ({
      type: 'tool-call',
      toolCallId: id,
      toolName: name,
      input: JSON.stringify(input),
    });
    const lookupThenSay = () =>
      model('a', (opts, call) =>
        call === 0
          ? { parts: [toolCall('c1', 'lookup', { q: 'hours' }), finish(usage(50, 5), 'tool-calls')] }
          : { parts: [...words(`Result: ${JSON.stringify(opts.prompt.at(-1))}`), finish(usage(70, 3, 40))] },
      );

    it('runs multi-step tool use: the call, its result (executed with an abort signal), then the reply; usage summed', async () => {
      const seen: { args: unknown; signal: AbortSignal }[] = [];
      const lookup: ToolSpec = {
        name: 'lookup',
        description: 'Look something up',
        input: z.strictObject({ q: z.string() }),
        execute: async (args, { signal }) => {
          seen.push({ args, signal });
          return { ok: true, answer: '9 to 5' };
        },
      };
      const a = lookupThenSay();
      const parts = await collect(chain({ a }).stream(request(['a'], { tools: [lookup] })));
      expect(kinds(parts)).toEqual(['tool-call', 'tool-result', 'text', 'finish']);
      expect(parts[0]).toEqual({ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { q: 'hours' } });
      expect(parts[1]).toEqual({ type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { ok: true, answer: '9 to 5' } });
      expect(text(parts)).toContain('9 to 5');
      expect(parts.at(-1)).toEqual({ type: 'finish', model: 'a', usage: { inputTokens: 120, outputTokens: 8, cachedInputTokens: 40 } });
      expect(seen).toHaveLength(1);
      expect(seen[0]!.args).toEqual({ q: 'hours' });
      expect(seen[0]!.signal).toBeInstanceOf(AbortSignal);
      const tools = a.doStreamCalls[0]!.tools!;
      expect(tools.map((t) => t.name)).toEqual(['lookup']);
      expect(tools[0]).toMatchObject({ type: 'function', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } });
    });

    it('a tool that throws is reported as failed, without its error text', async () => {
      const lookup: ToolSpec = {
        name: 'lookup',
        description: 'x',
        input: z.object({ q: z.string() }),
        execute: async () => Promise.reject(new Error('secret-db-password-in-message')),
      };
      const a = lookupThenSay();
      const parts = await collect(chain({ a }).stream(request(['a'], { tools: [lookup] })));
      expect(parts[1]).toEqual({ type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: TOOL_FAILED_OUTPUT });
      expect(JSON.stringify(a.doStreamCalls[1]!.prompt)).not.toContain('secret-db-password');
    });

    it("a ToolError's message is written for the model and is passed on", async () => {
      class ToolError extends Error {
        override name = 'ToolError';
      }
      const lookup: ToolSpec = {
        name: 'lookup',
        description: 'x',
        input: z.object({ q: z.string() }),
        execute: async () => Promise.reject(new ToolError('That slot was not offered: check the calendar first')),
      };
      const parts = await collect(chain({ a: lookupThenSay() }).stream(request(['a'], { tools: [lookup] })));
      expect(parts[1]).toMatchObject({
        type: 'tool-result',
        output: { ...TOOL_FAILED_OUTPUT, message: 'That slot was not offered: check the calendar first' },
      });
    });

    it('aborting the request aborts a running tool through its signal', async () => {
      const abort = new AbortController();
      let toolSignal: AbortSignal | undefined;
      const slow: ToolSpec = {
        name: 'lookup',
        description: 'x',
        input: z.object({ q: z.string() }),
        execute: (_args, { signal }) =>
          new Promise((_resolve, reject) => {
            toolSignal = signal;
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          }),
      };
      const a = lookupThenSay();
      const parts: ReplyPart[] = [];
      for await (const p of chain({ a }).stream(request(['a'], { tools: [slow], signal: abort.signal }))) {
        parts.push(p);
        if (p.type === 'tool-call') abort.abort();
      }
      expect(kinds(parts)).toEqual(['tool-call']);
      expect(toolSignal?.aborted).toBe(true);
      expect(a.doStreamCalls).toHaveLength(1);
    });

    it('a call whose arguments do not parse is not executed nor reported', async () => {
      let executed = false;
      const strict: ToolSpec = {
        name: 'lookup',
        description: 'x',
        input: z.strictObject({ q: z.string() }),
        execute: async () => {
          executed = true;
          return {};
        },
      };
      const a = model('a', (_opts, call) =>
        call === 0 ? { parts: [toolCall('c1', 'lookup', { q: 42 }), finish(usage(5, 5), 'tool-calls')] } : { parts: [...words('Sorry.'), finish()] },
      );
      const parts = await collect(chain({ a }).stream(request(['a'], { tools: [strict] })));
      expect(executed).toBe(false);
      expect(kinds(parts)).toEqual(['text', 'finish']);
    });
  });
});
