/**
 * The sandbox's Twilio side of ConversationRelay against an in-test fake relay (a `ws`
 * server that checks the upgrade's X-Twilio-Signature and plays a scripted agent), so the
 * WebSocket protocol is exercised for real without the voice runtime.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { type CallerItem, type CallerSource, LINES } from '../../shared/sandbox/caller-scripts.js';
import {
  formatTranscriptLine,
  isOurRelay,
  playRelayCall,
  playRelaySession,
  RELAY_SOCKET_ERROR,
  type RelayLeg,
  type RelayTarget,
  relayActionParams,
  relayTargetOf,
  type TranscriptLine,
} from '../../shared/sandbox/relay-caller.js';
import { type ScenarioId, scenarioById } from '../../shared/sandbox/scenarios.js';
import { verifyTwilioSignature } from '../../shared/telephony/twilio-signature.js';
import { waitFor } from '../support/wait-for.js';

const AUTH_TOKEN = 'sandbox-auth-token-0123456789abcdef';
const LEG: RelayLeg = {
  callSid: 'CA0123456789abcdef0123456789abcdef',
  accountSid: 'AC0123456789abcdef0123456789abcdef',
  from: '+12125550100',
  to: '+14155550100',
  direction: 'outbound-api',
};
const ITEMS: CallerItem[] = [
  { id: 'roof_age', prompt: 'How old is your roof?', options: [] },
  { id: 'csat', prompt: 'How satisfied are you?', options: ['very', 'somewhat'] },
];
const source = (id: ScenarioId): CallerSource => ({ kind: 'outbound', script: scenarioById(id).script!, items: ITEMS });

/** What the fake relay received on one socket, in order, and how it ended. */
interface Socket {
  url: string;
  signatureValid: boolean;
  frames: Record<string, unknown>[];
  /** Frames received while one of the agent's replies was still being sent (there must be none but interrupts). */
  duringReply: Record<string, unknown>[];
  closedBy: number | null;
}

type Frame = { type: 'text'; token: string; last: boolean } | { type: 'end'; handoffData?: string };
/** The scripted agent: what it sends after a frame from Twilio (null: nothing; 'close': closes the socket without `end`). */
type Agent = (frame: Record<string, unknown>, socket: Socket) => Frame[][] | 'close' | null;

let server: Server;
let wss: WebSocketServer;
let base: string;
const sockets: Socket[] = [];
let agent: Agent = () => null;

/** A reply in phrases: every phrase but the last sent `last: false`, a short gap between them (a caller answering early would land in it). */
const reply = (...phrases: string[]): Frame[] => phrases.map((token, i) => ({ type: 'text', token, last: i === phrases.length - 1 }));

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(404).end());
  wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = `${base}${req.url}`;
    const signatureValid = verifyTwilioSignature({
      authToken: AUTH_TOKEN,
      signature: req.headers['x-twilio-signature'] as string | undefined,
      url,
      params: {},
    });
    if (!signatureValid) {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, { url, signatureValid, frames: [], duringReply: [], closedBy: null }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const c of wss.clients) c.terminate();
  await new Promise((r) => server.close(r));
});

function serve(ws: WebSocket, socket: Socket) {
  sockets.push(socket);
  let replying = false;
  ws.on('close', (code) => (socket.closedBy = code));
  ws.on('message', async (raw) => {
    const frame = JSON.parse(String(raw)) as Record<string, unknown>;
    socket.frames.push(frame);
    if (replying && frame.type !== 'interrupt') socket.duringReply.push(frame);
    const plan = agent(frame, socket);
    if (plan === 'close') return ws.close(1011, 'runtime crashed');
    if (!plan) return;
    replying = true;
    for (const frames of plan) {
      for (const f of frames) {
        ws.send(JSON.stringify(f));
        if (f.type === 'text' && !f.last) await new Promise((r) => setTimeout(r, 30));
      }
    }
    replying = false;
  });
}

/** A correct agent: asks each item in turn, honours an opt-out, then ends the call with `end`. */
function politeAgent(): Agent {
  let asked = 0;
  return (frame) => {
    if (frame.type !== 'prompt' || frame.last === false) return null;
    if (frame.voicePrompt === LINES.optOut)
      return [reply('Understood, ', 'you will not be called again.'), [{ type: 'end', handoffData: JSON.stringify({ reason: 'opt_out' }) }]];
    const item = ITEMS[asked++];
    if (item) return [reply('Thanks. ', item.prompt)];
    return [reply('Thank you, ', 'goodbye.'), [{ type: 'end', handoffData: JSON.stringify({ reason: 'end_call' }) }]];
  };
}

