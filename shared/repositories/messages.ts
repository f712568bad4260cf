/**
 * Text messages: one item per message in its own partition, gathered newest
 * first in gsi1. Every status change is a conditional update on the status it was read in,
 * committed with its outbox event (message.sent / message.delivered / message.failed) in one
 * transaction; a change that lost a race is read again and re-judged, so callbacks that are
 * replayed or reordered never move a message backwards or emit twice.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { commit, conditionalTransaction, noChange } from '../db/conditional-transaction.js';
import { messageKeys, platformKeys } from '../db/keys.js';
import { type EventType, outboxItems } from '../events/outbox.js';
import { isId } from '../ids.js';
import type { FilterCondition } from '../pagination/filters.js';
import { queryPage } from '../pagination/page.js';
import { type MessageStatus, nextStatus } from '../policy/messages/status.js';
import type { MessageFailure, MessageSummary } from '../schemas/text-messages.js';
import { messageSegmentsLedgerItems } from './usage-ledger.js';

/** Statuses that mean the carrier took the text (and bills its segments). */
const CARRIER_ACCEPTED: readonly MessageStatus[] = ['sent', 'delivered'];

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface MessageRecord extends MessageSummary {
  tenant_id: string;
  telephony_account_id: string | null;
  /** Inbound: the text the platform answered with (STOP confirmation, HELP text), if any. */
  reply: string | null;
  /** Outbound, queued without a carrier SID: the instant in its sending watch's sort key (null once settled). */
  send_watch_at?: string | null;
}

const T = () => tableName();

export const presentMessage = (item: Record<string, unknown>): MessageSummary => {
  const m = item as unknown as MessageRecord;
  return {
    id: m.id,
    direction: m.direction,
    phone_number_id: m.phone_number_id ?? null,
    contact_id: m.contact_id ?? null,
    to_e164: m.to_e164,
    from_e164: m.from_e164,
    template_id: m.template_id ?? null,
    body_rendered: m.body_rendered ?? null,
    status: m.status,
    provider_sid: m.provider_sid ?? null,
    origin_call_id: m.origin_call_id ?? null,
    inbound_intent: m.inbound_intent ?? null,
    segments: m.segments,
    compliance_profile_id: m.compliance_profile_id ?? null,
    compliance: m.compliance ?? null,
    failure: m.failure ?? null,
    created_at: m.created_at,
    updated_at: m.updated_at,
  };
};

/** The event payload of a message (what a tenant's webhook receives). */
export const messageEventData = (m: MessageSummary): Record<string, unknown> => ({
  message_id: m.id,
  direction: m.direction,
  status: m.status,
  contact_id: m.contact_id,
  phone_number_id: m.phone_number_id,
  to_e164: m.to_e164,
  from_e164: m.from_e164,
  origin_call_id: m.origin_call_id,
  inbound_intent: m.inbound_intent,
  segments: m.segments,
  provider_sid: m.provider_sid,
  failure: m.failure,
});

