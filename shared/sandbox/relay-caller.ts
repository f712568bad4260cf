/**
 * The sandbox carrier's side of Twilio ConversationRelay: when our TwiML hands an answered
 * call to `<Connect action><ConversationRelay url=…>` and the url is our voice runtime's relay,
 * nobody real is on the line, so the sandbox plays what Twilio does on that WebSocket, with
 * the test number's CONTACT speaking (shared/sandbox/caller-scripts.ts says what):
 *
 *   - connects to the url, the upgrade signed with X-Twilio-Signature over the exact URL with
 *     the account's auth token (as Twilio signs it), then sends `setup` (sessionId, callSid,
 *     from, to, direction, the <Parameter>s as customParameters);
 *   - says each contact line as a `prompt` (optionally a partial `last: false` first) once the
 *     agent's reply has finished (`text` with `last: true`), waiting with a deadline;
 *   - talks over a reply with `interrupt` (what was heard of it, and for how long) and presses
 *     keys with `dtmf` where the script says;
 *   - reports every line as it goes (`onLine`), and ends on the runtime's `end` (its
 *     handoffData), the contact hanging up (it closes the socket), or the socket closing
 *     without `end`.
 * `playRelayCall` then posts the ending to the `<Connect action>` URL as Twilio does (signed
 * form: SessionId, SessionStatus, SessionDuration, HandoffData or ErrorCode 64105) and follows
 * the TwiML it answers through the verb runner; a relay in that TwiML (a reconnect) plays
 * again, as many times as the TwiML says (bounded here too).
 */
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { twilioSignature } from '../telephony/twilio-signature.js';
import { inbound, type OutboundMessage, outbound } from '../voice/protocol.js';
import { type CallerMove, type CallerSource, type CallerState, initialCallerState, interruption, markInterrupted, nextMove } from './caller-scripts.js';
import type { FollowResult, PathStep } from './verb-runner.js';

/** Where the TwiML handed the call: the relay's url (with its token), its <Parameter>s and the <Connect action>. */
export interface RelayTarget {
  url: string;
  parameters: Record<string, string>;
  action: string | null;
  /** Said by Twilio as the session opens (the disclosure; a short apology on a reconnect). */
  welcomeGreeting: string | null;
}

/** The call leg as Twilio describes it in `setup` and in the action request. */
export interface RelayLeg {
  callSid: string;
  accountSid: string;
  from: string;
  to: string;
  direction: 'inbound' | 'outbound-api';
}

export type Speaker = 'agent' | 'contact';
export interface TranscriptLine {
  speaker: Speaker;
  text: string;
  at: string;
  /** An agent line the contact talked over (its text is what was heard), or the keys the contact pressed. */
  interrupted?: boolean;
  keys?: boolean;
}
export type OnLine = (line: TranscriptLine) => void;

/** One transcript line for a terminal: `14:03:07.412  agent    How old is your roof?` (an interrupted line ends with "…", key presses in brackets). */
export const formatTranscriptLine = (line: TranscriptLine): string =>
  `${line.at.slice(11, 23)}  ${line.speaker.padEnd(7)}  ${line.keys ? `[pressed ${line.text}]` : line.text}${line.interrupted ? ' …' : ''}`;

export type RelayEnding =
  /** The runtime ended the session (`end`), with its HandoffData. */
  | { how: 'end'; handoffData: string | null }
  /** The contact hung up (or gave up waiting for the agent): the call is over, nothing is posted. */
  | { how: 'hung_up'; reason: 'script' | 'agent_silent' }
  /** The runtime closed the socket without `end`, or refused the upgrade: Twilio's 64105. */
  | { how: 'dropped'; code: number; status?: number };

export interface RelaySessionInput {
  target: RelayTarget;
  authToken: string;
  leg: RelayLeg;
  source: CallerSource;
  /** The contact's state so far (carried across reconnects). */
  state?: CallerState;
  onLine?: OnLine;
  /** Longest wait for the upgrade, for a reply to start after the contact spoke, and for a started reply to finish. */
  replyTimeoutMs?: number;
  /** How long the contact listens after a statement before the agent counts as silent. */
  silenceMs?: number;
  /** A pause before each line the contact says (the call's pace). */
  pauseMs?: number;
  /** Send the first half of each line of four words or more as a partial prompt (`last: false`) first. */
  partialPrompts?: boolean;
  now?: () => Date;
}

