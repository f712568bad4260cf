/**
 * The sandbox language model: a deterministic LanguageModelV3 for sandbox calls, tests and
 * benchmarks. It reads the agent plan from the system prompt (`readPlan`) and the
 * conversation from the prompt, replays its script (sandbox-script.ts) to the current step,
 * and streams that step as a real provider would: the text word by word, then at most one
 * tool call whose arguments are built from the tool's JSON schema (a call whose arguments
 * would not validate is not made). Tool results come back in the next step's prompt as
 * `tool` messages, exactly as the AI SDK sends them to any provider.
 *
 * Behaviours: `default`; `slow` delays the first token of each reply by `firstTokenDelayMs`
 * (fallback deadlines, benchmarks); `failing` rejects every call. Usage is deterministic:
 * about one token per four characters; from the second contact turn on, the system prompt
 * counts as cached input (as a provider's prompt cache would serve it).
 */

import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { now as appNow } from '../../clock.js';
import { readPlan } from '../plan.js';
import { readReference } from '../reference.js';
import type { SandboxBehaviour } from './registry.js';
import { answerFromPassages, conversation, type Script, type ScriptStep, type ToolOutcome } from './sandbox-script.js';
import { buildArgs, type Facts, type JSONSchema7 } from './tool-args.js';

/** Longer than the runtime's usual first-token deadline, so a route starting with sandbox-slow falls over. */
export const DEFAULT_SLOW_FIRST_TOKEN_MS = 4000;

export interface SandboxModelOptions {
  modelId?: string;
  behaviour?: SandboxBehaviour;
  /** `slow`: how long the first token of a reply is held back. */
  firstTokenDelayMs?: number;
  /** Today's date for calendar searches (the only clock the model reads). */
  now?: () => Date;
  timers?: { setTimeout(fn: () => void, ms: number): unknown; clearTimeout(handle: unknown): void };
}

export class SandboxModelError extends Error {
  constructor(modelId: string) {
    super(`${modelId} fails every call (a sandbox model for testing the fallback chain)`);
    this.name = 'SandboxModelError';
  }
}

export interface SandboxStep {
  text: string;
  toolCall?: { toolCallId: string; toolName: string; input: Record<string, unknown> };
}

const textOf = (content: readonly { type: string; text?: string }[]) =>
  content
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('');

type Step = IteratorResult<ScriptStep, void>;
type ArgsFor = (name: string, facts: Facts) => Record<string, unknown> | undefined;
const SKIPPED: ToolOutcome = { ok: false, value: undefined, skipped: true };
const normalize = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Runs the script to its next `listen` (the end of a reply), joining what it says. */
function runReply(script: Script, step: Step, argsFor: ArgsFor, outcome: (index: number) => ToolOutcome): { step: Step; text: string } {
  const said: string[] = [];
  let index = 0;
  while (!step.done && !('listen' in step.value)) {
    const y = step.value;
    if ('say' in y) {
      said.push(y.say);
      step = script.next(undefined);
    } else step = script.next(argsFor(y.call, y.facts) ? outcome(index++) : SKIPPED);
  }
  return { step, text: said.join(' ') };
}

/**
 * The script replayed over the first `upTo` contact turns (and their replies), positioned on
 * turn `upTo`. The history keeps only text, so an earlier reply's tool outcomes come from
 * `masks` (bit i of masks[t]: the i-th call of reply t failed).
 */
function replay(start: () => Script, turns: readonly string[], upTo: number, argsFor: ArgsFor, masks: readonly number[]) {
  const script = start();
  let step = script.next(undefined);
  const said: string[] = [];
  for (let turn = 0; turn <= upTo && turn < turns.length; turn++) {
    // The script opens by listening; a reply already over (end_call) listens no more.
    ({ step } = runReply(script, step, argsFor, () => ({ ok: true, value: undefined })));
    if (step.done) return { script, step, said };
    step = script.next(turns[turn]);
    if (turn === upTo) break;
    const reply = runReply(script, step, argsFor, (i) => ({ ok: !(((masks[turn] ?? 0) >> i) & 1), value: undefined }));
    step = reply.step;
    said.push(reply.text);
  }
  return { script, step, said };
}

