/**
 * The reply model: one agent reply streamed from the route's LLM chain (primary, then each
 * fallback) with the Vercel AI SDK.
 *
 * An attempt is abandoned for the next model when it fails, or when its first token (a text
 * delta or a tool call) does not arrive within `firstTokenDeadlineMs` — but only while nothing
 * of this reply has been emitted: once the contact may have heard part of a reply (or a tool
 * may have acted), starting over with another model would say or do things twice, so an error
 * then just ends the reply. When every model failed before emitting anything the reply is one
 * `error` part (`all_models_failed`). Aborting `request.signal` ends the stream promptly and
 * aborts the running model call and tools.
 */
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { type LanguageModelUsage, type ModelMessage, stepCountIs, streamText, type ToolSet, tool, zodSchema } from 'ai';
import type { ReplyModel, ReplyPart, ReplyRequest, ToolSpec } from '../ports.js';

/** Timers for the first-token deadline (tests may pass fake ones). */
export interface ChainClock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: ChainClock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface ReplyModelDeps {
  /**
   * Only ids the registry knows are resolved; another id fails its attempt. With `expandRoute`,
   * a route naming the platform default chain (`platform-default`) runs that chain.
   */
  registry: { isKnownModel(id: string): boolean; expandRoute?(route: ReplyRequest['route']): ReplyRequest['route'] };
  resolveModel(id: string): LanguageModelV3;
  clock?: ChainClock;
  /** Model steps per reply (each tool round trip is a step). */
  maxSteps?: number;
}

export const DEFAULT_MAX_STEPS = 6;

/** What the model is told when a tool threw: never the error text, which may carry internals. */
export const TOOL_FAILED_OUTPUT = { ok: false, error: 'tool_failed' } as const;

/** Errors named `ToolError` carry a message written for the model (the tools' own convention). */
const toolFailure = (err: unknown) =>
  err instanceof Error && err.name === 'ToolError' && err.message ? { ...TOOL_FAILED_OUTPUT, message: err.message } : TOOL_FAILED_OUTPUT;

type Usage = Extract<ReplyPart, { type: 'finish' }>['usage'];
type AttemptEnd = 'done' | 'aborted' | { fallback: 'error' | 'first_token_timeout' };

