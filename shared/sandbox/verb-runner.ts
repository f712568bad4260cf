/**
 * How the sandbox carrier follows TwiML, for inbound and outbound calls alike: fetch a
 * document (signed, as Twilio signs), run its verbs in order — a Gather takes the callee's
 * next key press and posts it to its action; a Dial is answered unless told otherwise; a
 * Redirect fetches the next document; Connect (ConversationRelay or Stream) hands the call
 * to the voice runtime — and
 * report the path taken.
 */
import { randomBytes } from 'node:crypto';
import { type TwilioParams, twilioSignature } from '../telephony/twilio-signature.js';
import { readTwiml, TwimlUnreadable, type Verb } from './twiml-reader.js';

export type PathStep =
  | { verb: 'Say'; text: string }
  | { verb: 'Play'; url: string }
  | { verb: 'Pause'; seconds: number }
  | { verb: 'Gather'; prompt: string[]; pressed: string | null }
  | { verb: 'Dial'; numbers: number; answered: boolean }
  | { verb: 'Connect'; stream_url: string | null; relay_url?: string; parameters: string[] }
  | { verb: 'Record'; recording_url: string }
  | { verb: 'Redirect'; url: string }
  | { verb: 'Hangup' }
  | { verb: 'Reject'; reason: string }
  | { verb: 'unknown'; name: string }
  | { verb: 'webhook_failed'; url: string; status: number }
  | { verb: 'twiml_unreadable'; url: string };

export interface CarrierRequest {
  url: string;
  params: Record<string, string>;
  method?: string;
}

export interface CarrierResponse {
  status: number;
  text: string;
}

/**
 * A request as Twilio makes it: POST a form (or GET with the parameters in the query),
 * signed with the account's auth token over the URL it requests and the POST parameters.
 */
