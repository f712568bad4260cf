/**
 * The voice runtime's seams. The session logic (shared/voice/) depends only on these
 * interfaces; the hosts (the local WebSocket server, the AWS WebSocket API) supply the
 * implementations, and tests supply in-memory ones.
 *
 *   ControlPlane — what the runtime reads and reports about its call, through the contracts
 *                  the control plane already has: the pinned agent version, the call's
 *                  questions and context, POST /runtime/v1/calls/{id}/events (idempotent by
 *                  event id) and the runtime's calendar availability route.
 *   ReplyModel   — the pinned version's LLM chain (primary, then fallbacks) streaming one
 *                  agent reply, with the tools the version grants.
 */
import type * as z from 'zod';
import type { runtimeEvent } from '../schemas/runtime-events.js';
import type { VerifiedStreamClaims } from '../telephony/call-tokens.js';

/** A runtime event as the events route takes it (JSON-ready; `id` is the idempotency key). */
export type RuntimeEventInput = z.input<typeof runtimeEvent>;

export interface CallQuestion {
  id: string;
  prompt: string;
  scoring?: { scale?: string; points?: number; mapping?: Record<string, number>; weight?: number } | null;
}

export interface PinnedObjective {
  id: string;
  description: string;
  required: boolean;
}

/** Everything the runtime needs to hold the conversation, loaded once when the session starts. */
export interface CallBrief {
  claims: VerifiedStreamClaims;
  direction: 'outbound' | 'inbound';
  use_case: string;
  /** The pinned template's outcome type (appointment, shift_confirmation, survey_response, none). */
  outcome_type: string;
  objectives: readonly PinnedObjective[];
  /** The pinned version's definition as stored (persona, dialogue_policy, conversation_settings, llm_route, tools, disclosure_config, stock_voice_id, voicemail_drop, …). */
  definition: Record<string, unknown> & {
    tools: readonly string[];
    llm_route: { primary: string; fallbacks: readonly string[] };
    disclosure_config: Record<string, unknown>;
    conversation_settings?: { default_language?: string; supported_languages?: readonly string[]; allow_language_switch?: boolean };
  };
  /** Per-call inputs: data for the conversation, never instructions. */
  questions: readonly CallQuestion[];
  context: Readonly<Record<string, string>>;
  /** Reps the agent may transfer to, by id and display name only (never a number). */
  transfer_targets: readonly { rep_id: string; name: string }[];
  /** The knowledge pack version the pinned agent version answers from; absent or null when none. */
  knowledge_pack?: { id: string; version: number } | null;
}

export class ControlPlaneError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ControlPlaneError';
  }
}

export interface ControlPlane {
  /** The call the token names, or null when it does not exist (the session then closes, writing nothing). */
  loadCall(claims: VerifiedStreamClaims): Promise<CallBrief | null>;
  /**
   * Reports events in order (batched at most 25). Retries transient failures itself with the
   * same ids (the route is idempotent by id), so nothing is lost or stored twice; throws a
   * ControlPlaneError when the route refuses (4xx) or retries are exhausted.
   */
  postEvents(events: readonly RuntimeEventInput[]): Promise<void>;
  /** POST /runtime/v1/calls/{id}/calendar/availability with the call's token. */
  checkCalendar(query: {
    start_date: string;
    end_date: string;
    duration_minutes: number;
    timezone?: string;
  }): Promise<{ slots: { starts_at: string; ends_at: string }[] }>;
}

/** A tool the pinned version grants, as the model sees it and as the runtime executes it. */
export interface ToolSpec {
  name: string;
  description: string;
  /** zod schema of the arguments the model must supply (the call's identity is never an argument). */
  input: z.ZodType;
  /** Runs server-side with the call's identity; resolves to what the model is told. */
  execute(args: unknown, ctx: { signal: AbortSignal }): Promise<unknown>;
}

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

export interface ReplyRequest {
  /** The compiled system prompt (persona, policy, objectives; call data delimited as data). */
  system: string;
  /** The conversation so far, oldest first; the last is the contact's turn being answered. */
  messages: readonly ChatTurn[];
  tools: readonly ToolSpec[];
  route: { primary: string; fallbacks: readonly string[] };
  /** Aborted when the reply goes stale (an interrupt, the call ending). */
  signal: AbortSignal;
  /** Per attempt: fall over to the next model when no first token arrives in time (only before any token was emitted). */
  firstTokenDeadlineMs: number;
}

export type ReplyPart =
  | { type: 'text'; delta: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: unknown }
  /** A model attempt failed or timed out before its first token; the chain moves on. */
  | { type: 'fallback'; model: string; reason: 'error' | 'first_token_timeout' }
  | { type: 'finish'; model: string; usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number } }
  /** Every model of the route failed: the session says a closing line and hands off. */
  | { type: 'error'; reason: 'all_models_failed'; models: readonly string[] };

export interface ReplyModel {
  stream(request: ReplyRequest): AsyncIterable<ReplyPart>;
}
