/**
 * The conversation core's state, inputs and effects: plain JSON, so a host that keeps no
 * process between frames (the AWS WebSocket API) can store the state between invocations
 * and a long-lived host (the local server) can keep it in memory. Pure.
 */
import type { VerifiedStreamClaims } from '../../telephony/call-tokens.js';
import { disclosureGreeting } from '../greeting.js';
import type { CallBrief, ChatTurn, RuntimeEventInput } from '../ports.js';
import type { HandoffData, InboundMessage, OutboundMessage, SetupMessage } from '../protocol.js';

const FALLBACK_LANGUAGE = 'en-US';

/** What the core needs of the call, taken from its brief once the token is verified. */
export interface CallSetup {
  claims: VerifiedStreamClaims;
  /** The disclosure opener Twilio speaks as welcomeGreeting. */
  greeting: string;
  language: string;
  supportedLanguages: string[];
  allowLanguageSwitch: boolean;
  /** The rep a failing model hands the call to, when transfer_to_human is granted and a target exists. */
  transferRepId: string | null;
}

export function callSetup(brief: CallBrief): CallSetup {
  const settings = brief.definition.conversation_settings ?? {};
  const language = settings.default_language ?? settings.supported_languages?.[0] ?? FALLBACK_LANGUAGE;
  return {
    claims: brief.claims,
    greeting: disclosureGreeting({ disclosure_config: brief.definition.disclosure_config, conversation_settings: settings }),
    language,
    supportedLanguages: [...(settings.supported_languages ?? [language])],
    allowLanguageSwitch: settings.allow_language_switch ?? false,
    transferRepId: brief.definition.tools.includes('transfer_to_human') ? (brief.transfer_targets[0]?.rep_id ?? null) : null,
  };
}

export interface TranscriptTurn {
  speaker: 'agent' | 'contact';
  text: string;
  /** ISO instant: contact — first partial transcript (or the final one); agent — first text frame sent. */
  started_at: string;
  /** Contact turns: when the final transcript arrived. */
  ended_at?: string;
  latency_ms?: number;
  interrupted?: boolean;
  model?: string;
  /** Agent turns: the knowledge-pack passages the reply was given and relied on. */
  passage_ids?: string[];
}

/** The reply being streamed to Twilio. */
export interface ReplyInProgress {
  generation: number;
  /** When the contact's turn was complete (epoch ms): latency runs from here to the first frame. */
  requestedAt: number;
  /** Tokens received and not yet sent (see coalesce.ts). */
  buffer: string;
  /** Text sent so far. */
  sent: string;
  firstFrameAt: number | null;
  fillerSaid: boolean;
  toolFailureSaid: boolean;
}

export interface SessionState {
  version: 1;
  phase: 'awaiting_setup' | 'live' | 'ended';
  sessionId: string | null;
  callSid: string | null;
  claims: VerifiedStreamClaims | null;
  /** Epoch ms of the setup (offsets and audio_seconds count from here). */
  startedAt: number | null;
  language: string;
  /** Once switched, text frames carry `lang`. */
  languageSwitched: boolean;
  supportedLanguages: string[];
  allowLanguageSwitch: boolean;
  transferRepId: string | null;
  /** Bumped on every reply started and on every interrupt: parts of an older generation are dropped. */
  generation: number;
  /** Next event number: event ids are `<sessionId>:<seq>`, so a retried post is idempotent. */
  seq: number;
  /** Next id number for events tools report (`<sessionId>:<prefix>-<n>`); advanced by the host, never by the core. */
  toolEventSeq: number;
  transcript: TranscriptTurn[];
  /**
   * The agent turn still open (index into transcript): its event is posted once it can no
   * longer change, i.e. at the contact's next input, an interrupt (what was heard) or the end.
   */
  openAgentTurn: number | null;
  disclosureSaid: boolean;
  /** Partial transcripts of the contact's current utterance. */
  partial: { text: string; startedAt: number } | null;
  reply: ReplyInProgress | null;
  /** A tool asked to end the call: sent once the current reply has been sent. */
  pendingEnd: HandoffData | null;
  /** A tool reported the call's outcome: otherwise the ending reports `none`. */
  outcomeReported: boolean;
  /** `end` sent or the socket closed: nothing more is said or reported. */
  ended: boolean;
  socketClosed: boolean;
}