/** The Put of a new message (only if absent). */
export const messagePut = (m: MessageRecord): TransactItem => ({
  Put: {
    TableName: T(),
    Item: { ...messageKeys.message(m.tenant_id, m.id), ...messageKeys.messageIndex(m.tenant_id, m.id), type: 'message', ...m },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** The sending watch of a message committed queued (its SID not yet known). */
export const sendWatchPut = (m: Pick<MessageRecord, 'tenant_id' | 'id'>, since: string): TransactItem => ({
  Put: {
    TableName: T(),
    Item: { ...messageKeys.sendWatch(since, m.tenant_id, m.id), type: 'message_send_watch', tenant_id: m.tenant_id, message_id: m.id, since },
  },
});
export const sendWatchDelete = (tenantId: string, messageId: string, since: string): TransactItem => ({
  Delete: { TableName: T(), Key: messageKeys.sendWatch(since, tenantId, messageId) },
});

/** A queued message whose send outcome never came → failed, only if still queued with no SID under this watch (first item: its failure means it moved on). */
export const failUnsentItem = (tenantId: string, messageId: string, since: string, failure: MessageFailure, nowIso: string): TransactItem => ({
  Update: {
    TableName: T(),
    Key: messageKeys.message(tenantId, messageId),
    UpdateExpression: 'SET #status = :failed, failure = :failure, send_watch_at = :null, updated_at = :now',
    ConditionExpression: '#status = :queued AND provider_sid = :null AND send_watch_at = :since',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':failed': 'failed', ':failure': failure, ':null': null, ':now': nowIso, ':queued': 'queued', ':since': since },
  },
});

/** True when an inbound text with this carrier SID was already stored (its platform pointer exists). */
export async function inboundTextSeen(messageSid: string): Promise<boolean> {
  const out = await db().send(new GetCommand({ TableName: T(), Key: platformKeys.carrierMessage(messageSid), ConsistentRead: true }));
  return Boolean(out.Item);
}

/** The carrier SID's pointer to the inbound message, put only if absent: a replayed webhook fails it. */
export const inboundTextPointerPut = (messageSid: string, tenantId: string, messageId: string): TransactItem => ({
  Put: {
    TableName: T(),
    Item: { ...platformKeys.carrierMessage(messageSid), type: 'carrier_message', tenant_id: tenantId, message_id: messageId },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

export async function getMessageRecord(tenantId: string, messageId: string): Promise<MessageRecord | undefined> {
  if (!isId(messageId)) return undefined;
  const out = await db().send(new GetCommand({ TableName: T(), Key: messageKeys.message(tenantId, messageId), ConsistentRead: true }));
  if (!out.Item) return undefined;
  const { pk: _pk, sk: _sk, gsi1pk: _g, gsi1sk: _s, type: _t, ...record } = out.Item;
  return record as MessageRecord;
}

export function listMessages(tenantId: string, opts: { limit: number; cursor?: string; filters: FilterCondition[] }) {
  return queryPage({
    tenantId,
    scope: 'messages',
    indexPartition: messageKeys.messagesIndexPartition(tenantId),
    skPrefix: messageKeys.messagesIndexPrefix,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    filters: opts.filters,
    map: presentMessage,
  });
}

const EVENT_OF: Partial<Record<MessageStatus, EventType>> = { sent: 'message.sent', delivered: 'message.delivered', failed: 'message.failed' };

export interface StatusReport {
  status: MessageStatus;
  provider_sid?: string;
  failure?: MessageFailure;
}

/**
 * Moves an outbound message to the reported status if the machine allows it, with its
 * event, in one conditional transaction (on the status read and on provider_sid being
 * unset or the same). Returns the message as it now is, and whether this call moved it.
 * A provider_sid alone (no status change) is linked if the message has none.
 */
export async function applyMessageStatus(
  tenantId: string,
  messageId: string,
  report: StatusReport,
  at: Date,
): Promise<{ message: MessageRecord; moved: boolean } | undefined> {
  return conditionalTransaction<{ message: MessageRecord; moved: boolean } | undefined>({
    decide: async () => {
      const current = await getMessageRecord(tenantId, messageId);
      if (!current) return noChange(undefined);
      if (report.provider_sid && current.provider_sid && current.provider_sid !== report.provider_sid) return noChange({ message: current, moved: false });
      // A send_unknown failure is our ignorance, not the carrier's verdict: its callbacks correct it (status.ts).
      // (Its SID may have been linked late by the send path itself: the callbacks that follow still correct it.)
      const sendUnknown = current.status === 'failed' && current.failure?.code === 'send_unknown';
      const to = current.direction === 'outbound' ? nextStatus(current.status, report.status, { sendUnknown }) : null;
      const linkSid = report.provider_sid !== undefined && current.provider_sid === null;
      const corrected = sendUnknown && (to !== null || (report.status === 'failed' && report.failure !== undefined));
      if (!to && !linkSid && !corrected) return noChange({ message: current, moved: false });
      const nowIso = at.toISOString();
      const next: MessageRecord = {
        ...current,
        status: to ?? current.status,
        provider_sid: current.provider_sid ?? report.provider_sid ?? null,
        failure: to === 'failed' || (corrected && report.status === 'failed') ? (report.failure ?? current.failure) : corrected ? null : current.failure,
        updated_at: nowIso,
      };
      // The sending watch goes once the SID is known or the message settled.
      const watchAt = current.send_watch_at ?? null;
      const dropWatch = watchAt !== null && (next.provider_sid !== null || next.status !== 'queued');
      const items: TransactItem[] = [
        {
          Update: {
            TableName: T(),
            Key: messageKeys.message(tenantId, messageId),
            UpdateExpression: 'SET #status = :to, provider_sid = :sid, failure = :failure, updated_at = :now, send_watch_at = :watch',
            ConditionExpression: '#status = :from AND (provider_sid = :null OR provider_sid = :sid)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':to': next.status,
              ':from': current.status,
              ':sid': next.provider_sid,
              ':failure': next.failure,
              ':now': nowIso,
              ':null': null,
              ':watch': dropWatch ? null : watchAt,
            },
          },
        },
      ];
      if (dropWatch) {
        next.send_watch_at = null;
        items.push(sendWatchDelete(tenantId, messageId, watchAt));
      }
      const type = to ? EVENT_OF[to] : undefined;
      if (type) items.push(...outboxItems(tenantId, type, messageEventData(presentMessage(next as unknown as Record<string, unknown>)), at).items);
      // The carrier accepted the text (first sent or delivered): its segments are metered with the move.
      if (to && CARRIER_ACCEPTED.includes(to) && !CARRIER_ACCEPTED.includes(current.status))
        items.push(...(await messageSegmentsLedgerItems(tenantId, current, at)));
      return commit(items, { message: next, moved: to !== null });
    },
    // Any cancellation means the message (or its sending watch) changed under us: read again.
    raced: (err) => err instanceof TransactionCanceledException,
  });
}
