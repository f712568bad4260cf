/**
 * The sandbox carrier's outbound SMS (Twilio's Message resource). Like a call, a message
 * carries its delivery timeline and how far it has been played; each step is applied once
 * (conditional on `step`), so a redelivered timeline message never posts twice.
 */
import { randomBytes } from 'node:crypto';
import { countSegments } from '../messages/segments.js';
import { claimSandboxMessageStep, deleteSandboxMessageItem, putSandboxMessageItem, readSandboxMessage } from '../repositories/sandbox-messages.js';
import { twilioDate } from './numbers.js';
import { scenarioFor } from './scenarios.js';
import { type MessageStep, messageTimeline } from './timeline.js';

export type SandboxMessageStatus = 'queued' | MessageStep['status'];

export interface SandboxMessage {
  sid: string;
  account_sid: string;
  to: string;
  from: string;
  body: string;
  status_callback: string | null;
  status: SandboxMessageStatus;
  error_code: number | null;
  error_message: string | null;
  plan: (MessageStep & { due_at: number })[];
  step: number;
  date_sent: string | null;
  created_at: string;
  updated_at: string;
}

export const newMessageSid = () => `SM${randomBytes(16).toString('hex')}`;
const SID_PATTERN = /^SM[0-9a-f]{32}$/;

/** A new message, queued, its delivery planned from the number it goes to. */
export function planSandboxMessage(
  input: { accountSid: string; to: string; from: string; body: string; statusCallback: string | null },
  now: Date,
  stepMs: number,
): SandboxMessage {
  const created = now.toISOString();
  return {
    sid: newMessageSid(),
    account_sid: input.accountSid,
    to: input.to,
    from: input.from,
    body: input.body,
    status_callback: input.statusCallback,
    status: 'queued',
    error_code: null,
    error_message: null,
    plan: messageTimeline(scenarioFor(input.to)).map((s) => ({ ...s, due_at: now.getTime() + s.at * stepMs })),
    step: 0,
    date_sent: null,
    created_at: created,
    updated_at: created,
  };
}

export const putSandboxMessage = (message: SandboxMessage): Promise<void> => putSandboxMessageItem(message);

export const deleteSandboxMessage = (sid: string): Promise<void> => deleteSandboxMessageItem(sid);

export async function getSandboxMessage(sid: string, accountSid?: string): Promise<SandboxMessage | undefined> {
  if (!SID_PATTERN.test(sid)) return undefined;
  const message = await readSandboxMessage<SandboxMessage>(sid);
  return message && (accountSid === undefined || message.account_sid === accountSid) ? message : undefined;
}

/** Applies plan step `message.step` unless it was already applied; the message as it now is, or undefined. */
export function claimMessageStep(message: SandboxMessage, now: string): Promise<SandboxMessage | undefined> {
  const step = message.plan[message.step]!;
  return claimSandboxMessageStep<SandboxMessage>(
    message.sid,
    message.step,
    { status: step.status, error_code: step.errorCode ?? null, error_message: step.errorMessage ?? null, date_sent: step.status === 'failed' ? null : now },
    now,
  );
}

/** Twilio's JSON shape of a Message. */
export const presentSandboxMessage = (m: SandboxMessage) => ({
  sid: m.sid,
  account_sid: m.account_sid,
  to: m.to,
  from: m.from,
  body: m.body,
  status: m.status,
  direction: 'outbound-api',
  num_segments: String(countSegments(m.body).segments),
  num_media: '0',
  error_code: m.error_code,
  error_message: m.error_message,
  price: null,
  price_unit: 'USD',
  messaging_service_sid: null,
  api_version: '2010-04-01',
  date_created: twilioDate(m.created_at),
  date_updated: twilioDate(m.updated_at),
  date_sent: m.date_sent ? twilioDate(m.date_sent) : null,
  uri: `/2010-04-01/Accounts/${m.account_sid}/Messages/${m.sid}.json`,
});
