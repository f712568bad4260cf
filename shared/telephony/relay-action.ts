/**
 * What a call hears when its ConversationRelay session ends (the <Connect action> callback).
 * Pure: the handler reads the inputs (the signed state, the call, the rep's stored number,
 * the pinned version) and this decides and renders.
 *
 *   HandoffData {reason: transfer_to_human, rep_id} → <Dial> the rep's stored number (an
 *       active rep of the tenant with a transfer number, resolved server-side), then a
 *       closing and <Hangup>; no such rep → an apology and <Hangup>
 *   HandoffData end_call / opt_out / model_failed → the optional `closing`, then <Hangup>
 *   ErrorCode 64105 (the runtime's WebSocket went away mid-call) on a live call → a fresh
 *       relay for the same call, greeting with a short apology rather than the opener, at
 *       most MAX_RELAY_RECONNECTS times (the count rides in the signed action URL), then a
 *       polite hangup
 *   anything else (a session that simply ended, another error, unreadable HandoffData) →
 *       a polite hangup
 */
import { type HandoffData, handoffData } from '../voice/protocol.js';
import { OUTBOUND_GOODBYE } from './outbound-answer.js';
import { dial, hangup, say, twiml } from './twiml.js';

/** Twilio's ConversationRelay error for a WebSocket that closed or failed mid-session. */
export const RELAY_SOCKET_LOST = '64105';
export const MAX_RELAY_RECONNECTS = 2;
export const TRANSFER_RING_SECONDS = 30;
export const TRANSFER_UNAVAILABLE = "Sorry, I can't transfer you to someone right now. Please call back later. Goodbye.";
export const AFTER_TRANSFER = 'Thank you for calling. Goodbye.';

export type RelayActionDecision =
  | { kind: 'transfer'; rep_id: string }
  | { kind: 'end'; reason: 'end_call' | 'opt_out' | 'model_failed'; closing: string | null }
  | { kind: 'reconnect'; reconnects: number }
  | { kind: 'hangup'; reason: 'reconnects_exhausted' | 'call_over' | 'session_ended' | 'runtime_error' };

/** HandoffData as the runtime sent it through Twilio (a JSON string), or null when absent or not ours. */
export function parseHandoffData(raw: string | undefined): HandoffData | null {
  if (!raw) return null;
  try {
    const parsed = handoffData.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export interface RelayActionFacts {
  handoff: HandoffData | null;
  /** The callback's ErrorCode, if any. */
  errorCode: string | null;
  /** Twilio still has the caller on the line and our call record is not over. */
  callLive: boolean;
  /** Reconnects already made (from the signed action URL). */
  reconnects: number;
}

export function decideRelayAction(facts: RelayActionFacts): RelayActionDecision {
  const h = facts.handoff;
  if (h?.reason === 'transfer_to_human' && h.rep_id) return { kind: 'transfer', rep_id: h.rep_id };
  if (h && (h.reason === 'end_call' || h.reason === 'opt_out' || h.reason === 'model_failed'))
    return { kind: 'end', reason: h.reason, closing: h.closing?.trim() || null };
  if (h) return { kind: 'hangup', reason: 'runtime_error' };
  if (facts.errorCode !== RELAY_SOCKET_LOST) return { kind: 'hangup', reason: 'session_ended' };
  if (!facts.callLive) return { kind: 'hangup', reason: 'call_over' };
  if (facts.reconnects >= MAX_RELAY_RECONNECTS) return { kind: 'hangup', reason: 'reconnects_exhausted' };
  return { kind: 'reconnect', reconnects: facts.reconnects + 1 };
}

export interface RelayActionParts {
  /** The rep's stored transfer number (transfer only; null when there is no such rep). */
  transferNumber: string | null;
  /** Our number on the call, shown to the rep. */
  callerId: string;
  /** The fresh relay TwiML for a reconnect (null when it cannot be rendered: the pinned version is gone). */
  relay: string | null;
}

const goodbye = () => twiml(say(OUTBOUND_GOODBYE), hangup());

export function renderRelayAction(decision: RelayActionDecision, parts: RelayActionParts): string {
  switch (decision.kind) {
    case 'transfer':
      if (!parts.transferNumber) return twiml(say(TRANSFER_UNAVAILABLE), hangup());
      // No action URL: whether the rep answered or not, the document goes on to the closing.
      return twiml(dial({ numbers: [parts.transferNumber], timeoutSeconds: TRANSFER_RING_SECONDS, callerId: parts.callerId }), say(AFTER_TRANSFER), hangup());
    case 'end':
      return decision.closing ? twiml(say(decision.closing), hangup()) : twiml(hangup());
    case 'reconnect':
      return parts.relay ?? goodbye();
    case 'hangup':
      return goodbye();
  }
}