const target = (over: Partial<RelayTarget> = {}): RelayTarget => ({
  url: `${base}/runtime/v1/relay?token=tok.en.value`,
  parameters: { token: 'tok.en.value' },
  action: 'https://api.example.test/carrier/twilio/relay-action?call_id=cal_1',
  welcomeGreeting: 'This call is from Acme Solar.',
  ...over,
});
const lastSocket = () => sockets.at(-1)!;
const texts = (lines: TranscriptLine[]) => lines.map((l) => `${l.speaker}: ${l.text}${l.interrupted ? ' …' : ''}`);

describe('a relay session as Twilio plays it', () => {
  it('signs the upgrade over the exact URL, sends setup first, speaks only after each reply ends, and returns the handoff on end', async () => {
    agent = politeAgent();
    const heard: TranscriptLine[] = [];
    const session = await playRelaySession({
      target: target(),
      authToken: AUTH_TOKEN,
      leg: LEG,
      source: source('goal'),
      onLine: (l) => heard.push(l),
      replyTimeoutMs: 5_000,
    });

    const s = lastSocket();
    expect(s.signatureValid).toBe(true);
    expect(s.url).toBe(`${base}/runtime/v1/relay?token=tok.en.value`);
    expect(s.frames[0]).toEqual({
      type: 'setup',
      sessionId: session.sessionId,
      callSid: LEG.callSid,
      accountSid: LEG.accountSid,
      from: LEG.from,
      to: LEG.to,
      direction: 'outbound-api',
      callStatus: 'in-progress',
      customParameters: { token: 'tok.en.value' },
    });
    expect(session.sessionId).toMatch(/^VX[0-9a-f]{32}$/);
    expect(s.frames.slice(1)).toEqual([
      { type: 'prompt', voicePrompt: 'Hello?', lang: 'en-US', last: true },
      { type: 'prompt', voicePrompt: 'Sandbox answer to roof_age', lang: 'en-US', last: true },
      { type: 'prompt', voicePrompt: 'very', lang: 'en-US', last: true },
    ]);
    expect(s.duringReply).toEqual([]);
    expect(session.ending).toEqual({ how: 'end', handoffData: '{"reason":"end_call"}' });
    expect(texts(heard)).toEqual([
      'agent: This call is from Acme Solar.',
      'contact: Hello?',
      'agent: Thanks. How old is your roof?',
      'contact: Sandbox answer to roof_age',
      'agent: Thanks. How satisfied are you?',
      'contact: very',
      'agent: Thank you, goodbye.',
    ]);
    expect(session.transcript).toEqual(heard);
    await waitFor(() => s.closedBy !== null, { message: 'the socket closed after end' });
  });

  it('interrupts the first reply after its opening line with what it heard of it, then barges in answering it', async () => {
    agent = politeAgent();
    const session = await playRelaySession({ target: target(), authToken: AUTH_TOKEN, leg: LEG, source: source('interrupts'), replyTimeoutMs: 5_000 });
    const frames = lastSocket().frames;
    const i = frames.findIndex((f) => f.type === 'interrupt');
    // The first phrase received was "Thanks. " : one word, all of it heard.
    expect(frames[i]).toEqual({ type: 'interrupt', utteranceUntilInterrupt: 'Thanks.', durationUntilInterruptMs: 600 });
    expect(frames[i - 1]).toMatchObject({ type: 'prompt', voicePrompt: 'Hello?' });
    // It barges in answering what it heard (no item starts with it).
    expect(frames[i + 1]).toMatchObject({ type: 'prompt', voicePrompt: 'Sandbox answer' });
    expect(frames.filter((f) => f.type === 'interrupt')).toHaveLength(1);
    expect(session.transcript.find((l) => l.interrupted)).toMatchObject({ speaker: 'agent', text: 'Thanks.' });
  });

  it('sends a partial prompt before the final one when asked to', async () => {
    agent = politeAgent();
    const session = await playRelaySession({
      target: target(),
      authToken: AUTH_TOKEN,
      leg: LEG,
      source: source('do_not_call'),
      partialPrompts: true,
      replyTimeoutMs: 5_000,
    });
    expect(lastSocket().frames.slice(1)).toEqual([
      { type: 'prompt', voicePrompt: "Please don't call", lang: 'en-US', last: false },
      { type: 'prompt', voicePrompt: LINES.optOut, lang: 'en-US', last: true },
    ]);
    expect(session.ending).toEqual({ how: 'end', handoffData: '{"reason":"opt_out"}' });
  });

  it('presses a key when a talking contact hears "press 1"', async () => {
    agent = (frame) => {
      if (frame.type === 'dtmf') return [reply('Thank you, ', 'goodbye.'), [{ type: 'end' }]];
      if (frame.type === 'prompt' && frame.last !== false) return [reply('To confirm your details, ', 'press 1.')];
      return null;
    };
    const session = await playRelaySession({ target: target(), authToken: AUTH_TOKEN, leg: LEG, source: source('goal'), replyTimeoutMs: 5_000 });
    expect(lastSocket().frames.slice(1)).toEqual([
      { type: 'prompt', voicePrompt: 'Hello?', lang: 'en-US', last: true },
      { type: 'dtmf', digit: '1' },
    ]);
    expect(session.ending).toEqual({ how: 'end', handoffData: null });
    expect(session.transcript.find((l) => l.keys)).toMatchObject({ speaker: 'contact', text: '1' });
  });

  it('a contact that hangs up says its last line and closes the socket; nothing is posted to the action', async () => {
    agent = politeAgent();
    const posted: Record<string, string>[] = [];
    const call = await playRelayCall({
      target: target(),
      authToken: AUTH_TOKEN,
      leg: LEG,
      source: source('first_only'),
      replyTimeoutMs: 5_000,
      followAction: async (_url, params) => (posted.push(params), { path: [], relay: null }),
    });
    expect(call.sessions.map((s) => s.ending)).toEqual([{ how: 'hung_up', reason: 'script' }]);
    expect(lastSocket().frames.at(-1)).toEqual({ type: 'prompt', voicePrompt: LINES.mustGo, lang: 'en-US', last: true });
    await waitFor(() => lastSocket().closedBy === 1000, { message: 'the caller closed the socket' });
    expect(posted).toEqual([]);
  });

  it('an agent that never answers: the contact gives up within the deadline and hangs up', async () => {
    agent = () => null;
    const session = await playRelaySession({ target: target(), authToken: AUTH_TOKEN, leg: LEG, source: source('goal'), replyTimeoutMs: 200 });
    expect(session.ending).toEqual({ how: 'hung_up', reason: 'agent_silent' });
  });

  it('an upgrade signed with another auth token is refused: the session is dropped with the HTTP status', async () => {
    const before = sockets.length;
    const session = await playRelaySession({ target: target(), authToken: 'another-token', leg: LEG, source: source('goal'), replyTimeoutMs: 5_000 });
    expect(session.ending).toEqual({ how: 'dropped', code: 1006, status: 403 });
    expect(sockets.length).toBe(before);
  });
});

