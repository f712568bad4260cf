/**
 * The driver of one ConversationRelay session on a long-lived socket: parses frames, verifies
 * the setup's call token, loads the call, feeds everything through the pure core
 * (core/step.ts) one input at a time, and carries out what the core asks — streaming replies
 * from the ReplyModel (each part tagged with its generation; a stale generation's parts are
 * dropped by the core), timing tools (one filler when slow, one sentence when failed),
 * posting events in order and sending frames, each checked by `outbound.parse`.
 *
 * Events never block speech, except an opt-out, which is stored before its acknowledgement
 * is spoken. A control-plane write that fails is logged (the ControlPlane retried it already)
 * and the conversation goes on. Nothing said by either side, no model token and no call
 * token is ever logged.
 */
import { MAX_EVENTS_PER_REQUEST } from '../schemas/runtime-events.js';
import type { VerifiedStreamClaims } from '../telephony/call-tokens.js';
import { phraseReady } from './core/coalesce.js';
import { type CoreInput, callSetup, type Effect, initialState, type SessionState, type StepResult } from './core/state.js';
import { step } from './core/step.js';
import { renderPlan } from './plan.js';
import type { CallBrief, ControlPlane, ReplyModel, RuntimeEventInput, ToolSpec } from './ports.js';
import { type HandoffData, type OutboundMessage, outbound, parseInbound, type SetupMessage } from './protocol.js';
import type { ReferencePassage } from './reference.js';
import { errorFields, runReply, toolEventId, toolReplyGeneration } from './reply-run.js';
import { DEFAULT_FILLER_AFTER_MS, DEFAULT_FIRST_TOKEN_DEADLINE_MS } from './runtime-settings.js';

/** WebSocket close code for a setup we refuse (bad or expired token, unknown call). */
export const CLOSE_POLICY_VIOLATION = 1008;
const CLOSE_INTERNAL_ERROR = 1011;

/** What a tool may ask of the session (end_call, transfer_to_human). */
export interface SessionToolHooks {
  requestEnd(data: HandoffData): void;
  /** Press keys on the call (digits 0-9 * # and w for a pause). */
  sendDigits(digits: string): void;
}

/** Ids for the events tools report: deterministic per session. */
export interface SessionEventIds {
  next(prefix: string): string;
  now(): Date;
}

type LogFn = (msg: string, fields?: Record<string, unknown>) => void;

export interface RelaySessionDeps {
  verifyToken(token: string, at: Date): VerifiedStreamClaims | null | Promise<VerifiedStreamClaims | null>;
  controlPlaneFor(claims: VerifiedStreamClaims): ControlPlane;
  model: ReplyModel;
  /** The tools the pinned version grants; none when absent. */
  buildTools?(brief: CallBrief, cp: ControlPlane, hooks: SessionToolHooks, ids: SessionEventIds): ToolSpec[];
  /** The pinned knowledge pack's retrieval for a reply; absent (or undefined for the brief) when the version names none. */
  retrieveFor?(brief: CallBrief): ((query: string) => Promise<readonly ReferencePassage[]>) | undefined;
  /** The system prompt; a minimal one carrying the agent plan when absent. */
  systemPrompt?(brief: CallBrief, language: string): string;
  send(msg: OutboundMessage): void;
  close(code: number, reason: string): void;
  now(): Date;
  log: { info: LogFn; warn: LogFn; error: LogFn };
  firstTokenDeadlineMs?: number;
  fillerAfterMs?: number;
  /** A tool still running after this long has failed (default TOOL_TIMEOUT_MS). */
  toolTimeoutMs?: number;
}

export interface RelaySession {
  /** One WebSocket frame from Twilio. Never throws. */
  receive(raw: string): Promise<void>;
  /** The socket closed; resolves once the session's events are flushed. */
  socketClosed(): Promise<void>;
  state(): SessionState;
}

export { TOOL_FAILED_RESULT } from './reply-run.js';

function minimalPrompt(brief: CallBrief, language: string): string {
  const plan = renderPlan({
    use_case: brief.use_case,
    outcome_type: brief.outcome_type,
    language,
    objectives: brief.objectives.map((o) => ({ id: o.id, description: o.description, required: o.required })),
    questions: brief.questions.map((q) => ({ id: q.id, prompt: q.prompt })),
    tools: [...brief.definition.tools],
  });
  return `You are a voice agent on a phone call. Reply in ${language}, briefly, in plain spoken sentences.\n${plan}`;
}

