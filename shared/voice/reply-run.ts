/**
 * One agent reply, as both runtime hosts run it: the ReplyModel streamed with the version's
 * tools, each part turned into the core input it means (text → reply_delta, a tool call →
 * tool_started, a tool still running after the filler delay → tool_slow, an unexpected tool
 * failure → tool_failed, finish → reply_finished, every model failing → reply_failed) and
 * handed to the host's `feed`, which applies it to the core and carries out the step.
 *
 * The long-lived local host feeds every delta as it comes; the stateless AWS host groups
 * deltas into phrases first (each feed is a read and a write of the session item) and learns
 * from `feed` when the reply went stale in another invocation.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { CoreInput } from './core/state.js';
import type { ChatTurn, ReplyModel, ToolSpec } from './ports.js';
import { type ReferencePassage, referenceBlock } from './reference.js';

type LogFn = (msg: string, fields?: Record<string, unknown>) => void;

/** What the model is told when a tool fails unexpectedly (the contact hears the runtime's own sentence). */
export const TOOL_FAILED_RESULT = { ok: false, error: 'tool_failed' } as const;

/**
 * The tools' convention: an error named `ToolError` is an expected refusal whose message is
 * written for the model ("that time has passed: offer a future one"); the model phrases it,
 * so the runtime adds no sentence of its own.
 */
const toolRefusal = (err: unknown): string | null => (err instanceof Error && err.name === 'ToolError' && err.message ? err.message : null);

export const errorFields = (err: unknown) => ({
  error: err instanceof Error ? err.name : typeof err,
  status: (err as { status?: unknown })?.status,
  code: (err as { code?: unknown })?.code,
});

/** `<session>:<prefix>-<n>`: the dash keeps a tool's event ids apart from the core's `<session>:<n>`. */
export const toolEventId = (sessionId: string, prefix: string, n: number): string =>
  `${sessionId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40)}:${prefix.replace(/[^A-Za-z0-9_.]/g, '_').slice(0, 20) || 'tool'}-${n}`;

const replyGeneration = new AsyncLocalStorage<number>();

/** The generation of the reply whose tool is running (a tool hook's end or digits belong to it); undefined outside a tool. */
export const toolReplyGeneration = (): number | undefined => replyGeneration.getStore();

export interface ReplyRun {
  model: ReplyModel;
  generation: number;
  /** Built inside the run, so a prompt that cannot be built fails the reply like a failing model. */
  system(): string;
  messages: readonly ChatTurn[];
  route: { primary: string; fallbacks: readonly string[] };
  tools: readonly ToolSpec[];
  /** Aborted by the host when the reply goes stale; aborted here when `feed` says so. */
  controller: AbortController;
  firstTokenDeadlineMs: number;
  fillerAfterMs: number;
  /** A tool still running after this long has failed (the contact hears the graceful sentence, not dead air); default TOOL_TIMEOUT_MS. */
  toolTimeoutMs?: number;
  /**
   * The pinned knowledge pack's best passages for the contact's last words; absent when the
   * version names no pack. They are quoted to the model for this reply only, and the turn
   * reports their ids (reply_finished `passageIds`).
   */
  retrieve?(query: string): Promise<readonly ReferencePassage[]>;
  /** Applies one input of this reply, in order; false once the reply is stale (the run stops). */
  feed(input: CoreInput): Promise<boolean>;
  /** True when the text gathered so far should be fed now; default every delta. */
  textReady?(pending: string): boolean;
  log: { warn: LogFn; error: LogFn };
}

/** How long a tool may run before it counts as failed: a tool that hangs must not leave the line silent. */
export const TOOL_TIMEOUT_MS = 8000;

class ToolTimedOut extends Error {
  constructor(readonly toolName: string) {
    super(`tool ${toolName} did not answer in time`);
    this.name = 'ToolTimedOut';
  }
}