export async function signedCarrierRequest(authToken: string, req: CarrierRequest): Promise<CarrierResponse> {
  const get = req.method === 'GET';
  const url = get ? withQuery(req.url, req.params) : req.url;
  const signed: TwilioParams = get ? {} : req.params;
  const res = await fetch(url, {
    method: get ? 'GET' : 'POST',
    headers: {
      'x-twilio-signature': twilioSignature(authToken, url, signed),
      'i-twilio-idempotency-token': randomBytes(8).toString('hex'),
      ...(get ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
    },
    ...(get ? {} : { body: new URLSearchParams(req.params).toString() }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, text: await res.text() };
}

const withoutQuery = (url: string) => url.split('?')[0]!;

const withQuery = (url: string, params: Record<string, string>) => {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.append(k, v);
  return u.toString();
};

export interface FollowInput {
  first: CarrierRequest;
  /** Sends one request (signed by the caller's account); the runner adds nothing to it. */
  request: (req: CarrierRequest) => Promise<CarrierResponse>;
  /** Keys the callee presses, one per Gather, in order. */
  digits?: readonly string[];
  /** Whether the humans a Dial rings pick up (default true). */
  repsAnswer?: boolean;
  callSid: string;
}

export interface FollowResult {
  outcome: 'completed' | 'rejected' | 'streaming' | 'webhook_failed';
  path: PathStep[];
  /**
   * Where the call was handed to (a ConversationRelay or a Stream URL), with its parameter
   * values (the runtime needs them; the path lists names only) and the relay's action URL.
   */
  stream: { url: string | null; parameters: Record<string, string>; action?: string | null } | null;
}

/** Bounds a TwiML loop (a Redirect to itself, a menu pressed forever). */
const MAX_DOCUMENTS = 50;

export async function followTwiml(input: FollowInput): Promise<FollowResult> {
  const result: FollowResult = { outcome: 'completed', path: [], stream: null };
  const digits = [...(input.digits ?? [])];
  let next: CarrierRequest | null = input.first;
  for (let documents = 0; next && documents < MAX_DOCUMENTS; documents++) {
    const current: CarrierRequest = next;
    const res = await input.request(current);
    if (res.status !== 200) {
      result.path.push({ verb: 'webhook_failed', url: current.url, status: res.status });
      return { ...result, outcome: 'webhook_failed' };
    }
    let verbs: Verb[];
    try {
      verbs = readTwiml(res.text);
    } catch (err) {
      if (!(err instanceof TwimlUnreadable)) throw err;
      result.path.push({ verb: 'twiml_unreadable', url: current.url });
      return { ...result, outcome: 'webhook_failed' };
    }
    next = null;
    for (const verb of verbs) {
      const step = run(verb, digits, input.repsAnswer ?? true, input.callSid);
      result.path.push(step.path);
      if (verb.verb === 'Connect')
        result.stream = { url: verb.relayUrl ?? verb.streamUrl, parameters: verb.parameters, ...(verb.relayUrl ? { action: verb.action } : {}) };
      if (step.then === 'stop') {
        if (verb.verb === 'Reject') result.outcome = 'rejected';
        if (verb.verb === 'Connect') result.outcome = 'streaming';
        break;
      }
      if (step.then) {
        next = { url: step.then.url, params: { ...input.first.params, ...step.then.params } };
        break;
      }
    }
  }
  return result;
}

type Run = { path: PathStep; then?: 'stop' | { url: string; params: Record<string, string> } };

function run(verb: Verb, digits: string[], repsAnswer: boolean, callSid: string): Run {
  switch (verb.verb) {
    case 'Say':
      return { path: { verb: 'Say', text: verb.text } };
    case 'Play':
      return { path: { verb: 'Play', url: verb.url } };
    case 'Pause':
      return { path: { verb: 'Pause', seconds: verb.length } };
    case 'Gather': {
      const pressed = digits.length ? digits.shift()! : null;
      const prompt = verb.children.filter((c) => c.verb === 'Say').map((c) => (c as { text: string }).text);
      const path: PathStep = { verb: 'Gather', prompt, pressed };
      // Twilio posts to the action when a key was pressed, or on silence with actionOnEmptyResult.
      if (verb.action && (pressed !== null || verb.actionOnEmptyResult))
        return { path, then: { url: verb.action, params: { CallStatus: 'in-progress', Digits: pressed ?? '' } } };
      return { path };
    }
    case 'Dial': {
      const path: PathStep = { verb: 'Dial', numbers: verb.numbers.length, answered: repsAnswer };
      if (verb.action)
        return {
          path,
          then: {
            url: verb.action,
            params: { CallStatus: 'in-progress', DialCallStatus: repsAnswer ? 'completed' : 'no-answer', DialCallDuration: repsAnswer ? '30' : '0' },
          },
        };
      return { path, then: repsAnswer ? 'stop' : undefined };
    }
    case 'Connect':
      // The voice runtime takes the call from here (parameter values are capabilities: names only
      // in the path, and the relay URL without its query, which carries the token).
      return {
        path: {
          verb: 'Connect',
          stream_url: verb.streamUrl,
          ...(verb.relayUrl ? { relay_url: withoutQuery(verb.relayUrl) } : {}),
          parameters: Object.keys(verb.parameters),
        },
        then: 'stop',
      };
    case 'Record': {
      const recording = `https://sandbox.invalid/recordings/RE${callSid.slice(2)}`;
      const path: PathStep = { verb: 'Record', recording_url: recording };
      if (verb.action)
        return {
          path,
          then: {
            url: verb.action,
            params: { CallStatus: 'in-progress', RecordingUrl: recording, RecordingDuration: '12', RecordingSid: `RE${callSid.slice(2)}` },
          },
        };
      return { path };
    }
    case 'Redirect':
      return { path: { verb: 'Redirect', url: verb.url }, then: { url: verb.url, params: { CallStatus: 'in-progress' } } };
    case 'Hangup':
      return { path: { verb: 'Hangup' }, then: 'stop' };
    case 'Reject':
      return { path: { verb: 'Reject', reason: verb.reason }, then: 'stop' };
    case 'unknown':
      return { path: { verb: 'unknown', name: verb.name } };
  }
}