export interface RelaySessionResult {
  sessionId: string;
  ending: RelayEnding;
  state: CallerState;
  durationSeconds: number;
  transcript: TranscriptLine[];
}

const RELAY_PATH = '/runtime/v1/relay';
/** Twilio's ConversationRelay error for a WebSocket that failed or closed unexpectedly (the sandbox reports every socket failure with it). */
export const RELAY_SOCKET_ERROR = { code: '64105', message: 'The WebSocket connection to the ConversationRelay application ended unexpectedly' } as const;

/** Whether a ConversationRelay url is our voice runtime's relay (ws(s)://…/runtime/v1/relay), which the sandbox plays the caller for. */
export function isOurRelay(url: string | null | undefined): boolean {
  if (!url) return false;
  try {
    const u = new URL(url);
    return (u.protocol === 'ws:' || u.protocol === 'wss:') && u.pathname.endsWith(RELAY_PATH);
  } catch {
    return false;
  }
}

/**
 * The relay a followed TwiML document handed the call to, when it is ours; null for a
 * <Connect><Stream> (the scripted runtime's), someone else's relay, or no Connect at all.
 * The verb runner reports a <ConversationRelay> as its `stream` with the `action` and
 * `welcomeGreeting` beside the url and parameters.
 */
export function relayTargetOf(followed: Pick<FollowResult, 'outcome' | 'stream'>): RelayTarget | null {
  const stream = followed.stream as (FollowResult['stream'] & { action?: string | null; welcomeGreeting?: string | null }) | null;
  if (followed.outcome !== 'streaming' || !stream?.url || !isOurRelay(stream.url)) return null;
  return { url: stream.url, parameters: stream.parameters, action: stream.action ?? null, welcomeGreeting: stream.welcomeGreeting ?? null };
}

type Incoming = { kind: 'message'; message: OutboundMessage } | { kind: 'closed'; code: number };

/** The runtime's frames in arrival order; `next` waits for one with a deadline (null: none came). */
class Inbox {
  private readonly items: Incoming[] = [];
  private waiter: ((i: Incoming | null) => void) | null = null;
  private closed: Incoming | null = null;

  push(item: Incoming): void {
    if (item.kind === 'closed') this.closed = item;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w(item);
    } else if (item.kind === 'message') this.items.push(item);
  }

  next(timeoutMs: number): Promise<Incoming | null> {
    const queued = this.items.shift();
    if (queued) return Promise.resolve(queued);
    if (this.closed) return Promise.resolve(this.closed);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve(null);
      }, timeoutMs);
      this.waiter = (i) => {
        clearTimeout(timer);
        resolve(i);
      };
    });
  }
}

type Heard =
  | { kind: 'reply'; text: string; interrupted: boolean }
  | { kind: 'silence' }
  | { kind: 'end'; handoffData: string | null }
  | { kind: 'closed'; code: number }
  | { kind: 'timeout' };

const newSessionId = () => `VX${randomBytes(16).toString('hex')}`;
const pause = (ms: number) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());
/** `promise`, or nothing once `ms` have passed. */
const within = (promise: Promise<void>, ms: number) => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<void>((r) => (timer = setTimeout(r, ms)))]).finally(() => clearTimeout(timer));
};

/** Opens the socket as Twilio does; the HTTP status when the upgrade is refused. */
function connect(url: string, authToken: string, timeoutMs: number): Promise<{ ws: WebSocket } | { status: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers: { 'x-twilio-signature': twilioSignature(authToken, url, {}) }, handshakeTimeout: timeoutMs });
    ws.on('error', () => resolve({ status: 0 })); // a second resolve is a no-op
    ws.once('unexpected-response', (req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      req.destroy();
    });
    ws.once('open', () => resolve({ ws }));
  });
}