/** The tool's own promise, or a rejection as soon as `signal` aborts (a tool that ignores its signal still ends). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

class Superseded extends Error {
  constructor() {
    super('reply superseded');
    this.name = 'Superseded';
  }
}

/** Streams one reply to its end, its abort, or until `feed` reports it stale. Never throws. */
export async function runReply(run: ReplyRun): Promise<void> {
  const { generation, controller } = run;
  const textReady = run.textReady ?? (() => true);
  let pending = '';
  const feed = async (input: CoreInput): Promise<boolean> => {
    if (await run.feed(input)) return true;
    controller.abort();
    return false;
  };
  const flush = async (): Promise<boolean> => {
    if (!pending) return true;
    const text = pending;
    pending = '';
    return feed({ type: 'reply_delta', generation, text });
  };

  const logFailure = (err: unknown) => run.log.error('reply input not applied', errorFields(err));
  const tools = run.tools.map(
    (tool): ToolSpec => ({
      ...tool,
      execute: async (args, ctx) => {
        // Text before the call is spoken before the tool's filler or failure line.
        if (!(await flush()) || !(await feed({ type: 'tool_started', generation, toolName: tool.name }))) throw new Superseded();
        // fillerAfterMs 0 means no filler at all.
        const timer =
          run.fillerAfterMs > 0
            ? setTimeout(() => void feed({ type: 'tool_slow', generation, toolName: tool.name }).catch(logFailure), run.fillerAfterMs)
            : undefined;
        // The tool runs under its own signal: the reply's abort, or its deadline.
        const own = new AbortController();
        const follow = () => own.abort(ctx.signal.reason);
        ctx.signal.addEventListener('abort', follow, { once: true });
        const deadline = setTimeout(() => own.abort(new ToolTimedOut(tool.name)), run.toolTimeoutMs ?? TOOL_TIMEOUT_MS);
        try {
          return await replyGeneration.run(generation, () => untilAborted(tool.execute(args, { ...ctx, signal: own.signal }), own.signal));
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          const refusal = toolRefusal(err);
          if (refusal) return { ...TOOL_FAILED_RESULT, message: refusal };
          run.log.warn('tool failed', { tool: tool.name, ...errorFields(err) });
          await feed({ type: 'tool_failed', generation, toolName: tool.name });
          return TOOL_FAILED_RESULT;
        } finally {
          clearTimeout(timer);
          clearTimeout(deadline);
          ctx.signal.removeEventListener('abort', follow);
        }
      },
    }),
  );

  let settled = false;
  try {
    let passageIds: string[] | undefined;
    let system = run.system();
    if (run.retrieve) {
      const query = [...run.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
      // A pack that cannot be read leaves the reply without reference material: the model is told nothing matched.
      const passages = await run.retrieve(query).catch((err: unknown) => {
        run.log.warn('knowledge pack retrieval failed', errorFields(err));
        return [] as const;
      });
      system = `${system}\n\n${referenceBlock(passages)}`;
      if (passages.length) passageIds = passages.map((p) => p.id);
    }
    const parts = run.model.stream({
      system,
      messages: run.messages,
      tools,
      route: run.route,
      signal: controller.signal,
      firstTokenDeadlineMs: run.firstTokenDeadlineMs,
    });
    for await (const part of parts) {
      if (controller.signal.aborted) return;
      if (part.type === 'text') {
        pending += part.delta;
        if (textReady(pending) && !(await flush())) return;
        continue;
      }
      if (part.type === 'fallback') {
        run.log.warn('model attempt failed; next model of the route', { model: part.model, reason: part.reason });
        continue;
      }
      if (part.type !== 'finish' && part.type !== 'error') continue;
      settled = true;
      if (!(await flush())) return;
      if (part.type === 'finish')
        await feed({ type: 'reply_finished', generation, model: part.model, usage: part.usage, ...(passageIds ? { passageIds } : {}) });
      else await feed({ type: 'reply_failed', generation, models: part.models });
      return;
    }
    if (!settled && !controller.signal.aborted && (await flush())) {
      run.log.warn('reply stream ended without a finish');
      await feed({ type: 'reply_finished', generation, model: 'unknown', usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 } });
    }
  } catch (err) {
    if (controller.signal.aborted) return;
    run.log.error('reply stream failed', errorFields(err));
    await feed({ type: 'reply_failed', generation, models: [] }).catch(logFailure);
  }
}