describe('the <Connect action> after a session', () => {
  it('end → posts SessionStatus ended with the HandoffData, and follows the TwiML answered', async () => {
    agent = politeAgent();
    const posted: { url: string; params: Record<string, string> }[] = [];
    const call = await playRelayCall({
      target: target(),
      authToken: AUTH_TOKEN,
      leg: LEG,
      source: source('do_not_call'),
      replyTimeoutMs: 5_000,
      followAction: async (url, params) => {
        posted.push({ url, params });
        return { path: [{ verb: 'Say', text: 'Goodbye.' }, { verb: 'Hangup' }], relay: null };
      },
    });
    expect(posted).toEqual([
      {
        url: target().action,
        params: {
          AccountSid: LEG.accountSid,
          CallSid: LEG.callSid,
          SessionId: call.sessions[0]!.sessionId,
          SessionDuration: expect.stringMatching(/^\d+$/),
          SessionStatus: 'ended',
          HandoffData: '{"reason":"opt_out"}',
        },
      },
    ]);
    expect(call.path).toEqual([{ verb: 'Say', text: 'Goodbye.' }, { verb: 'Hangup' }]);
    expect(texts(call.transcript)).toEqual([
      'agent: This call is from Acme Solar.',
      `contact: ${LINES.optOut}`,
      'agent: Understood, you will not be called again.',
    ]);
  });

  it('a runtime that closes the socket without end → ErrorCode 64105; the reconnect the TwiML answers plays on, without repeating the opening line', async () => {
    let sessions = 0;
    agent = (frame, socket) => {
      if (frame.type === 'setup') sessions++;
      if (frame.type !== 'prompt') return null;
      if (sessions === 1) return socket.frames.filter((f) => f.type === 'prompt').length === 2 ? 'close' : [reply('Thanks. ', 'How old is your roof?')];
      return frame.voicePrompt === 'very'
        ? [reply('Thank you, ', 'goodbye.'), [{ type: 'end', handoffData: '{"reason":"end_call"}' }]]
        : [reply('As I was saying, ', 'How satisfied are you?')];
    };
    const posted: Record<string, string>[] = [];
    const call = await playRelayCall({
      target: target(),
      authToken: AUTH_TOKEN,
      leg: LEG,
      source: source('goal'),
      replyTimeoutMs: 5_000,
      silenceMs: 100,
      followAction: async (_url, params) => {
        posted.push(params);
        return {
          path: [{ verb: 'Connect', stream_url: target().url, parameters: ['token'] }],
          relay: posted.length === 1 ? target({ welcomeGreeting: 'Sorry, I lost you for a moment.' }) : null,
        };
      },
    });
    expect(call.sessions.map((s) => s.ending.how)).toEqual(['dropped', 'end']);
    expect(posted[0]).toMatchObject({ SessionStatus: 'failed', ErrorCode: '64105', ErrorMessage: RELAY_SOCKET_ERROR.message });
    expect(posted[1]).toMatchObject({ SessionStatus: 'ended', HandoffData: '{"reason":"end_call"}' });
    expect(new Set(call.sessions.map((s) => s.sessionId)).size).toBe(2);
    const contact = call.transcript.filter((l) => l.speaker === 'contact').map((l) => l.text);
    // Session 1: hello, the roof answer (then the socket dies). Session 2: silence → "Okay.", then the last question.
    expect(contact).toEqual(['Hello?', 'Sandbox answer to roof_age', 'Okay.', 'very']);
  });

  it('reconnects at most maxSessions times, whatever the TwiML answers', async () => {
    agent = (frame) => (frame.type === 'setup' ? 'close' : null);
    let posts = 0;
    const call = await playRelayCall({
      target: target(),
      authToken: AUTH_TOKEN,
      leg: LEG,
      source: source('goal'),
      replyTimeoutMs: 5_000,
      maxSessions: 3,
      followAction: async () => (posts++, { path: [], relay: target() }),
    });
    expect(call.sessions).toHaveLength(3);
    expect(posts).toBe(3);
  });
});