export function createReplyModel(deps: ReplyModelDeps): ReplyModel {
  const clock = deps.clock ?? realClock;
  const maxSteps = deps.maxSteps ?? DEFAULT_MAX_STEPS;

  async function* attempt(id: string, request: ReplyRequest, end: { value?: AttemptEnd }): AsyncGenerator<ReplyPart> {
    const controller = new AbortController();
    const forward = () => controller.abort(request.signal.reason);
    request.signal.addEventListener('abort', forward, { once: true });
    let timer: unknown;
    const stopTimer = () => {
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
    };
    try {
      let model: LanguageModelV3;
      try {
        if (!deps.registry.isKnownModel(id)) throw new Error(`unknown model ${id}`);
        model = deps.resolveModel(id);
      } catch {
        end.value = { fallback: 'error' };
        return;
      }
      const result = streamText({
        model,
        system: request.system,
        messages: request.messages.map((m): ModelMessage => ({ role: m.role, content: m.content })),
        tools: aiTools(request.tools),
        stopWhen: stepCountIs(maxSteps),
        abortSignal: controller.signal,
        // The chain is the retry policy: another model now beats the same one after a backoff.
        maxRetries: 0,
        // Errors arrive as stream parts and are handled below; nothing to log twice.
        onError: () => {},
      });
      const parts = result.fullStream[Symbol.asyncIterator]();
      // A rejected read is the model failing, like an error part (and never an unhandled rejection).
      const pull = () => parts.next().catch((error: unknown) => ({ done: false as const, value: { type: 'error' as const, error } }));
      const deadline = new Promise<'deadline'>((resolve) => {
        // No usable deadline (0, negative, not finite, past what timers hold): wait for the model.
        if (hasDeadline(request.firstTokenDeadlineMs)) timer = clock.setTimeout(() => resolve('deadline'), request.firstTokenDeadlineMs);
      });
      const aborted = new Promise<'aborted'>((resolve) => {
        if (controller.signal.aborted) resolve('aborted');
        controller.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
      });
      let started = false;
      let emitted = false;
      const emittedCalls = new Set<string>();
      const steps: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 };
      const firstToken = () => {
        started = true;
        stopTimer();
      };
      for (;;) {
        const next = await Promise.race(started ? [pull(), aborted] : [pull(), aborted, deadline]);
        if (next === 'aborted') {
          end.value = 'aborted';
          return;
        }
        if (next === 'deadline') {
          end.value = { fallback: 'first_token_timeout' };
          return;
        }
        if (next.done) break;
        const part = next.value;
        switch (part.type) {
          case 'text-delta':
            if (!part.text) break;
            firstToken();
            emitted = true;
            yield { type: 'text', delta: part.text };
            break;
          case 'tool-call':
            firstToken();
            // An unparsable call is not executed (the SDK tells the model); nothing to report.
            if (part.invalid) break;
            emitted = true;
            emittedCalls.add(part.toolCallId);
            yield { type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input: part.input };
            break;
          case 'tool-result':
            if (part.preliminary) break;
            yield { type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output: part.output };
            break;
          case 'tool-error':
            if (emittedCalls.has(part.toolCallId))
              yield { type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output: TOOL_FAILED_OUTPUT };
            break;
          case 'finish-step':
            addUsage(steps, part.usage);
            break;
          case 'error':
            if (!emitted) {
              end.value = { fallback: 'error' };
              return;
            }
            // Part of the reply is out: end it here, reporting what was used.
            yield { type: 'finish', model: id, usage: steps };
            end.value = 'done';
            return;
          case 'abort':
            end.value = 'aborted';
            return;
          case 'finish':
            yield { type: 'finish', model: id, usage: addUsage({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 }, part.totalUsage) };
            end.value = 'done';
            return;
        }
      }
      if (request.signal.aborted) {
        end.value = 'aborted';
        return;
      }
      if (!emitted) {
        end.value = { fallback: 'error' };
        return;
      }
      yield { type: 'finish', model: id, usage: steps };
      end.value = 'done';
    } finally {
      stopTimer();
      request.signal.removeEventListener('abort', forward);
      // Ends the model call and any tool still running (a no-op once the stream finished).
      controller.abort();
    }
  }

  return {
    async *stream(request) {
      const route = deps.registry.expandRoute ? deps.registry.expandRoute(request.route) : request.route;
      const models = [route.primary, ...route.fallbacks];
      for (const id of models) {
        if (request.signal.aborted) return;
        const end: { value?: AttemptEnd } = {};
        yield* attempt(id, request, end);
        const outcome = end.value ?? 'aborted';
        if (outcome === 'done' || outcome === 'aborted') return;
        if (request.signal.aborted) return;
        yield { type: 'fallback', model: id, reason: outcome.fallback };
      }
      yield { type: 'error', reason: 'all_models_failed', models };
    },
  };
}

const MAX_TIMER_MS = 2 ** 31 - 1;
const hasDeadline = (ms: number) => Number.isFinite(ms) && ms > 0 && ms <= MAX_TIMER_MS;

/**
 * ToolSpecs as AI SDK tools: the zod schema is the input schema; execute gets the call's abort
 * signal. Each spec's tool is made once (a session offers the same specs on every reply), and
 * each input schema is wrapped once: the SDK derives (and memoises) its JSON schema on the
 * wrapper, and deriving it again on every turn cost milliseconds per tool — the hosts hand a
 * fresh spec per reply (its execute bound to that reply), so the spec alone is not the key.
 */
const toolOf = new WeakMap<ToolSpec, ToolSet[string]>();
const inputSchemaOf = new WeakMap<object, ReturnType<typeof zodSchema>>();

function inputSchema(input: ToolSpec['input']): ReturnType<typeof zodSchema> {
  let schema = inputSchemaOf.get(input);
  if (!schema) {
    schema = zodSchema(input as Parameters<typeof zodSchema>[0]);
    inputSchemaOf.set(input, schema);
  }
  return schema;
}

export function aiTools(specs: readonly ToolSpec[]): ToolSet {
  const tools: ToolSet = {};
  for (const spec of specs) {
    let made = toolOf.get(spec);
    if (!made) {
      made = tool({
        description: spec.description,
        inputSchema: inputSchema(spec.input),
        execute: async (input: unknown, { abortSignal }) => {
          const signal = abortSignal ?? new AbortController().signal;
          try {
            return await spec.execute(input, { signal });
          } catch (err) {
            if (signal.aborted) throw err;
            return toolFailure(err);
          }
        },
      });
      toolOf.set(spec, made);
    }
    tools[spec.name] = made;
  }
  return tools;
}

function addUsage(into: Usage, usage: LanguageModelUsage): Usage {
  into.inputTokens += usage.inputTokens ?? 0;
  into.outputTokens += usage.outputTokens ?? 0;
  into.cachedInputTokens += usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens ?? 0;
  return into;
}
