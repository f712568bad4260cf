/**
 * An inbound text through the sandbox carrier, sent as Twilio sends one: someone texts a
 * sandbox number; the carrier posts the signed messaging webhook (Twilio's parameter
 * names) to the number's SmsUrl and reads the TwiML answer, whose <Message> verbs are the
 * texts it would send back. Returns what the platform answered. This is
 * `npm run admin -- sandbox sms`.
 */
import { randomBytes } from 'node:crypto';
import { countSegments } from '../messages/segments.js';
import { getSandboxAccount, openSandboxAuthToken } from './accounts.js';
import { getSandboxNumber } from './numbers.js';
import { signedCarrierRequest } from './verb-runner.js';
import { isElement, readXml, textOf } from './xml-reader.js';

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

/** The <Message> texts of a TwiML document (a message's <Body> when it has one; none when it is not TwiML). */
export function repliesOf(document: string): string[] {
  try {
    const response = readXml(document).find((e) => e.name === 'Response');
    return (response?.children ?? [])
      .filter(isElement)
      .filter((e) => e.name === 'Message')
      .map((m) => {
        const body = m.children.filter(isElement).find((e) => e.name === 'Body');
        return body ? textOf(body) : m.children.filter((c) => !isElement(c)).join('');
      });
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