/** The events of one enqueue: settled once its last batch was posted; failed if any batch failed. */
interface EventGroup {
  left: number;
  error: unknown;
  settle(error: unknown): void;
}

/** Posts events in order, at most MAX_EVENTS_PER_REQUEST a request, one request at a time. */
class EventPoster {
  private pending: { event: RuntimeEventInput; group: EventGroup }[] = [];
  private pumping: Promise<void> | null = null;
  constructor(
    private readonly cp: () => ControlPlane | null,
    private readonly log: RelaySessionDeps['log'],
  ) {}

  /** Resolves once these events were stored; rejects with the control plane's error (already logged) when a post failed. */
  enqueue(events: readonly RuntimeEventInput[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    const stored = new Promise<void>((resolve, reject) => {
      const group: EventGroup = { left: events.length, error: undefined, settle: (error) => (error === undefined ? resolve() : reject(error)) };
      for (const event of events) this.pending.push({ event, group });
    });
    this.pumping ??= this.pump();
    return stored;
  }

  idle(): Promise<void> {
    return this.pumping ?? Promise.resolve();
  }

  private async pump(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_EVENTS_PER_REQUEST);
      const cp = this.cp();
      let error: unknown;
      try {
        if (cp) await cp.postEvents(batch.map((b) => b.event));
      } catch (err) {
        error = err ?? new Error('postEvents failed');
        this.log.error('runtime events not stored', { ids: batch.map((b) => b.event.id), ...errorFields(err) });
      }
      for (const { group } of batch) {
        if (error !== undefined) group.error ??= error;
        if (--group.left === 0) group.settle(group.error);
      }
    }
    this.pumping = null;
  }
}

const ignore = () => {};

