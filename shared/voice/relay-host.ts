/**
 * The AWS voice runtime host's work (functions/relay/): API Gateway calls a Lambda per frame,
 * so nothing lives between frames but the session item (shared/repositories/relay-sessions.ts).
 * Each input is one read → the pure core's `step` → a write conditioned on the revision read
 * (a lost race reads again and re-applies), then the step's effects: events posted to the
 * control plane (an opt-out stored before anything is said), frames sent with PostToConnection,
 * a reply streamed by this invocation.
 *
 * A reply runs as on the local host (reply-run.ts: the version's tools, filler and failure
 * lines) and is fed to the core phrase by phrase; before each phrase the session is read
 * again, and once its generation is not the reply's (an interrupt or a newer prompt, handled
 * by another invocation, bumped it), the model is aborted and nothing more of it is sent.
 */
import { getRelaySession, type RelaySessionRecord, relayConnection, saveRelaySession } from '../repositories/relay-sessions.js';
import { mintStreamToken, type VerifiedStreamClaims } from '../telephony/call-tokens.js';
import { phraseReady } from './core/coalesce.js';
import { type CoreInput, callSetup, type Effect, initialState, type SessionState, type StepResult } from './core/state.js';
import { step } from './core/step.js';
import type { CallBrief, ControlPlane, ReplyModel, ToolSpec } from './ports.js';
import { type HandoffData, type OutboundMessage, parseInbound } from './protocol.js';
import type { ReferencePassage } from './reference.js';
import { runReply, toolEventId, toolReplyGeneration } from './reply-run.js';
import type { VoiceRuntimeSettings } from './runtime-settings.js';
import type { ToolMemory, ToolMemoryStore } from './tools.js';

