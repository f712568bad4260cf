/**
 * The sandbox carrier's outbound SMS (Twilio's Message resource). Like a call, a message
 * carries its delivery timeline and how far it has been played; each step is applied once
 * (conditional on `step`), so a redelivered timeline message never posts twice.
 */
import { randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { platformKeys } from '../db/keys.js';
import { countSegments } from '../messages/segments.js';
import { twilioDate } from './numbers.js';
import { scenarioFor } from './scenarios.js';
import { messageTimeline, type MessageStep } from './timeline.js';

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
export function planSandboxMessage(input: { accountSid: string; to: string; from: string; body: string; statusCallback: string | null }, now: Date, stepMs: number): SandboxMessage {
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

export async function putSandboxMessage(message: SandboxMessage): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...platformKeys.sandboxMessage(message.sid), type: 'sandbox_message', ...message }, ConditionExpression: 'attribute_not_exists(pk)' }));
}

export async function deleteSandboxMessage(sid: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: platformKeys.sandboxMessage(sid) }));
}

const strip = (item: Record<string, unknown> | undefined): SandboxMessage | undefined => {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, type: _t, ...message } = item;
  return message as unknown as SandboxMessage;
};

export async function getSandboxMessage(sid: string, accountSid?: string): Promise<SandboxMessage | undefined> {
  if (!SID_PATTERN.test(sid)) return undefined;
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.sandboxMessage(sid), ConsistentRead: true }));
  const message = strip(out.Item);
  return message && (accountSid === undefined || message.account_sid === accountSid) ? message : undefined;
}

/** Applies plan step `message.step` unless it was already applied; the message as it now is, or undefined. */
export async function claimMessageStep(message: SandboxMessage, now: string): Promise<SandboxMessage | undefined> {
  const step = message.plan[message.step]!;
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: platformKeys.sandboxMessage(message.sid),
        UpdateExpression: 'SET #step = :next, #status = :status, error_code = :code, error_message = :msg, date_sent = if_not_exists(date_sent, :sent), updated_at = :now',
        ConditionExpression: '#step = :step',
        ExpressionAttributeNames: { '#step': 'step', '#status': 'status' },
        ExpressionAttributeValues: { ':step': message.step, ':next': message.step + 1, ':status': step.status, ':code': step.errorCode ?? null, ':msg': step.errorMessage ?? null, ':sent': step.status === 'failed' ? null : now, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return strip(out.Attributes);
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return undefined;
    throw err;
  }
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