/** What the sandbox model does at this point of the conversation. Pure. */
export function sandboxStep(prompt: LanguageModelV3Prompt, tools: readonly LanguageModelV3FunctionTool[], today: string): SandboxStep {
  const system = prompt
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n');
  const plan = readPlan(system);
  if (!plan) return { text: "I'm sorry, I can't help with this call right now." };

  // The contact's turns, and what the agent said after each.
  const contactTurns: string[] = [];
  const agentSaid: string[] = [];
  for (const m of prompt) {
    if (m.role === 'user') {
      contactTurns.push(textOf(m.content));
      agentSaid.push('');
    } else if (m.role === 'assistant' && agentSaid.length) agentSaid[agentSaid.length - 1] += textOf(m.content);
  }
  const turns = contactTurns.length ? contactTurns : [''];
  const last = turns.length - 1;

  // The calls of this reply that already have a result, in order.
  const lastUser = prompt.findLastIndex((m) => m.role === 'user');
  const results = new Map<string, LanguageModelV3ToolResultOutput>();
  const calls: string[] = [];
  for (const m of prompt.slice(lastUser + 1)) {
    if (m.role === 'tool') for (const p of m.content) if (p.type === 'tool-result') results.set(p.toolCallId, p.output);
    if (m.role === 'assistant') for (const p of m.content) if (p.type === 'tool-call') calls.push(p.toolCallId);
  }
  const done = calls.filter((id) => results.has(id)).map((id) => outcomeOf(results.get(id)!));

  const schemas = new Map(tools.map((t) => [t.name, t.inputSchema as JSONSchema7]));
  const argsFor: ArgsFor = (name, facts) => buildArgs(schemas.get(name) ?? { type: 'object' }, facts);
  // Reference passages were retrieved for the contact's last words only: earlier questions replay as unknown.
  const reference = readReference(system);
  const knowledge = reference ? { answer: (heard: string) => answerFromPassages(heard === turns[last] ? reference : [], heard) } : undefined;
  const start = () => conversation(plan, { offered: new Set(schemas.keys()), today, ...(knowledge ? { knowledge } : {}) });

  // Each earlier reply's tool outcomes: the first combination (all succeeded first) under which
  // the script says what the agent was heard saying (a prefix: a reply may have been cut off).
  const masks: number[] = [];
  for (let turn = 0; turn < last; turn++) {
    const heard = normalize(agentSaid[turn] ?? '');
    masks[turn] = 0;
    if (!heard) continue;
    for (let mask = 0; mask < 8; mask++) {
      masks[turn] = mask;
      const said = replay(start, turns, turn + 1, argsFor, masks).said[turn];
      if (said !== undefined && normalize(said).startsWith(heard)) break;
      if (mask === 7) masks[turn] = 0;
    }
  }
  const { script, step: positioned } = replay(start, turns, last, argsFor, masks);
  let step = positioned;

  // This reply: steps already taken (their calls have results) are passed over.
  let text = '';
  let made = 0;
  // Steps of one reply are heard as one utterance: a later step's words follow a space.
  let saidEarlier = false;
  const spoken = () => (saidEarlier && text ? ` ${text}` : text);
  while (!step.done && !('listen' in step.value)) {
    const y = step.value;
    if ('say' in y) {
      text = text ? `${text} ${y.say}` : y.say;
      step = script.next(undefined);
      continue;
    }
    const args = argsFor(y.call, y.facts);
    if (!args) {
      step = script.next(SKIPPED);
      continue;
    }
    if (made >= done.length) return { text: spoken(), toolCall: { toolCallId: `call_${turns.length}_${made}`, toolName: y.call, input: args } };
    step = script.next(done[made++]);
    saidEarlier ||= text !== '';
    text = '';
  }
  return { text: spoken() };
}

/** A tool result as the script sees it: failed when the tool errored or said so. */
export function outcomeOf(output: LanguageModelV3ToolResultOutput): ToolOutcome {
  switch (output.type) {
    case 'json': {
      const v = output.value as Record<string, unknown> | null;
      const failed =
        !!v &&
        typeof v === 'object' &&
        !Array.isArray(v) &&
        (v.ok === false || v.success === false || v.status === 'failed' || (v.error !== undefined && v.error !== null));
      return { ok: !failed, value: output.value };
    }
    case 'text':
      return { ok: true, value: output.value };
    case 'content':
      return { ok: true, value: output.value };
    default:
      return { ok: false, value: 'value' in output ? output.value : undefined };
  }
}