/** One ConversationRelay session: from the upgrade to `end`, the contact's hang-up or a dropped socket. */
export async function playRelaySession(input: RelaySessionInput): Promise<RelaySessionResult> {
  const now = input.now ?? (() => new Date());
  const replyTimeoutMs = input.replyTimeoutMs ?? 20_000;
  const silenceMs = input.silenceMs ?? 3_000;
  const sessionId = newSessionId();
  const transcript: TranscriptLine[] = [];
  const started = now().getTime();
  let state = input.state ?? initialCallerState();
  const line = (speaker: Speaker, text: string, extra: Partial<TranscriptLine> = {}) => {
    const l: TranscriptLine = { speaker, text: text.trim(), at: now().toISOString(), ...extra };
    transcript.push(l);
    input.onLine?.(l);
  };
  const done = (ending: RelayEnding): RelaySessionResult => ({
    sessionId,
    ending,
    state,
    durationSeconds: Math.max(0, Math.round((now().getTime() - started) / 1000)),
    transcript,
  });

  const opened = await connect(input.target.url, input.authToken, replyTimeoutMs);
  if (!('ws' in opened)) return done({ how: 'dropped', code: 1006, status: opened.status });
  const ws = opened.ws;
  const inbox = new Inbox();
  ws.on('message', (raw) => {
    let json: unknown;
    try {
      json = JSON.parse(String(raw));
    } catch {
      return; // Twilio answers an unreadable frame with an error (64107) and ignores it
    }
    const parsed = outbound.safeParse(json);
    if (parsed.success) inbox.push({ kind: 'message', message: parsed.data });
  });
  const closed = new Promise<void>((resolve) =>
    ws.on('close', (code) => {
      inbox.push({ kind: 'closed', code });
      resolve();
    }),
  );
  const send = (message: unknown) => ws.send(JSON.stringify(inbound.parse(message)));
  const hangUp = async () => {
    if (ws.readyState === WebSocket.OPEN) ws.close(1000, 'caller hung up');
    await within(closed, replyTimeoutMs); // the close handshake
  };

  /** The agent's next reply as the contact hears it, cut short when the contact talks over it. */
  const hear = async (firstWaitMs: number, silenceCounts: boolean): Promise<Heard> => {
    let text = '';
    for (;;) {
      const item = await inbox.next(text ? replyTimeoutMs : firstWaitMs);
      if (!item) return text ? { kind: 'timeout' } : silenceCounts ? { kind: 'silence' } : { kind: 'timeout' };
      if (item.kind === 'closed') {
        if (text.trim()) line('agent', text);
        return item;
      }
      const m = item.message;
      if (m.type === 'end') {
        if (text.trim()) line('agent', text);
        return { kind: 'end', handoffData: m.handoffData ?? null };
      }
      if (m.type !== 'text') continue; // language and sendDigits change nothing the contact says
      text += m.token;
      const cut = interruption(input.source, state, text);
      if (cut) {
        send({ type: 'interrupt', utteranceUntilInterrupt: cut.heard, durationUntilInterruptMs: cut.durationMs });
        state = markInterrupted(state);
        line('agent', cut.heard, { interrupted: true });
        return { kind: 'reply', text: cut.heard, interrupted: true };
      }
      if (m.last) {
        if (text.trim()) {
          line('agent', text);
          return { kind: 'reply', text, interrupted: false };
        }
      }
    }
  };

  const say = async (text: string, lang: string) => {
    await pause(input.pauseMs ?? 0);
    const words = text.split(/\s+/).filter(Boolean);
    if (input.partialPrompts && words.length >= 4)
      send({ type: 'prompt', voicePrompt: words.slice(0, Math.ceil(words.length / 2)).join(' '), lang, last: false });
    send({ type: 'prompt', voicePrompt: text, lang, last: true });
    line('contact', text);
  };

  try {
    send({
      type: 'setup',
      sessionId,
      callSid: input.leg.callSid,
      accountSid: input.leg.accountSid,
      from: input.leg.from,
      to: input.leg.to,
      direction: input.leg.direction,
      callStatus: 'in-progress',
      customParameters: input.target.parameters,
    });
    if (input.target.welcomeGreeting) line('agent', input.target.welcomeGreeting);
    let move: CallerMove;
    ({ state, move } = nextMove(input.source, state, { type: 'greeting' }));
    for (;;) {
      let heard: Heard;
      switch (move.kind) {
        case 'hang_up':
          if (move.text) await say(move.text, move.lang);
          await hangUp();
          return done({ how: 'hung_up', reason: 'script' });
        case 'say':
          await say(move.text, move.lang);
          heard = await hear(replyTimeoutMs, false);
          break;
        case 'press':
          send({ type: 'dtmf', digit: move.digit });
          line('contact', move.digit, { keys: true });
          heard = await hear(replyTimeoutMs, false);
          break;
        case 'listen':
          heard = await hear(silenceMs, true);
          break;
      }
      if (heard.kind === 'end') return done({ how: 'end', handoffData: heard.handoffData });
      if (heard.kind === 'closed') return done({ how: 'dropped', code: heard.code });
      if (heard.kind === 'timeout') {
        // The agent never answered (or never finished): the contact gives up and hangs up.
        await hangUp();
        return done({ how: 'hung_up', reason: 'agent_silent' });
      }
      ({ state, move } = nextMove(
        input.source,
        state,
        heard.kind === 'silence' ? { type: 'silence' } : { type: 'reply', text: heard.text, interrupted: heard.interrupted },
      ));
    }
  } finally {
    // Twilio closes the socket once the session is over, whichever side ended it.
    if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000, 'session ended');
  }
}