export function initialState(): SessionState {
  return {
    version: 1,
    phase: 'awaiting_setup',
    sessionId: null,
    callSid: null,
    claims: null,
    startedAt: null,
    language: FALLBACK_LANGUAGE,
    languageSwitched: false,
    supportedLanguages: [],
    allowLanguageSwitch: false,
    transferRepId: null,
    generation: 0,
    seq: 0,
    toolEventSeq: 0,
    transcript: [],
    openAgentTurn: null,
    disclosureSaid: false,
    partial: null,
    reply: null,
    pendingEnd: null,
    outcomeReported: false,
    ended: false,
    socketClosed: false,
  };
}

export interface ReplyUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

export type CoreInput =
  /** The setup frame, after the host verified its token and loaded the call. */
  | { type: 'start'; setup: SetupMessage; call: CallSetup }
  | { type: 'inbound'; message: InboundMessage }
  | { type: 'invalid_frame'; reason: string }
  | { type: 'reply_delta'; generation: number; text: string }
  | { type: 'reply_finished'; generation: number; model: string; usage: ReplyUsage; passageIds?: readonly string[] }
  /** Every model of the route failed. */
  | { type: 'reply_failed'; generation: number; models: readonly string[] }
  | { type: 'tool_started'; generation: number; toolName: string }
  /** A tool still running after the filler delay. */
  | { type: 'tool_slow'; generation: number; toolName: string }
  | { type: 'tool_failed'; generation: number; toolName: string }
  /** A tool (end_call, transfer_to_human) asked to end the call after the current reply. */
  | { type: 'end_requested'; generation: number; handoff: HandoffData }
  | { type: 'switch_language'; language: string }
  /** A tool presses keys on the call (an IVR menu): the only way the runtime sends digits. */
  | { type: 'send_digits'; generation: number; digits: string }
  /** A tool reported an outcome event. */
  | { type: 'outcome_reported' }
  | { type: 'socket_closed' };

export type Effect =
  /** Stream a reply with the model; feed its parts back tagged with `generation`. */
  | { kind: 'start_reply'; generation: number; messages: ChatTurn[]; language: string }
  /** Stop streaming that reply (its later parts are dropped by the core anyway). */
  | { kind: 'abort_reply'; generation: number }
  /** The first `count` events of this step must be stored before any of its `send` goes out (an opt-out). */
  | { kind: 'store_before_speaking'; count: number }
  /** The session is over (`end` sent, or the socket closed): flush the events, stop the model. */
  | { kind: 'session_ended'; by: 'agent' | 'contact'; handoff: HandoffData | null }
  /** Never carries what was said, a token or a credential. */
  | { kind: 'log'; level: 'info' | 'warn' | 'error'; msg: string; fields?: Record<string, unknown> };

/**
 * What a step asks of the host, to be done in this order: `abort_reply` effects; enqueue
 * `events` for posting in order (awaiting the first `store_before_speaking.count` of them);
 * send `send` in order; then the other effects.
 */
export interface StepResult {
  state: SessionState;
  send: OutboundMessage[];
  events: RuntimeEventInput[];
  effects: Effect[];
}

/** The conversation as the model sees it: consecutive turns of one side merged, unheard agent turns left out. */
export function chatMessages(transcript: readonly TranscriptTurn[]): ChatTurn[] {
  const out: ChatTurn[] = [];
  for (const turn of transcript) {
    const content = turn.text.trim();
    if (!content) continue;
    const role = turn.speaker === 'agent' ? 'assistant' : 'user';
    const last = out[out.length - 1];
    if (last?.role === role) last.content = `${last.content}\n${content}`;
    else out.push({ role, content });
  }
  return out;
}