const tokens = (chars: number) => Math.ceil(chars / 4);

function promptChars(prompt: LanguageModelV3Prompt): { total: number; system: number } {
  let total = 0;
  let system = 0;
  for (const m of prompt) {
    if (m.role === 'system') {
      system += m.content.length;
      total += m.content.length;
      continue;
    }
    for (const p of m.content) total += p.type === 'text' ? p.text.length : JSON.stringify(p).length;
  }
  return { total, system };
}

function usageOf(prompt: LanguageModelV3Prompt, step: SandboxStep): LanguageModelV3Usage {
  const { total, system } = promptChars(prompt);
  const input = tokens(total);
  const cached = prompt.filter((m) => m.role === 'user').length > 1 ? Math.min(input, tokens(system)) : 0;
  const output = tokens(step.text.length + (step.toolCall ? JSON.stringify(step.toolCall.input).length + step.toolCall.toolName.length : 0));
  return {
    inputTokens: { total: input, noCache: input - cached, cacheRead: cached, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

export function createSandboxModel(options: SandboxModelOptions = {}): LanguageModelV3 {
  const modelId = options.modelId ?? 'sandbox-default';
  const behaviour = options.behaviour ?? 'default';
  // The app's clock: the tools and the call token judge "today" by it.
  const now = options.now ?? appNow;
  const timers = options.timers ?? {
    setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
    clearTimeout: (h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>),
  };
  const delayMs = options.firstTokenDelayMs ?? DEFAULT_SLOW_FIRST_TOKEN_MS;

  const decide = (opts: LanguageModelV3CallOptions) => {
    if (behaviour === 'failing') throw new SandboxModelError(modelId);
    const tools = (opts.tools ?? []).filter((t): t is LanguageModelV3FunctionTool => t.type === 'function');
    return sandboxStep(opts.prompt, tools, now().toISOString().slice(0, 10));
  };
  // The first step of a reply is the one whose prompt ends with the contact's turn.
  const firstOfReply = (prompt: LanguageModelV3Prompt) => prompt.at(-1)?.role !== 'tool';

  const wait = (ms: number, signal: AbortSignal | undefined) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const handle = timers.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        timers.clearTimeout(handle);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });

  return {
    specificationVersion: 'v3',
    provider: 'sandbox',
    modelId,
    supportedUrls: {},
    async doGenerate(opts) {
      const step = decide(opts);
      if (behaviour === 'slow' && firstOfReply(opts.prompt)) await wait(delayMs, opts.abortSignal);
      return {
        content: [
          ...(step.text ? [{ type: 'text' as const, text: step.text }] : []),
          ...(step.toolCall ? [{ type: 'tool-call' as const, ...step.toolCall, input: JSON.stringify(step.toolCall.input) }] : []),
        ],
        finishReason: { unified: step.toolCall ? 'tool-calls' : 'stop', raw: undefined },
        usage: usageOf(opts.prompt, step),
        warnings: [],
      };
    },
    async doStream(opts) {
      const step = decide(opts);
      const hold = behaviour === 'slow' && firstOfReply(opts.prompt) ? delayMs : 0;
      const parts: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: `${modelId}-${opts.prompt.length}`, modelId },
      ];
      if (step.text) {
        parts.push({ type: 'text-start', id: 'text' });
        for (const word of step.text.match(/\s*\S+/g) ?? []) parts.push({ type: 'text-delta', id: 'text', delta: word });
        parts.push({ type: 'text-end', id: 'text' });
      }
      if (step.toolCall)
        parts.push({ type: 'tool-call', toolCallId: step.toolCall.toolCallId, toolName: step.toolCall.toolName, input: JSON.stringify(step.toolCall.input) });
      parts.push({ type: 'finish', usage: usageOf(opts.prompt, step), finishReason: { unified: step.toolCall ? 'tool-calls' : 'stop', raw: undefined } });
      const signal = opts.abortSignal;
      let index = 0;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          if (signal?.aborted) {
            controller.error(signal.reason);
            return;
          }
          // Hold the first token (not the stream's opening parts) back.
          if (hold && index === 2) {
            try {
              await wait(hold, signal);
            } catch (err) {
              controller.error(err);
              return;
            }
          }
          if (index < parts.length) controller.enqueue(parts[index++]!);
          if (index >= parts.length) controller.close();
        },
      });
      return { stream };
    },
  };
}
