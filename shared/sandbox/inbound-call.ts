/**
 * An inbound call through the sandbox carrier, played as Twilio plays one: the caller dials
 * a sandbox number; the carrier posts the signed voice webhook to the number's voice_url,
 * runs the TwiML it gets back verb by verb (a Gather takes the caller's next key press and
 * posts it to its action; a Dial is answered by the rep unless told otherwise; a Redirect
 * fetches the next document), and posts the signed final status to the status callback.
 * Returns the path the call took. This is `npm run admin -- sandbox call`.
 */
import { randomBytes } from 'node:crypto';
import { open } from '../crypto/secret-box.js';
import { twilioSignature, type TwilioParams } from '../telephony/twilio-signature.js';
import { getSandboxAccount } from './accounts.js';
import { getSandboxNumber } from './numbers.js';
import { readTwiml, type Verb } from './twiml-reader.js';

export interface InboundCallInput {
  to: string;
  from: string;
  /** Keys the caller presses, one per Gather, in order. */
  digits?: readonly string[];
  /** Whether humans a Dial rings pick up (default true). */
  repsAnswer?: boolean;
}

export type PathStep =
  | { verb: 'Say'; text: string }
  | { verb: 'Play'; url: string }
  | { verb: 'Pause'; seconds: number }
  | { verb: 'Gather'; prompt: string[]; pressed: string | null }
  | { verb: 'Dial'; numbers: number; answered: boolean }
  | { verb: 'Connect'; stream_url: string | null; parameters: string[] }
  | { verb: 'Record'; recording_url: string }
  | { verb: 'Redirect'; url: string }
  | { verb: 'Hangup' }
  | { verb: 'Reject'; reason: string }
  | { verb: 'unknown'; name: string }
  | { verb: 'webhook_failed'; url: string; status: number };

export interface InboundCallResult {
  call_sid: string;
  to: string;
  from: string;
  outcome: 'completed' | 'rejected' | 'not_in_service' | 'webhook_failed';
  path: PathStep[];
}

/** Bounds a TwiML loop (a Redirect to itself, a menu pressed forever). */
const MAX_DOCUMENTS = 50;

export async function playInboundCall(input: InboundCallInput): Promise<InboundCallResult> {
  const callSid = `CA${randomBytes(16).toString('hex')}`;
  const result: InboundCallResult = { call_sid: callSid, to: input.to, from: input.from, outcome: 'completed', path: [] };
  const number = await getSandboxNumber(input.to);
  const account = number && (await getSandboxAccount(number.account_sid));
  if (!number || !account || !number.voice_url) return { ...result, outcome: 'not_in_service' };
  const authToken = await open(account.auth_token_sealed, { purpose: 'sandbox_auth_token', account_sid: account.sid });
  const base: Record<string, string> = { AccountSid: account.sid, ApiVersion: '2010-04-01', CallSid: callSid, Direction: 'inbound', From: input.from, Caller: input.from, To: input.to, Called: input.to };
  const post = async (url: string, params: Record<string, string>) => {
    const body: TwilioParams = { ...base, ...params };
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(authToken, url, body), 'i-twilio-idempotency-token': randomBytes(8).toString('hex') },
      body: new URLSearchParams(body as Record<string, string>).toString(),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, text: await res.text() };
  };

  const digits = [...(input.digits ?? [])];
  const started = Date.now();
  let next: { url: string; params: Record<string, string> } | null = { url: number.voice_url, params: { CallStatus: 'ringing' } };
  for (let documents = 0; next && documents < MAX_DOCUMENTS; documents++) {
    const res = await post(next.url, next.params);
    if (res.status !== 200) {
      result.path.push({ verb: 'webhook_failed', url: next.url, status: res.status });
      result.outcome = 'webhook_failed';
      break;
    }
    next = null;
    for (const verb of readTwiml(res.text)) {
      const step = run(verb, digits, input.repsAnswer ?? true, callSid);
      result.path.push(step.path);
      if (step.then === 'stop') {
        if (verb.verb === 'Reject') result.outcome = 'rejected';
        break;
      }
      if (step.then) {
        next = step.then;
        break;
      }
    }
  }
  if (number.status_callback && result.outcome !== 'not_in_service') {
    const duration = String(Math.max(1, Math.round((Date.now() - started) / 1000)));
    const final = result.outcome === 'rejected' ? { CallStatus: 'busy', CallDuration: '0' } : { CallStatus: 'completed', CallDuration: duration };
    await post(number.status_callback, final);
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
      if (verb.action && (pressed !== null || verb.actionOnEmptyResult)) return { path, then: { url: verb.action, params: { CallStatus: 'in-progress', Digits: pressed ?? '' } } };
      return { path };
    }
    case 'Dial': {
      const path: PathStep = { verb: 'Dial', numbers: verb.numbers.length, answered: repsAnswer };
      if (verb.action) return { path, then: { url: verb.action, params: { CallStatus: 'in-progress', DialCallStatus: repsAnswer ? 'completed' : 'no-answer', DialCallDuration: repsAnswer ? '30' : '0' } } };
      return { path, then: repsAnswer ? 'stop' : undefined };
    }
    case 'Connect':
      // The voice runtime takes the call from here (parameter values are capabilities: names only).
      return { path: { verb: 'Connect', stream_url: verb.streamUrl, parameters: Object.keys(verb.parameters) }, then: 'stop' };
    case 'Record': {
      const recording = `https://sandbox.invalid/recordings/RE${callSid.slice(2)}`;
      const path: PathStep = { verb: 'Record', recording_url: recording };
      if (verb.action) return { path, then: { url: verb.action, params: { CallStatus: 'in-progress', RecordingUrl: recording, RecordingDuration: '12', RecordingSid: `RE${callSid.slice(2)}` } } };
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
