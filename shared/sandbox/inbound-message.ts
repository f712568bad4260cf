/**
 * An inbound text through the sandbox carrier, sent as Twilio sends one: someone texts a
 * sandbox number; the carrier posts the signed messaging webhook (Twilio's parameter
 * names) to the number's SmsUrl and reads the TwiML answer, whose <Message> verbs are the
 * texts it would send back. Returns what the platform answered. This is
 * `npm run admin -- sandbox sms`.
 */
import { randomBytes } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { countSegments } from '../messages/segments.js';
import { getSandboxAccount, openSandboxAuthToken } from './accounts.js';
import { getSandboxNumber } from './numbers.js';
import { signedCarrierRequest } from './verb-runner.js';

export interface InboundMessageResult {
  message_sid: string;
  to: string;
  from: string;
  outcome: 'answered' | 'not_in_service' | 'webhook_failed';
  /** The webhook's HTTP status (absent when nothing was posted). */
  status?: number;
  /** The texts the answer asks the carrier to send back to the sender. */
  replies: string[];
}

const parser = new XMLParser({ ignoreAttributes: true, isArray: (name) => name === 'Message' });

/** The <Message> texts of a TwiML document (none when it is not TwiML). */
export function repliesOf(document: string): string[] {
  try {
    const parsed = parser.parse(document) as { Response?: { Message?: unknown[] } | string };
    const messages = typeof parsed.Response === 'object' ? (parsed.Response.Message ?? []) : [];
    return messages.map((m) =>
      typeof m === 'object' && m !== null
        ? String((m as { Body?: unknown; '#text'?: unknown }).Body ?? (m as { '#text'?: unknown })['#text'] ?? '')
        : String(m),
    );
  } catch {
    return [];
  }
}

export async function playInboundMessage(input: { to: string; from: string; body: string }): Promise<InboundMessageResult> {
  const sid = `SM${randomBytes(16).toString('hex')}`;
  const result: InboundMessageResult = { message_sid: sid, to: input.to, from: input.from, outcome: 'answered', replies: [] };
  const number = await getSandboxNumber(input.to);
  const account = number && (await getSandboxAccount(number.account_sid));
  if (!number || !account || !number.sms_url) return { ...result, outcome: 'not_in_service' };
  const params: Record<string, string> = {
    AccountSid: account.sid,
    ApiVersion: '2010-04-01',
    MessageSid: sid,
    SmsSid: sid,
    SmsMessageSid: sid,
    From: input.from,
    To: input.to,
    Body: input.body,
    NumMedia: '0',
    NumSegments: String(countSegments(input.body).segments),
    SmsStatus: 'received',
  };
  const res = await signedCarrierRequest(await openSandboxAuthToken(account), { url: number.sms_url, params });
  if (res.status >= 400) return { ...result, outcome: 'webhook_failed', status: res.status };
  return { ...result, status: res.status, replies: repliesOf(res.text) };
}

/**
 * The exchange as the contact lived it, one line each: the text they sent, then every text
 * the carrier sent back (a STOP's confirmation, HELP's text), or why nothing came back.
 * `sandbox sms` writes it to stderr; stdout keeps the one JSON result.
 */
export function smsTrace(input: { to: string; from: string; body: string }, result: InboundMessageResult): string[] {
  const sent = `${input.from} → ${input.to}: ${input.body}`;
  if (result.outcome !== 'answered')
    return [
      sent,
      result.outcome === 'not_in_service'
        ? `(no reply: ${input.to} is not a sandbox number that takes texts)`
        : `(no reply: the messaging webhook answered ${result.status})`,
    ];
  if (!result.replies.length) return [sent, '(no reply sent back)'];
  return [sent, ...result.replies.map((r) => `${input.to} → ${input.from}: ${r}`)];
}
