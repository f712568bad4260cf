/**
 * What an answered outbound call hears (pure; the route gathers the inputs):
 *   a person (or no machine detection) → <Connect><ConversationRelay> to the voice runtime
 *     with the signed token, as inbound agent calls (shared/telephony/inbound-answer.ts
 *     relayToAgent)
 *   a machine (AnsweredBy machine_*) → the pinned version's voicemail drop between an opener
 *     and a closing composed from its disclosure_config, then <Hangup>
 *   anything else (unknown call, a call that already ended) → a polite <Hangup>
 */
import type { AgentVersion } from '../schemas/agents.js';
import { hangup, say, twiml } from './twiml.js';

export const OUTBOUND_GOODBYE = 'Sorry, we cannot continue this call. Goodbye.';

/** A polite end, for a call we do not know or that is over. */
export const politeHangup = (): string => twiml(say(OUTBOUND_GOODBYE), hangup());

/** Reads "+14155550100" digit by digit, so a text-to-speech engine does not say "fourteen billion". */
export const spokenNumber = (e164: string): string =>
  e164
    .replace(/^\+1(?=\d{10}$)/, '')
    .replace(/\D/g, '')
    .split('')
    .join(' ');

export interface VoicemailParts {
  opener: string;
  body: string | null;
  closing: string;
  language: string;
}

/**
 * The voicemail drop: opener (names the calling business, says it is an automated message —
 * the disclosure a recorded message owes), the version's body in its default language (else
 * its first), the closing (call-back number and business again, how to stop the calls).
 * A version without a voicemail_drop leaves the opener and a closing without a number.
 */
export function voicemailParts(definition: Pick<AgentVersion['definition'], 'disclosure_config' | 'voicemail_drop' | 'conversation_settings'>): VoicemailParts {
  const raw = definition.disclosure_config.business_name;
  const business = typeof raw === 'string' && raw.trim() ? raw.trim() : 'the business that called';
  const language = definition.conversation_settings?.default_language ?? 'en-US';
  const drop = definition.voicemail_drop;
  const body = drop ? (drop.body[language] ?? Object.values(drop.body)[0] ?? null) : null;
  const opener = `Hello, this is an automated message from ${business}.`;
  const closing = drop
    ? `Please call ${business} back at ${spokenNumber(drop.callback_number)}. If you would rather not receive these calls, tell us when you call back and we will stop. Goodbye.`
    : `We will try to reach you another time. If you would rather not receive these calls, let ${business} know and we will stop. Goodbye.`;
  return { opener, body, closing, language };
}

export function voicemailTwiml(parts: VoicemailParts): string {
  const opts = { language: parts.language };
  return twiml(say(parts.opener, opts), ...(parts.body ? [say(parts.body, opts)] : []), say(parts.closing, opts), hangup());
}
