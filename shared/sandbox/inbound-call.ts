/**
 * An inbound call through the sandbox carrier, played as Twilio plays one: the caller dials
 * a sandbox number; the carrier posts the signed voice webhook to the number's voice_url,
 * runs the TwiML it gets back verb by verb (a Gather takes the caller's next key press and
 * posts it to its action; a Dial is answered by the rep unless told otherwise; a Redirect
 * fetches the next document), and posts the signed final status to the status callback.
 * When the TwiML hands the call to our voice runtime's relay (<Connect><ConversationRelay>),
 * the caller talks to the real runtime over the WebSocket (shared/sandbox/relay-caller.ts,
 * its lines from shared/sandbox/caller-scripts.ts), each line reported to `onLine` as it is
 * said, and the TwiML the <Connect action> answers is followed; a <Connect><Stream> still gets
 * the scripted runtime (shared/sandbox/booking-script.ts through the runtime route). Returns
 * the path the call took (and the conversation). This is `npm run admin -- sandbox call`.
 */
import { randomBytes } from 'node:crypto';
import { getSandboxAccount, openSandboxAuthToken } from './accounts.js';
import { DEFAULT_INBOUND_SCRIPT, type InboundScript } from './booking-script.js';
import { getSandboxNumber } from './numbers.js';
import { type OnLine, type RelayRun, relayRunOf, relayTargetOf } from './relay-caller.js';
import { playRelayLeg } from './relay-contact.js';
import { playSandboxRuntime, type RuntimeRun } from './runtime.js';
import { sandboxStepMs } from './timeline.js';
import { followTwiml, type PathStep, signedCarrierRequest } from './verb-runner.js';

export type { PathStep } from './verb-runner.js';

export interface InboundCallInput {
  to: string;
  from: string;
  /** Keys the caller presses, one per Gather, in order. */
  digits?: readonly string[];
  /** Whether humans a Dial rings pick up (default true). */
  repsAnswer?: boolean;
  /** What the caller says to an agent that picks up (default `enquiry`). */
  script?: InboundScript;
  /** Each line of the conversation as it is said (agent and caller), when the call reaches the relay. */
  onLine?: OnLine;
}

export interface InboundCallResult {
  call_sid: string;
  to: string;
  from: string;
  outcome: 'completed' | 'rejected' | 'not_in_service' | 'webhook_failed';
  path: PathStep[];
  /** What the sandbox voice runtime reported, when the call reached an agent on a <Connect><Stream>. */
  runtime?: RuntimeRun;
  /** The conversation, when the call reached an agent on our relay. */
  relay?: RelayRun;
}

export async function playInboundCall(input: InboundCallInput): Promise<InboundCallResult> {
  const callSid = `CA${randomBytes(16).toString('hex')}`;
  const result: InboundCallResult = { call_sid: callSid, to: input.to, from: input.from, outcome: 'completed', path: [] };
  const number = await getSandboxNumber(input.to);
  const account = number && (await getSandboxAccount(number.account_sid));
  if (!number || !account || !number.voice_url) return { ...result, outcome: 'not_in_service' };
  const authToken = await openSandboxAuthToken(account);
  const base: Record<string, string> = {
    AccountSid: account.sid,
    ApiVersion: '2010-04-01',
    CallSid: callSid,
    Direction: 'inbound',
    From: input.from,
    Caller: input.from,
    To: input.to,
    Called: input.to,
  };
  const post = (url: string, params: Record<string, string>) => signedCarrierRequest(authToken, { url, params: { ...base, ...params } });

  const started = Date.now();
  const followed = await followTwiml({
    first: { url: number.voice_url, params: { CallStatus: 'ringing' } },
    request: (req) => post(req.url, req.params),
    digits: input.digits,
    repsAnswer: input.repsAnswer,
    callSid,
  });
  result.path = followed.path;
  result.outcome = followed.outcome === 'streaming' ? 'completed' : followed.outcome;
  // The caller talks to the agent (lines, or beats, a fifth of a timeline step apart) before hanging up.
  const relay = relayTargetOf(followed);
  if (relay) {
    const leg = { callSid, accountSid: account.sid, from: input.from, to: input.to, direction: 'inbound' as const };
    const call = await playRelayLeg({
      target: relay,
      authToken,
      leg,
      source: { kind: 'inbound', name: input.script ?? DEFAULT_INBOUND_SCRIPT },
      request: (req) => post(req.url, req.params),
      callParams: {},
      ...(input.repsAnswer !== undefined ? { repsAnswer: input.repsAnswer } : {}),
      ...(input.onLine ? { onLine: input.onLine } : {}),
      pauseMs: Math.floor(sandboxStepMs() / 5),
    });
    result.relay = relayRunOf(call);
    result.path.push(...call.path);
  } else if (followed.outcome === 'streaming')
    result.runtime = await playSandboxRuntime({
      stream: followed.stream,
      script: { kind: 'inbound', name: input.script ?? DEFAULT_INBOUND_SCRIPT },
      pauseMs: Math.floor(sandboxStepMs() / 5),
    });
  if (number.status_callback) {
    const duration = String(Math.max(1, Math.round((Date.now() - started) / 1000)));
    const final = result.outcome === 'rejected' ? { CallStatus: 'busy', CallDuration: '0' } : { CallStatus: 'completed', CallDuration: duration };
    await post(number.status_callback, final);
  }
  return result;
}