describe('which relays the sandbox plays', () => {
  it('our relay path, ws or wss; not a Stream, not someone else', () => {
    expect(isOurRelay('wss://api.example.test/runtime/v1/relay?token=abc')).toBe(true);
    expect(isOurRelay('ws://127.0.0.1:3000/runtime/v1/relay')).toBe(true);
    expect(isOurRelay('wss://api.example.test/runtime/v1/stream')).toBe(false);
    expect(isOurRelay('https://api.example.test/runtime/v1/relay')).toBe(false);
    expect(isOurRelay('wss://elsewhere.example/ai')).toBe(false);
    expect(isOurRelay('not a url')).toBe(false);
    expect(isOurRelay(null)).toBe(false);
  });

  it('reads the relay, its action and greeting from the followed TwiML', () => {
    const stream = {
      url: 'wss://api.example.test/runtime/v1/relay?token=t',
      parameters: { token: 't' },
      action: 'https://api.example.test/carrier/twilio/relay-action?x=1',
      welcomeGreeting: 'Hello.',
    };
    expect(relayTargetOf({ outcome: 'streaming', stream })).toEqual(stream);
    expect(relayTargetOf({ outcome: 'streaming', stream: { url: 'wss://api.example.test/runtime/v1/stream', parameters: {} } })).toBeNull();
    expect(relayTargetOf({ outcome: 'completed', stream: null })).toBeNull();
  });

  it('relayActionParams: a contact who hung up reports completed', () => {
    expect(relayActionParams(LEG, { sessionId: 'VX1', ending: { how: 'hung_up', reason: 'script' }, durationSeconds: 3 })).toEqual({
      AccountSid: LEG.accountSid,
      CallSid: LEG.callSid,
      SessionId: 'VX1',
      SessionDuration: '3',
      SessionStatus: 'completed',
    });
  });

  it('formats a transcript line for the terminal: time, speaker, text; interrupted and key presses marked', () => {
    expect(formatTranscriptLine({ speaker: 'agent', text: 'How old is your roof?', at: '2026-11-26T14:03:07.412Z' })).toBe(
      '14:03:07.412  agent    How old is your roof?',
    );
    expect(formatTranscriptLine({ speaker: 'agent', text: 'How old', at: '2026-11-26T14:03:07.412Z', interrupted: true })).toBe(
      '14:03:07.412  agent    How old …',
    );
    expect(formatTranscriptLine({ speaker: 'contact', text: '1', at: '2026-11-26T14:03:08.000Z', keys: true })).toBe('14:03:08.000  contact  [pressed 1]');
  });
});