export interface RelayHostLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** What a tool may ask of the call (end_call, transfer_to_human, an IVR's keys). */
export interface RelayToolHooks {
  requestEnd(data: HandoffData): void;
  sendDigits(digits: string): void;
}

/** Deterministic ids for the events tools report. */
export interface RelayEventIds {
  next(prefix: string): string;
  now(): Date;
}

export interface RelayHostDeps {
  model: ReplyModel;
  /** PostToConnection; a socket that is gone throws. */
  send(connectionId: string, message: OutboundMessage): Promise<void>;
  /** DeleteConnection: the socket is closed (a setup this connection may not hold). */
  disconnect(connectionId: string): Promise<void>;
  verifyToken(token: string, at: Date): Promise<VerifiedStreamClaims | null>;
  controlPlaneFor(claims: VerifiedStreamClaims): ControlPlane;
  /** The tools the pinned version grants, built for one reply (the invocation that streams it) from what they remembered. */
  buildTools(brief: CallBrief, cp: ControlPlane, hooks: RelayToolHooks, ids: RelayEventIds, memory: ToolMemoryStore): ToolSpec[];
  systemPrompt(brief: CallBrief, language: string): string;
  /** The pinned knowledge pack's retrieval for a reply; absent (or undefined for the brief) when the version names none. */
  retrieveFor?(brief: CallBrief): ((query: string) => Promise<readonly ReferencePassage[]>) | undefined;
  settings: VoiceRuntimeSettings;
  now(): Date;
  log: RelayHostLog;
}

/** What every reply of the session needs, stored at setup: the brief the local host keeps in memory, and what the tools remember. */
interface ReplyContext {
  brief: CallBrief;
  tools?: ToolMemory | null;
}

interface Applied {
  record: RelaySessionRecord;
  step: StepResult;
}

type Owner = { tenant_id: string; call_id: string };
type StartReply = Extract<Effect, { kind: 'start_reply' }>;

const MAX_RACES = 8;
/**
 * Tool event numbers a reply may use, reserved in the write that starts it: ids are taken
 * synchronously while the session lives in the table, and a stale reply's tool still running
 * beside the next reply's must not take the same number.
 */
export const TOOL_IDS_PER_REPLY = 1000;

/** The control plane's token for a stored session: minted again from its claims, never stored. */
export function reMintedToken(key: Uint8Array | string, claims: VerifiedStreamClaims, at: Date): string {
  const { exp, ...rest } = claims;
  return mintStreamToken(key, rest, at, Math.max(1, exp - Math.floor(at.getTime() / 1000)));
}

/** One frame from Twilio on `connectionId`. */
export async function handleRelayFrame(connectionId: string, raw: string, deps: RelayHostDeps): Promise<void> {
  const owner = await relayConnection(connectionId);
  if (!owner) return deps.log.warn('frame on an unknown connection ignored');
  const parsed = parseInbound(raw);
  if (!parsed.ok) return run(connectionId, owner, { type: 'invalid_frame', reason: parsed.reason }, deps);
  const message = parsed.message;
  if (message.type !== 'setup') return run(connectionId, owner, { type: 'inbound', message }, deps);

  // The setup's token must be a valid token for the very call this connection was admitted for.
  const claims = await deps.verifyToken(message.customParameters.token ?? '', deps.now());
  if (!claims || claims.tenant_id !== owner.tenant_id || claims.call_id !== owner.call_id) {
    deps.log.warn("setup token is not the connection's call; closing", { callId: owner.call_id });
    return deps.disconnect(connectionId);
  }
  const brief = await deps.controlPlaneFor(claims).loadCall(claims);
  if (!brief) {
    deps.log.warn('call not found at setup; closing', { callId: owner.call_id });
    return deps.disconnect(connectionId);
  }
  // Stored as JSON (no undefined, no class instances): every later invocation reads it back as it was.
  const context: ReplyContext = { brief: JSON.parse(JSON.stringify(brief)) as CallBrief };
  return run(connectionId, owner, { type: 'start', setup: message, call: callSetup(brief) }, deps, context);
}

/** $disconnect: the core closes the session (its hangup and flushed events are posted), then the items go. */
export async function handleRelayDisconnect(connectionId: string, deps: RelayHostDeps, close: (owner: Owner) => Promise<void>): Promise<void> {
  const owner = await relayConnection(connectionId);
  if (!owner) return;
  try {
    await run(connectionId, owner, { type: 'socket_closed' }, deps);
  } finally {
    await close(owner);
  }
}

async function run(connectionId: string, owner: Owner, input: CoreInput, deps: RelayHostDeps, context?: ReplyContext): Promise<void> {
  const applied = await apply(connectionId, owner, input, deps, { context });
  if (applied !== 'gone' && applied !== 'stale') await perform(connectionId, applied, deps);
}

/** Read, step, write under the revision read; a lost race starts over from a fresh read. */
async function apply(
  connectionId: string,
  owner: Owner,
  input: CoreInput,
  deps: RelayHostDeps,
  opts: { context?: ReplyContext; generation?: number; toolEventSeq?: number },
): Promise<Applied | 'gone' | 'stale'> {
  for (let race = 0; race < MAX_RACES; race++) {
    const record = await getRelaySession(owner.tenant_id, owner.call_id);
    if (!record || record.connection_id !== connectionId) return 'gone';
    const state = (record.state as SessionState | null) ?? initialState();
    if (opts.generation !== undefined && state.generation !== opts.generation) return 'stale';
    const result = step(state, input, deps.now());
    // The host owns the tool id counter: a reply starting reserves its numbers; a reply that took more keeps them.
    if (result.effects.some((e) => e.kind === 'start_reply')) result.state.toolEventSeq += TOOL_IDS_PER_REPLY;
    if (opts.toolEventSeq !== undefined) result.state.toolEventSeq = Math.max(result.state.toolEventSeq, opts.toolEventSeq);
    const saved = await saveRelaySession(record, {
      state: result.state,
      generation: result.state.generation,
      ...(opts.context ? { reply_context: opts.context } : {}),
    });
    if (saved) {
      return {
        record: {
          ...record,
          state: result.state,
          generation: result.state.generation,
          revision: record.revision + 1,
          reply_context: opts.context ?? record.reply_context,
        },
        step: result,
      };
    }
  }
  throw new Error(`relay session of call ${owner.call_id}: lost ${MAX_RACES} write races in a row`);
}

/** A step's effects, in the order the core asks: opt-out events stored, frames sent, the rest posted, then the reply. */
async function perform(connectionId: string, { record, step: result }: Applied, deps: RelayHostDeps): Promise<void> {
  const controlPlane = deps.controlPlaneFor(record.claims);
  const first = Math.max(0, ...result.effects.map((e) => (e.kind === 'store_before_speaking' ? e.count : 0)));
  const post = async (events: typeof result.events) => {
    if (!events.length) return;
    await controlPlane
      .postEvents(events)
      .catch((err: unknown) => deps.log.error('events not stored', { callId: record.call_id, error: (err as Error)?.message ?? String(err) }));
  };
  await post(result.events.slice(0, first));
  for (const message of result.send) {
    await deps
      .send(connectionId, message)
      .catch((err: unknown) => deps.log.warn('frame not delivered', { callId: record.call_id, error: (err as Error)?.name ?? String(err) }));
  }
  await post(result.events.slice(first));
  for (const effect of result.effects) {
    if (effect.kind === 'log') deps.log[effect.level](effect.msg, { callId: record.call_id, ...effect.fields });
  }
  for (const effect of result.effects) {
    if (effect.kind === 'start_reply') await streamReply(connectionId, record, effect, controlPlane, deps);
  }
}

/** The reply a step started, streamed by this invocation until it ends or another invocation makes it stale. */
async function streamReply(
  connectionId: string,
  record: RelaySessionRecord,
  effect: StartReply,
  controlPlane: ControlPlane,
  deps: RelayHostDeps,
): Promise<void> {
  const owner = { tenant_id: record.tenant_id, call_id: record.call_id };
  const context = record.reply_context as ReplyContext | null;
  const brief = context?.brief;
  // The tools' memory is written with the reply's next input after a tool changed it.
  let memory = context?.tools ?? null;
  let memoryChanged = false;
  const state = record.state as SessionState;
  const { generation } = effect;
  const controller = new AbortController();
  let stale = false;
  let toolEventSeq = state.toolEventSeq - TOOL_IDS_PER_REPLY;
  let queue: Promise<unknown> = Promise.resolve();
  /** One input at this reply's generation, in order; false once the reply is stale or the session gone. */
  const feed = (input: CoreInput): Promise<boolean> => {
    const next = queue.then(async () => {
      if (stale) return false;
      const saving = memoryChanged && brief ? { brief, tools: memory } : undefined;
      const applied = await apply(connectionId, owner, input, deps, { generation, toolEventSeq, context: saving });
      if (applied === 'gone' || applied === 'stale') {
        stale = true;
        deps.log.info('reply stopped: superseded', { callId: record.call_id, generation });
        return false;
      }
      if (saving) memoryChanged = false;
      await perform(connectionId, applied, deps);
      return true;
    });
    queue = next.catch(() => undefined);
    return next;
  };
  const hookGeneration = () => toolReplyGeneration() ?? generation;
  const hooks: RelayToolHooks = {
    requestEnd: (handoff) =>
      void feed({ type: 'end_requested', generation: hookGeneration(), handoff }).catch((err: unknown) =>
        deps.log.error('end request not applied', { callId: record.call_id, error: (err as Error)?.name }),
      ),
    sendDigits: (digits) =>
      void feed({ type: 'send_digits', generation: hookGeneration(), digits }).catch((err: unknown) =>
        deps.log.error('digits not applied', { callId: record.call_id, error: (err as Error)?.name }),
      ),
  };
  const ids: RelayEventIds = {
    next: (prefix) => toolEventId(state.sessionId ?? record.call_id, prefix, toolEventSeq++),
    now: () => deps.now(),
  };
  await runReply({
    model: deps.model,
    generation,
    system: () => {
      if (!brief) throw new Error('the session has no call brief');
      return deps.systemPrompt(brief, effect.language);
    },
    messages: effect.messages,
    retrieve: brief ? deps.retrieveFor?.(brief) : undefined,
    route: brief?.definition.llm_route ?? { primary: '', fallbacks: [] },
    tools: brief
      ? deps.buildTools(brief, controlPlane, hooks, ids, {
          initial: memory,
          save: (next) => {
            memory = next;
            memoryChanged = true;
          },
        })
      : [],
    controller,
    firstTokenDeadlineMs: deps.settings.firstTokenDeadlineMs,
    fillerAfterMs: deps.settings.fillerAfterMs,
    feed,
    // Each feed is a read and a write of the session item: text goes in when it may complete a phrase.
    textReady: phraseReady(),
    log: {
      warn: (msg, fields) => deps.log.warn(msg, { callId: record.call_id, ...fields }),
      error: (msg, fields) => deps.log.error(msg, { callId: record.call_id, ...fields }),
    },
  });
  // A hook's input still queued (an end requested by the last tool) is applied before the invocation ends.
  await queue;
}
