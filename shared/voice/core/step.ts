/**
 * The conversation core: one pure transition per input, the same for every host.
 *
 *   step(state, input, now) → { state, send, events, effects }
 *
 * It decides what Twilio is sent, what is reported to the control plane (with ids
 * `<sessionId>:<seq>`, so a replayed post changes nothing) and what the host must do
 * (stream or abort a reply, store an opt-out before speaking). Compliance comes first and
 * never depends on the model: an opt-out or wrong person is reported, acknowledged and the
 * call ended; "are you a robot?" is answered by the runtime itself.
 */
import { RUNTIME_LIMITS } from '../../schemas/runtime-events.js';
import { detectCompliance, spokenLine } from '../phrases.js';
import type { RuntimeEventInput } from '../ports.js';
import { type HandoffData, type OutboundMessage, sendDigitsMessage } from '../protocol.js';
import { pushText } from './coalesce.js';
import { type CoreInput, chatMessages, type Effect, type ReplyInProgress, type SessionState, type StepResult } from './state.js';

const MAX_OFFSET_MS = 24 * 3600 * 1000;
const MAX_LATENCY_MS = 600_000;
const ID_PREFIX_CHARS = 64;
const MAX_MODEL_CHARS = 200;
const MAX_COUNT = 100_000_000;

type EventBody = RuntimeEventInput extends infer E ? (E extends unknown ? Omit<E, 'id' | 'at'> : never) : never;

class Step {
  readonly send: OutboundMessage[] = [];
  readonly events: RuntimeEventInput[] = [];
  readonly effects: Effect[] = [];
  constructor(
    readonly s: SessionState,
    readonly now: number,
  ) {}

  log(level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) {
    this.effects.push({ kind: 'log', level, msg, fields: { sessionId: this.s.sessionId, ...fields } });
  }

  event(body: EventBody, at = this.now): void {
    const prefix = (this.s.sessionId ?? 'session').replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, ID_PREFIX_CHARS);
    this.events.push({ id: `${prefix}:${this.s.seq++}`, at: new Date(at).toISOString(), ...body } as RuntimeEventInput);
  }

  offset(at: number): number {
    return Math.min(MAX_OFFSET_MS, Math.max(0, Math.round(at - (this.s.startedAt ?? at))));
  }
}

const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);
/** A provider's token count as the events route takes it: a whole number ≥ 0 (one bad number would refuse the whole batch). */
const count = (n: number) => (Number.isFinite(n) && n > 0 ? Math.min(MAX_COUNT, Math.round(n)) : 0);

/**
 * A deep copy of plain JSON (what the state is, so a stateless host can store it). Written out
 * rather than structuredClone: the local host steps once per phrase, tool and frame of every
 * reply, and structuredClone's serialise-then-parse cost several times this walk per step.
 */
function copyJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyJson) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copy = copyJson((value as Record<string, unknown>)[key]);
    // A stored state's JSON may name `__proto__`: kept as an own key, as JSON.parse made it.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  return out as T;
}

export function step(state: SessionState, input: CoreInput, now: Date): StepResult {
  const st = new Step(copyJson(state), now.getTime());
  apply(st, input);
  return { state: st.s, send: st.send, events: st.events, effects: st.effects };
}