/** The form Twilio posts to the <Connect action> when a session ends. */
export function relayActionParams(leg: RelayLeg, session: Pick<RelaySessionResult, 'sessionId' | 'ending' | 'durationSeconds'>): Record<string, string> {
  const base = { AccountSid: leg.accountSid, CallSid: leg.callSid, SessionId: session.sessionId, SessionDuration: String(session.durationSeconds) };
  switch (session.ending.how) {
    case 'end':
      return { ...base, SessionStatus: 'ended', ...(session.ending.handoffData !== null ? { HandoffData: session.ending.handoffData } : {}) };
    case 'dropped':
      return { ...base, SessionStatus: 'failed', ErrorCode: RELAY_SOCKET_ERROR.code, ErrorMessage: RELAY_SOCKET_ERROR.message };
    case 'hung_up':
      return { ...base, SessionStatus: 'completed' };
  }
}

export interface RelayCallInput extends Omit<RelaySessionInput, 'target' | 'state'> {
  target: RelayTarget;
  /**
   * Posts the action (signed, as every carrier request) and follows the TwiML it answers
   * through the verb runner: the path it took and, when that TwiML hands the call to our relay
   * again (a reconnect), where.
   */
  followAction: (url: string, params: Record<string, string>) => Promise<{ path: PathStep[]; relay: RelayTarget | null }>;
  /** At most this many sessions on one call (the action's TwiML decides reconnects; this only bounds a loop). */
  maxSessions?: number;
}

export interface RelayCallResult {
  sessions: RelaySessionResult[];
  /** What the TwiML answered to the action, followed (Dial, Say, Hangup, another Connect). */
  path: PathStep[];
  transcript: TranscriptLine[];
}

/** What the sandbox keeps of a relay-played call (JSON-ready). */
export interface RelayRun {
  sessions: { session_id: string; ending: RelayEnding['how']; handoff_data: string | null; status?: number }[];
  /** The TwiML the <Connect action> answered, as followed. */
  path: PathStep[];
  transcript: TranscriptLine[];
}

export const relayRunOf = (result: RelayCallResult): RelayRun => ({
  sessions: result.sessions.map((s) => ({
    session_id: s.sessionId,
    ending: s.ending.how,
    handoff_data: s.ending.how === 'end' ? s.ending.handoffData : null,
    ...(s.ending.how === 'dropped' && s.ending.status !== undefined ? { status: s.ending.status } : {}),
  })),
  path: result.path,
  transcript: result.transcript,
});

/** A whole relay-handled call: sessions, the action posted after each, reconnects as the TwiML answers. */
export async function playRelayCall(input: RelayCallInput): Promise<RelayCallResult> {
  const result: RelayCallResult = { sessions: [], path: [], transcript: [] };
  let target: RelayTarget | null = input.target;
  let state: CallerState | undefined;
  while (target && result.sessions.length < (input.maxSessions ?? 4)) {
    const session = await playRelaySession({ ...input, target, ...(state ? { state } : {}) });
    result.sessions.push(session);
    result.transcript.push(...session.transcript);
    state = session.state;
    // A contact who hung up ended the call: Twilio asks for no more TwiML.
    if (session.ending.how === 'hung_up' || !target.action) break;
    const followed = await input.followAction(target.action, relayActionParams(input.leg, session));
    result.path.push(...followed.path);
    target = followed.relay;
  }
  return result;
}