export function createRelaySession(deps: RelaySessionDeps): RelaySession {
  const firstTokenDeadlineMs = deps.firstTokenDeadlineMs ?? DEFAULT_FIRST_TOKEN_DEADLINE_MS;
  const fillerAfterMs = deps.fillerAfterMs ?? DEFAULT_FILLER_AFTER_MS;
  const systemPrompt = deps.systemPrompt ?? minimalPrompt;
  let state = initialState();
  let brief: CallBrief | null = null;
  let cp: ControlPlane | null = null;
  let tools: ToolSpec[] = [];
  let refused = false;
  let setupSeen = false;
  const replies = new Map<number, AbortController>();
  const poster = new EventPoster(() => cp, deps.log);
  let chain: Promise<void> = Promise.resolve();

  /** Inputs are applied one at a time, in arrival order. */
  const serial = (task: () => Promise<void>): Promise<void> => {
    const next = chain.then(task).catch((err) => deps.log.error('voice session step failed', errorFields(err)));
    chain = next;
    return next;
  };
  const dispatch = (input: CoreInput): Promise<void> => serial(() => run(input));

  function send(message: OutboundMessage): void {
    const parsed = outbound.safeParse(message);
    if (parsed.success) deps.send(parsed.data);
    else deps.log.error('outbound frame refused by its schema; not sent', { type: message.type });
  }

  async function run(input: CoreInput): Promise<void> {
    const r: StepResult = step(state, input, deps.now());
    state = r.state;
    for (const e of r.effects) if (e.kind === 'abort_reply') replies.get(e.generation)?.abort();
    const first = r.effects.find((e): e is Extract<Effect, { kind: 'store_before_speaking' }> => e.kind === 'store_before_speaking')?.count ?? 0;
    // A failed post was logged by the poster; speech goes on (the opt-out's acknowledgement too, once its post settled).
    const storedFirst = poster.enqueue(r.events.slice(0, first)).catch(ignore);
    poster.enqueue(r.events.slice(first)).catch(ignore);
    if (first > 0) await storedFirst;
    for (const m of r.send) send(m);
    for (const e of r.effects) {
      if (e.kind === 'log') deps.log[e.level](e.msg, e.fields);
      else if (e.kind === 'start_reply') startReply(e);
      else if (e.kind === 'session_ended') for (const c of replies.values()) c.abort();
    }
  }

  // The prompt depends only on the call's brief and the language: compiled once per language.
  const prompts = new Map<string, string>();
  const promptFor = (call: CallBrief, language: string): string => {
    let prompt = prompts.get(language);
    if (prompt === undefined) {
      prompt = systemPrompt(call, language);
      prompts.set(language, prompt);
    }
    return prompt;
  };

  function startReply(e: Extract<Effect, { kind: 'start_reply' }>): void {
    const call = brief;
    if (!call) return;
    const controller = new AbortController();
    replies.set(e.generation, controller);
    void runReply({
      model: deps.model,
      generation: e.generation,
      textReady: phraseReady(),
      system: () => promptFor(call, e.language),
      messages: e.messages,
      route: call.definition.llm_route,
      tools,
      controller,
      firstTokenDeadlineMs,
      fillerAfterMs,
      toolTimeoutMs: deps.toolTimeoutMs,
      retrieve: deps.retrieveFor?.(call),
      // A stale reply's parts are dropped by the core; the abort_reply effect stops the model.
      feed: (input) => dispatch(input).then(() => true),
      log: deps.log,
    }).finally(() => replies.delete(e.generation));
  }

  async function setup(message: SetupMessage): Promise<void> {
    const refuse = (why: string, code = CLOSE_POLICY_VIOLATION) => {
      refused = true;
      deps.log.warn('setup refused; closing', { why });
      deps.close(code, why);
    };
    const token = message.customParameters.token;
    let claims: VerifiedStreamClaims | null;
    try {
      claims = token ? await deps.verifyToken(token, deps.now()) : null;
    } catch (err) {
      deps.log.error('call token could not be checked', errorFields(err));
      claims = null;
    }
    if (!claims) return refuse('invalid_token');
    let plane: ControlPlane;
    let loaded: CallBrief | null;
    try {
      plane = deps.controlPlaneFor(claims);
      loaded = await plane.loadCall(claims);
    } catch (err) {
      deps.log.error('call could not be loaded', errorFields(err));
      return refuse('call_unavailable', CLOSE_INTERNAL_ERROR);
    }
    if (!loaded) return refuse('unknown_call');
    brief = loaded;
    // Tools report through the same ordered queue as the session's own events.
    cp = plane;
    const queued: ControlPlane = {
      loadCall: (c) => plane.loadCall(c),
      checkCalendar: (q) => plane.checkCalendar(q),
      postEvents: (events) => {
        // Queued ahead of any end the tool asks for next, so the ending knows an outcome was reported.
        if (events.some((e) => e.type === 'outcome')) void dispatch({ type: 'outcome_reported' });
        return poster.enqueue(events);
      },
    };
    const hooks: SessionToolHooks = {
      requestEnd: (handoff) => void dispatch({ type: 'end_requested', generation: toolReplyGeneration() ?? state.generation, handoff }),
      sendDigits: (digits) => void dispatch({ type: 'send_digits', generation: toolReplyGeneration() ?? state.generation, digits }),
    };
    // The counter lives in the state (a stateless host keeps it across invocations).
    const ids: SessionEventIds = {
      next: (p) => {
        const n = state.toolEventSeq;
        state = { ...state, toolEventSeq: n + 1 };
        return toolEventId(message.sessionId, p, n);
      },
      now: () => deps.now(),
    };
    tools = deps.buildTools?.(brief, queued, hooks, ids) ?? [];
    await run({ type: 'start', setup: message, call: callSetup(brief) });
  }

  return {
    receive(raw: string): Promise<void> {
      return serial(async () => {
        if (refused) return;
        const parsed = parseInbound(raw);
        if (!parsed.ok) return run({ type: 'invalid_frame', reason: parsed.reason });
        const message = parsed.message;
        if (message.type === 'setup' && !setupSeen) {
          setupSeen = true;
          return setup(message);
        }
        return run({ type: 'inbound', message });
      });
    },
    async socketClosed(): Promise<void> {
      await dispatch({ type: 'socket_closed' });
      for (const c of replies.values()) c.abort();
      await poster.idle();
    },
    state: () => state,
  };
}