function apply(st: Step, input: CoreInput) {
  const { s } = st;
  if (input.type === 'socket_closed') return socketClosed(st);
  if (input.type === 'invalid_frame') return st.log('warn', 'inbound frame ignored', { reason: input.reason });
  if (input.type === 'start') {
    if (s.phase !== 'awaiting_setup') return st.log('warn', 'setup replayed on a live session; ignored');
    return start(st, input);
  }
  if (s.phase === 'awaiting_setup') return st.log('warn', 'input before setup ignored', { input: input.type === 'inbound' ? input.message.type : input.type });
  if (s.ended) return;
  switch (input.type) {
    case 'inbound': {
      const m = input.message;
      if (m.type === 'setup') return st.log('warn', 'setup replayed on a live session; ignored');
      // Twilio's description may quote the frame it refused (our spoken text): only the part before any quote is logged.
      if (m.type === 'error') return st.log('warn', 'twilio reported an error', { description: clip(m.description.split(/[{"]/)[0]!.trim(), 120) });
      if (m.type === 'interrupt') return interrupt(st, m.utteranceUntilInterrupt);
      if (m.type === 'dtmf') return contactTurn(st, `[keypad: ${m.digit}]`, st.now, { keypad: true });
      if (!m.last) {
        s.partial = { text: mergeTranscript(s.partial?.text ?? '', m.voicePrompt), startedAt: s.partial?.startedAt ?? st.now };
        return;
      }
      const text = mergeTranscript(s.partial?.text ?? '', m.voicePrompt).trim();
      const startedAt = s.partial?.startedAt ?? st.now;
      s.partial = null;
      if (!text) return st.log('info', 'empty final prompt ignored');
      if (m.lang) switchLanguage(st, m.lang, false);
      return contactTurn(st, text, startedAt, { keypad: false });
    }
    case 'switch_language':
      return switchLanguage(st, input.language, true);
    case 'outcome_reported':
      s.outcomeReported = true;
      return;
    case 'send_digits': {
      if (input.generation !== s.generation) return st.log('info', 'digits from a stale reply; not sent');
      const digits = sendDigitsMessage.shape.digits.safeParse(input.digits);
      if (!digits.success) return st.log('warn', 'digits refused', { length: input.digits.length });
      st.send.push({ type: 'sendDigits', digits: digits.data });
      return;
    }
    case 'end_requested': {
      if (input.generation !== s.generation) return st.log('info', 'end requested by a stale reply; ignored', { reason: input.handoff.reason });
      if (s.reply) {
        s.pendingEnd = input.handoff;
        return;
      }
      return endSession(st, input.handoff);
    }
  }
  const reply = currentReply(s, input.generation);
  if (!reply) return;
  switch (input.type) {
    case 'reply_delta': {
      const { phrases, buffer } = pushText(reply.buffer, input.text);
      reply.buffer = buffer;
      for (const phrase of phrases) sendText(st, reply, phrase, false);
      return;
    }
    case 'tool_started':
      return flushBuffer(st, reply);
    case 'tool_slow':
      if (reply.fillerSaid) return;
      reply.fillerSaid = true;
      flushBuffer(st, reply);
      return sendText(st, reply, spaced(reply, spokenLine('filler', s.language)), false);
    case 'tool_failed':
      if (reply.toolFailureSaid) return;
      reply.toolFailureSaid = true;
      flushBuffer(st, reply);
      return sendText(st, reply, spaced(reply, spokenLine('tool_failed', s.language)), false);
    case 'reply_finished': {
      sendText(st, reply, reply.buffer, true);
      const model = clip(input.model.trim(), MAX_MODEL_CHARS);
      if (s.openAgentTurn !== null && reply.firstFrameAt !== null && model) s.transcript[s.openAgentTurn]!.model = model;
      if (s.openAgentTurn !== null && reply.firstFrameAt !== null && input.passageIds?.length)
        s.transcript[s.openAgentTurn]!.passage_ids = input.passageIds.slice(0, RUNTIME_LIMITS.passagesPerTurn);
      const [inputTokens, outputTokens, cached] = [input.usage.inputTokens, input.usage.outputTokens, input.usage.cachedInputTokens].map(count);
      st.event({
        type: 'usage',
        llm_input_tokens: inputTokens,
        llm_output_tokens: outputTokens,
        llm_cached_input_tokens: Math.min(cached!, inputTokens!),
        characters_spoken: reply.sent.length,
      });
      s.reply = null;
      if (s.pendingEnd) endSession(st, s.pendingEnd);
      return;
    }
    case 'reply_failed': {
      st.log('error', 'every model of the route failed', { models: input.models });
      flushBuffer(st, reply);
      const handoff: HandoffData = s.transferRepId ? { reason: 'transfer_to_human', rep_id: s.transferRepId } : { reason: 'model_failed' };
      sendText(st, reply, spaced(reply, spokenLine(handoff.reason === 'transfer_to_human' ? 'model_failed_transfer' : 'model_failed_end', s.language)), true);
      st.event({ type: 'usage', characters_spoken: reply.sent.length });
      s.reply = null;
      return endSession(st, handoff);
    }
  }
}

function start(st: Step, input: Extract<CoreInput, { type: 'start' }>) {
  const { s } = st;
  const { call, setup } = input;
  Object.assign(s, {
    phase: 'live',
    sessionId: setup.sessionId,
    callSid: setup.callSid,
    claims: call.claims,
    startedAt: st.now,
    language: call.language,
    supportedLanguages: [...call.supportedLanguages],
    allowLanguageSwitch: call.allowLanguageSwitch,
    transferRepId: call.transferRepId,
  } satisfies Partial<SessionState>);
  // Twilio speaks the greeting (welcomeGreeting, not interruptible): the disclosure comes first, then the turn that carried it.
  st.event({ type: 'disclosure', text: clip(call.greeting, RUNTIME_LIMITS.disclosureTextChars) });
  st.event({ type: 'turn', speaker: 'agent', text: clip(call.greeting, RUNTIME_LIMITS.turnTextChars), start_ms: 0 });
  st.event({ type: 'usage', characters_spoken: call.greeting.length });
  s.transcript.push({ speaker: 'agent', text: call.greeting, started_at: new Date(st.now).toISOString() });
  s.disclosureSaid = true;
  st.log('info', 'session started', { callId: call.claims.call_id });
}

/** Partial transcripts may repeat what came before (cumulative) or continue it (incremental). */
function mergeTranscript(before: string, next: string): string {
  if (!before) return next;
  if (next.startsWith(before)) return next;
  if (before.endsWith(next)) return before;
  return `${before} ${next}`;
}

function contactTurn(st: Step, text: string, startedAt: number, opts: { keypad: boolean }) {
  const { s } = st;
  // Contact input while we are still replying supersedes the reply (what was sent stands as heard).
  if (s.reply) abortReply(st, { heard: null });
  closeAgentTurn(st);
  s.transcript.push({ speaker: 'contact', text, started_at: new Date(startedAt).toISOString(), ended_at: new Date(st.now).toISOString() });
  st.event(
    {
      type: 'turn',
      speaker: 'contact',
      text: clip(text, RUNTIME_LIMITS.turnTextChars),
      start_ms: st.offset(startedAt),
      end_ms: Math.max(st.offset(startedAt), st.offset(st.now)),
    },
    startedAt,
  );

  const compliance = opts.keypad ? null : detectCompliance(text);
  if (compliance?.kind === 'opt_out' || compliance?.kind === 'wrong_person') {
    st.event({ type: 'opt_out', reason: compliance.kind, text: clip(text, RUNTIME_LIMITS.shortTextChars) });
    st.effects.push({ kind: 'store_before_speaking', count: st.events.length });
    st.log('info', 'contact asked not to be called', { reason: compliance.kind, phraseLanguage: compliance.language });
    scriptedReply(st, spokenLine(compliance.kind === 'opt_out' ? 'opt_out_ack' : 'wrong_person_ack', s.language));
    return endSession(st, { reason: 'opt_out' });
  }
  if (compliance?.kind === 'robot') return scriptedReply(st, spokenLine('robot_answer', s.language));

  const generation = ++s.generation;
  s.reply = newReply(generation, st.now);
  st.effects.push({ kind: 'start_reply', generation, messages: chatMessages(s.transcript), language: s.language });
}

const newReply = (generation: number, requestedAt: number): ReplyInProgress => ({
  generation,
  requestedAt,
  buffer: '',
  sent: '',
  firstFrameAt: null,
  fillerSaid: false,
  toolFailureSaid: false,
});

/** A line the runtime says itself (no model): sent whole, closing the reply at once. */
function scriptedReply(st: Step, text: string) {
  const reply = newReply(++st.s.generation, st.now);
  st.s.reply = reply;
  sendText(st, reply, text, true);
  st.event({ type: 'usage', characters_spoken: reply.sent.length });
  st.s.reply = null;
}

function currentReply(s: SessionState, generation: number): ReplyInProgress | null {
  return s.reply && s.reply.generation === generation && generation === s.generation ? s.reply : null;
}

/** A line inserted after text already sent gets a separating space. */
const spaced = (reply: ReplyInProgress, line: string) => (reply.sent && !/\s$/.test(reply.sent) ? ` ${line}` : line);

function flushBuffer(st: Step, reply: ReplyInProgress) {
  if (reply.buffer.trim()) sendText(st, reply, reply.buffer, false);
  reply.buffer = '';
}

/** The one place text frames are built: never an empty non-last frame; the first frame opens the agent turn. */
function sendText(st: Step, reply: ReplyInProgress, token: string, last: boolean) {
  const { s } = st;
  if (!last && !token.trim()) return;
  if (last) reply.buffer = '';
  st.send.push({ type: 'text', token, last, ...(s.languageSwitched ? { lang: s.language } : {}) });
  if (!token) return;
  reply.sent += token;
  if (reply.firstFrameAt === null) {
    reply.firstFrameAt = st.now;
    s.openAgentTurn = s.transcript.length;
    s.transcript.push({
      speaker: 'agent',
      text: '',
      started_at: new Date(st.now).toISOString(),
      latency_ms: Math.min(MAX_LATENCY_MS, Math.max(0, Math.round(st.now - reply.requestedAt))),
    });
  }
  s.transcript[s.openAgentTurn!]!.text = reply.sent;
}

/** Posts the open agent turn: it can no longer change. */
function closeAgentTurn(st: Step) {
  const { s } = st;
  if (s.openAgentTurn === null) return;
  const turn = s.transcript[s.openAgentTurn]!;
  s.openAgentTurn = null;
  const at = Date.parse(turn.started_at);
  st.event(
    {
      type: 'turn',
      speaker: 'agent',
      text: clip(turn.text, RUNTIME_LIMITS.turnTextChars),
      start_ms: st.offset(at),
      ...(turn.latency_ms !== undefined ? { latency_ms: turn.latency_ms } : {}),
      ...(turn.interrupted ? { interrupted: true } : {}),
      ...(turn.model ? { model: turn.model } : {}),
      ...(turn.passage_ids?.length ? { passage_ids: turn.passage_ids } : {}),
    },
    at,
  );
}

/** Stops the current reply at once: its later parts belong to a stale generation. */
function abortReply(st: Step, opts: { heard: string | null }) {
  const { s } = st;
  const reply = s.reply;
  if (!reply) return;
  st.effects.push({ kind: 'abort_reply', generation: reply.generation });
  s.generation++;
  s.reply = null;
  if (reply.sent) st.event({ type: 'usage', characters_spoken: reply.sent.length });
  if (s.openAgentTurn !== null && reply.firstFrameAt !== null) {
    const turn = s.transcript[s.openAgentTurn]!;
    turn.interrupted = true;
    if (opts.heard !== null) turn.text = opts.heard;
  }
}

function interrupt(st: Step, heard: string) {
  const { s } = st;
  if (s.reply) abortReply(st, { heard });
  else if (s.openAgentTurn !== null) {
    // The reply was all sent but Twilio was still speaking it.
    const turn = s.transcript[s.openAgentTurn]!;
    turn.interrupted = true;
    turn.text = heard;
  }
  closeAgentTurn(st);
  if (s.pendingEnd) endSession(st, s.pendingEnd);
}

function switchLanguage(st: Step, requested: string, explicit: boolean) {
  const { s } = st;
  const lower = requested.toLowerCase();
  const tag =
    s.supportedLanguages.find((t) => t.toLowerCase() === lower) ?? s.supportedLanguages.find((t) => t.toLowerCase().split('-')[0] === lower.split('-')[0]);
  if (tag && tag === s.language) return;
  if (!s.allowLanguageSwitch || !tag) {
    if (explicit) st.log('info', 'language switch refused', { requested: clip(requested, 35), allowed: s.allowLanguageSwitch });
    return;
  }
  s.language = tag;
  s.languageSwitched = true;
  st.send.push({ type: 'language', ttsLanguage: tag, transcriptionLanguage: tag });
}

function endSession(st: Step, handoff: HandoffData) {
  const { s } = st;
  if (s.reply) abortReply(st, { heard: null });
  closeAgentTurn(st);
  st.send.push({ type: 'end', handoffData: JSON.stringify(handoff) });
  reportNoOutcome(st);
  st.event({ type: 'hangup', by: 'agent', reason: handoff.reason });
  finish(st, 'agent', handoff);
}

function socketClosed(st: Step) {
  const { s } = st;
  if (s.socketClosed) return;
  s.socketClosed = true;
  if (s.phase !== 'live' || s.ended) {
    s.phase = s.phase === 'awaiting_setup' ? 'ended' : s.phase;
    return;
  }
  if (s.reply) abortReply(st, { heard: null });
  closeAgentTurn(st);
  reportNoOutcome(st);
  st.event({ type: 'hangup', by: 'contact' });
  finish(st, 'contact', null);
}

/** A conversation that ends without an outcome still says so: the agent ended it with none, goal not reached. */
function reportNoOutcome(st: Step) {
  if (st.s.outcomeReported) return;
  st.s.outcomeReported = true;
  st.event({ type: 'outcome', outcome: { outcome_type: 'none', goal_reached: false } });
}

function finish(st: Step, by: 'agent' | 'contact', handoff: HandoffData | null) {
  const { s } = st;
  s.pendingEnd = null;
  s.ended = true;
  s.phase = 'ended';
  const seconds = Math.min(86_400, Math.round(st.now - (s.startedAt ?? st.now)) / 1000);
  if (seconds > 0) st.event({ type: 'usage', audio_seconds: seconds });
  st.effects.push({ kind: 'session_ended', by, handoff });
}
