/**
 * The AWS voice runtime host's work (functions/relay/): API Gateway calls a Lambda per frame,
 * so nothing lives between frames but the session item (shared/repositories/relay-sessions.ts).
 * Each input is one read → the pure core's `step` → a write conditioned on the revision read
 * (a lost race reads again and re-applies), then the step's effects: events posted to the
 * control plane (an opt-out stored before anything is said), frames sent with PostToConnection,
 * a reply streamed by this invocation.
 *
 * A reply is fed to the core phrase by phrase; before each phrase the session is read again,
 * and once its generation is not the reply's (an interrupt or a newer prompt, handled by
 * another invocation, bumped it), the model is aborted and nothing more of it is sent.
 */
import { mintStreamToken, type VerifiedStreamClaims } from '../telephony/call-tokens.js';
import { getRelaySession, relayConnection, saveRelaySession, type RelaySessionRecord } from '../repositories/relay-sessions.js';
import { renderPlan } from './plan.js';
import type { CallBrief, ControlPlane, ReplyModel, ReplyPart } from './ports.js';
import { parseInbound, type OutboundMessage } from './protocol.js';
import type { CoreInput, CoreState, CoreStep, RelayCore } from './relay-core.js';
import type { VoiceRuntimeSettings } from './runtime-settings.js';

export interface RelayHostLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface RelayHostDeps {
  core: RelayCore;
  model: ReplyModel;
  /** PostToConnection; a socket that is gone throws. */
  send(connectionId: string, message: OutboundMessage): Promise<void>;
  /** DeleteConnection: the socket is closed (a setup this connection may not hold). */
  disconnect(connectionId: string): Promise<void>;
  verifyToken(token: string, at: Date): Promise<VerifiedStreamClaims | null>;
  controlPlaneFor(claims: VerifiedStreamClaims): ControlPlane;
  /** The system prompt for the call (the plan block at least). */
  systemPrompt(brief: CallBrief, language: string): string;
  settings: VoiceRuntimeSettings;
  now(): Date;
  log: RelayHostLog;
}

/** What every reply of the session needs, stored at setup. */
interface ReplyContext {
  system: string;
  route: { primary: string; fallbacks: string[] };
}

interface Applied {
  record: RelaySessionRecord;
  step: CoreStep;
}

const MAX_RACES = 8;
/** A phrase ends at a sentence or clause mark, a line break, or this many characters. */
const PHRASE_CHARS = 60;
const PHRASE_END = /[.!?;:,\n]\s*$/;

/** The control plane's token for a stored session: minted again from its claims, never stored. */
export function reMintedToken(key: Uint8Array | string, claims: VerifiedStreamClaims, at: Date): string {
  const { exp, ...rest } = claims;
  return mintStreamToken(key, rest, at, Math.max(1, exp - Math.floor(at.getTime() / 1000)));
}

/** The plan block (shared/voice/plan.ts) as the system prompt, until a richer compiler is supplied. */
export function planSystemPrompt(brief: CallBrief, language: string): string {
  return renderPlan({
    use_case: brief.use_case,
    outcome_type: brief.outcome_type,
    language,
    objectives: brief.objectives.map((o) => ({ ...o })),
    questions: brief.questions.map((q) => ({ id: q.id, prompt: q.prompt })),
    tools: [...brief.definition.tools],
  });
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
    deps.log.warn('setup token is not the connection\'s call; closing', { callId: owner.call_id });
    return deps.disconnect(connectionId);
  }
  const brief = await deps.controlPlaneFor(claims).loadCall(claims);
  if (!brief) {
    deps.log.warn('call not found at setup; closing', { callId: owner.call_id });
    return deps.disconnect(connectionId);
  }
  const language = brief.definition.conversation_settings?.default_language ?? 'en-US';
  const context: ReplyContext = { system: deps.systemPrompt(brief, language), route: { primary: brief.definition.llm_route.primary, fallbacks: [...brief.definition.llm_route.fallbacks] } };
  return run(connectionId, owner, { type: 'start', setup: message, call: deps.core.callSetup(brief) }, deps, context);
}

/** $disconnect: the core closes the session (its hangup and flushed events are posted), then the items go. */
export async function handleRelayDisconnect(connectionId: string, deps: RelayHostDeps, close: (owner: { tenant_id: string; call_id: string }) => Promise<void>): Promise<void> {
  const owner = await relayConnection(connectionId);
  if (!owner) return;
  try {
    await run(connectionId, owner, { type: 'socket_closed' }, deps);
  } finally {
    await close(owner);
  }
}

async function run(connectionId: string, owner: { tenant_id: string; call_id: string }, input: CoreInput, deps: RelayHostDeps, context?: ReplyContext): Promise<void> {
  const applied = await apply(connectionId, owner, input, deps, { context });
  if (applied !== 'gone' && applied !== 'stale') await perform(connectionId, applied, deps);
}

