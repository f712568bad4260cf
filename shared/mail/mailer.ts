/**
 * The mail adapter (see docs/decisions/auth-and-sessions.md): one port, two transports chosen by MAIL_TRANSPORT.
 *  - `ses` (AWS): Amazon SES v2 SendEmail from MAIL_FROM (a verified identity; the stack grants
 *    ses:SendEmail on it to the functions whose manifest entry says `mail: true`).
 *  - `sink` (the local runtime and tests): the mail is stored in the table under
 *    `PLATFORM#MAILSINK#<sha256(recipient)>` for a day, where `npm run admin -- mail last --to …`
 *    reads it. Nothing leaves the machine.
 * Mail bodies carry one-use tokens: never logged.
 */

import { createHash } from 'node:crypto';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { newId } from '../ids.js';
import { newestSinkMail, putSinkMail } from '../repositories/mail-sink.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface SentMail extends Mail {
  id: string;
  from: string;
  sent_at: string;
}

const SINK_TTL_SECONDS = 86_400;
const recipientHash = (to: string) => createHash('sha256').update(to.trim().toLowerCase()).digest('hex');

const mailTransport = (): 'ses' | 'sink' => (process.env.MAIL_TRANSPORT === 'ses' ? 'ses' : 'sink');
const mailFrom = (): string => process.env.MAIL_FROM || 'no-reply@voice-control.local';

let ses: SESv2Client | undefined;

export async function sendMail(mail: Mail, at: Date = new Date()): Promise<SentMail> {
  const sent: SentMail = { ...mail, id: newId('mail'), from: mailFrom(), sent_at: at.toISOString() };
  if (mailTransport() === 'ses') {
    ses ??= new SESv2Client({});
    await ses.send(
      new SendEmailCommand({
        FromEmailAddress: sent.from,
        Destination: { ToAddresses: [mail.to] },
        Content: { Simple: { Subject: { Data: mail.subject, Charset: 'UTF-8' }, Body: { Text: { Data: mail.text, Charset: 'UTF-8' } } } },
      }),
    );
    return sent;
  }
  await putSinkMail(recipientHash(mail.to), { ...sent }, Math.floor(at.getTime() / 1000) + SINK_TTL_SECONDS);
  return sent;
}

/** The newest mail the sink holds for `to` (local runtime and tests only). */
export async function lastMail(to: string): Promise<SentMail | undefined> {
  const item = await newestSinkMail(recipientHash(to));
  if (!item) return undefined;
  const { id, from, sent_at, subject, text } = item as unknown as SentMail;
  return { id, from, to: item.to as string, sent_at, subject, text };
}

/** The one-use token a mail carries (the link's fragment `#token=…`). */
export const tokenInMail = (mail: Pick<Mail, 'text'>): string | undefined => /[#?&]token=([A-Za-z0-9_.-]+)/.exec(mail.text)?.[1];
