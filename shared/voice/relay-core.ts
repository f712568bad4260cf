/**
 * The conversation core (shared/voice/core/: `initialState`, `callSetup`, the pure
 * `step(state, input, now)`) as the AWS host drives it: only the parts of its inputs,
 * effects and state the host produces or reads. This file is the one seam between the host
 * and the core's modules.
 */
import type { CallBrief, ChatTurn, RuntimeEventInput } from './ports.js';
import type { HandoffData, InboundMessage, OutboundMessage, SetupMessage } from './protocol.js';

export interface CoreState {
  /** Bumped on every reply started and every interrupt: a reply of an older generation is stale. */
  generation: number;
  ended: boolean;
}

export type CoreInput =
  | { type: 'start'; setup: SetupMessage; call: unknown }
  | { type: 'inbound'; message: InboundMessage }
  | { type: 'invalid_frame'; reason: string }
  | { type: 'reply_delta'; generation: number; text: string }
  | { type: 'reply_finished'; generation: number; model: string; usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number } }
  | { type: 'reply_failed'; generation: number; models: readonly string[] }
  | { type: 'tool_started'; generation: number; toolName: string }
  | { type: 'socket_closed' };

export type CoreEffect =
  | { kind: 'start_reply'; generation: number; messages: ChatTurn[]; language: string }
  | { kind: 'abort_reply'; generation: number }
  | { kind: 'store_before_speaking'; count: number }
  | { kind: 'session_ended'; by: 'agent' | 'contact'; handoff: HandoffData | null }
  | { kind: 'log'; level: 'info' | 'warn' | 'error'; msg: string; fields?: Record<string, unknown> };

export interface CoreStep<S extends CoreState = CoreState> {
  state: S;
  send: OutboundMessage[];
  events: RuntimeEventInput[];
  effects: CoreEffect[];
}

export interface RelayCore<S extends CoreState = CoreState> {
  initialState(): S;
  /** What the core keeps of the call's brief (greeting, languages, transfer target). */
  callSetup(brief: CallBrief): unknown;
  step(state: S, input: CoreInput, now: Date): CoreStep<S>;
}

/**
 * Loaded by specifier at run time (not a static import) so this host builds before the core
 * is in the tree; once it is, these become static imports and the bundle carries the core.
 */
const CORE_MODULES = { state: './core/state.js', step: './core/step.js' };

let loaded: Promise<RelayCore> | undefined;

/** The tree's conversation core. */
export function loadRelayCore(): Promise<RelayCore> {
  loaded ??= Promise.all([import(CORE_MODULES.state), import(CORE_MODULES.step)] as Promise<Record<string, unknown>>[]).then(([state, step]) => {
    const core = { initialState: state!.initialState, callSetup: state!.callSetup, step: step!.step };
    if (Object.values(core).some((fn) => typeof fn !== 'function')) throw new Error('shared/voice/core does not export initialState, callSetup and step');
    return core as RelayCore;
  });
  loaded.catch(() => (loaded = undefined));
  return loaded;
}