/** Read, step, write under the revision read; a lost race starts over from a fresh read. */
async function apply(connectionId: string, owner: { tenant_id: string; call_id: string }, input: CoreInput, deps: RelayHostDeps, opts: { context?: ReplyContext; generation?: number }): Promise<Applied | 'gone' | 'stale'> {
  for (let race = 0; race < MAX_RACES; race++) {
    const record = await getRelaySession(owner.tenant_id, owner.call_id);
    if (!record || record.connection_id !== connectionId) return 'gone';
    const state = (record.state as CoreState | null) ?? deps.core.initialState();
    if (opts.generation !== undefined && state.generation !== opts.generation) return 'stale';
    const step = deps.core.step(state, input, deps.now());
    const saved = await saveRelaySession(record, { state: step.state, generation: step.state.generation, ...(opts.context ? { reply_context: opts.context } : {}) });
    if (saved) return { record: { ...record, state: step.state, generation: step.state.generation, revision: record.revision + 1, reply_context: opts.context ?? record.reply_context }, step };
  }
  throw new Error(`relay session of call ${owner.call_id}: lost ${MAX_RACES} write races in a row`);
}

/** A step's effects, in the order the core asks: opt-out events stored, frames sent, the rest posted, then the reply. */
async function perform(connectionId: string, { record, step }: Applied, deps: RelayHostDeps): Promise<void> {
  const controlPlane = deps.controlPlaneFor(record.claims);
  const first = Math.max(0, ...step.effects.map((e) => (e.kind === 'store_before_speaking' ? e.count : 0)));
  const post = async (events: typeof step.events) => {
    if (!events.length) return;
    await controlPlane.postEvents(events).catch((err: unknown) => deps.log.error('events not stored', { callId: record.call_id, error: (err as Error)?.message ?? String(err) }));
  };
  await post(step.events.slice(0, first));
  for (const message of step.send) {
    await deps.send(connectionId, message).catch((err: unknown) => deps.log.warn('frame not delivered', { callId: record.call_id, error: (err as Error)?.name ?? String(err) }));
  }
  await post(step.events.slice(first));
  for (const effect of step.effects) {
    if (effect.kind === 'log') deps.log[effect.level](effect.msg, { callId: record.call_id, ...effect.fields });
  }
  for (const effect of step.effects) {
    if (effect.kind === 'start_reply') await streamReply(connectionId, record, effect.generation, effect.messages, deps);
  }
}

async function streamReply(connectionId: string, record: RelaySessionRecord, generation: number, messages: CoreStepMessages, deps: RelayHostDeps): Promise<void> {
  const owner = { tenant_id: record.tenant_id, call_id: record.call_id };
  const context = record.reply_context as ReplyContext | null;
  const controller = new AbortController();
  let pending = '';
  /** Feeds one input at this reply's generation; false once the reply is stale or the session gone. */
  const feed = async (input: CoreInput): Promise<boolean> => {
    const applied = await apply(connectionId, owner, input, deps, { generation });
    if (applied === 'gone' || applied === 'stale') {
      controller.abort();
      deps.log.info('reply stopped: superseded', { callId: record.call_id, generation });
      return false;
    }
    await perform(connectionId, applied, deps);
    return true;
  };
  const flush = async () => {
    if (!pending) return true;
    const text = pending;
    pending = '';
    return feed({ type: 'reply_delta', generation, text });
  };

  try {
    const parts = deps.model.stream({
      system: context?.system ?? '',
      messages,
      tools: [],
      route: context?.route ?? { primary: '', fallbacks: [] },
      signal: controller.signal,
      firstTokenDeadlineMs: deps.settings.firstTokenDeadlineMs,
    });
    for await (const part of parts) {
      if (part.type === 'text') {
        pending += part.delta;
        if ((PHRASE_END.test(pending) || pending.length >= PHRASE_CHARS) && !(await flush())) return;
        continue;
      }
      if (!(await flush())) return;
      const input = coreInputFor(part, generation);
      if (part.type === 'fallback') deps.log.warn('model fell over to the next', { callId: record.call_id, model: part.model, reason: part.reason });
      if (input && !(await feed(input))) return;
      if (part.type === 'finish' || part.type === 'error') return;
    }
    if (await flush()) await feed({ type: 'reply_failed', generation, models: [] });
  } catch (err) {
    if (controller.signal.aborted) return;
    deps.log.error('reply stream failed', { callId: record.call_id, error: (err as Error)?.message ?? String(err) });
    await feed({ type: 'reply_failed', generation, models: [] });
  }
}

type CoreStepMessages = Extract<CoreStep['effects'][number], { kind: 'start_reply' }>['messages'];

function coreInputFor(part: ReplyPart, generation: number): CoreInput | undefined {
  switch (part.type) {
    case 'tool-call':
      return { type: 'tool_started', generation, toolName: part.toolName };
    case 'finish':
      return { type: 'reply_finished', generation, model: part.model, usage: part.usage };
    case 'error':
      return { type: 'reply_failed', generation, models: part.models };
    default:
      return undefined;
  }
}
