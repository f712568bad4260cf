/**
 * The sending reconciler (docs/decisions/messaging.md; the message twin of the dispatch_unknown reconciler in
 * shared/calls/scheduler.ts), run in every scheduler tick: every sending watch older than
 * MESSAGE_SEND_UNKNOWN_AFTER_MS (default 120 s, far beyond a carrier's answer to a Messages
 * create) whose message is still `queued` with no carrier SID → `failed`, failure
 * `send_unknown`, with `message.failed` and the watch deleted — one conditional transaction
 * (still queued, still no SID, still this watch). Never re-sent: the carrier may have it. A
 * later status callback naming its SID still corrects it (carrier truth wins,
 * shared/policy/messages/status.ts). A watch whose message moved on is just deleted.
 */
import { messageKeys } from '../db/keys.js';
import { failedConditionIndex, transactWrite } from '../db/transact-write.js';
import { outboxItems } from '../events/outbox.js';
import { logger } from '../observability.js';
import { dropWatch, sweepWatches } from '../repositories/call-watches.js';
import { failUnsentItem, getMessageRecord, type MessageRecord, messageEventData, presentMessage, sendWatchDelete } from '../repositories/messages.js';
import type { MessageFailure } from '../schemas/text-messages.js';

const DEFAULT_MESSAGE_SEND_UNKNOWN_AFTER_MS = 120_000;
const messageSendUnknownAfterMs = (): number => {
  const v = Number(process.env.MESSAGE_SEND_UNKNOWN_AFTER_MS);
  return Number.isFinite(v) && v > 0 ? v : DEFAULT_MESSAGE_SEND_UNKNOWN_AFTER_MS;
};

const SEND_UNKNOWN: MessageFailure = {
  code: 'send_unknown',
  message:
    'The carrier was asked but its answer never arrived and it reported no message: it may or may not have been sent, so it was not sent again. A later carrier report corrects this status.',
  next_permitted_at: null,
  carrier_error_code: null,
};

export async function runMessageSendReconciler(at: Date, afterMs = messageSendUnknownAfterMs()): Promise<number> {
  const bound = new Date(at.getTime() - afterMs).toISOString();
  return sweepWatches(messageKeys.sendWatchPartition, bound, (watch) => failUnknown(watch, at), 'send reconciler');
}

async function failUnknown(watch: Record<string, unknown>, at: Date): Promise<boolean> {
  const tenantId = watch.tenant_id as string;
  const messageId = watch.message_id as string;
  const since = watch.since as string;
  const message = await getMessageRecord(tenantId, messageId);
  if (!message || message.status !== 'queued' || message.provider_sid !== null || message.send_watch_at !== since) {
    await dropWatch({ pk: watch.pk as string, sk: watch.sk as string });
    return false;
  }
  const nowIso = at.toISOString();
  const next: MessageRecord = { ...message, status: 'failed', failure: SEND_UNKNOWN, send_watch_at: null, updated_at: nowIso };
  try {
    await transactWrite([
      failUnsentItem(tenantId, messageId, since, SEND_UNKNOWN, nowIso),
      sendWatchDelete(tenantId, messageId, since),
      ...outboxItems(tenantId, 'message.failed', messageEventData(presentMessage(next as unknown as Record<string, unknown>)), at).items,
    ]);
  } catch (err) {
    if (failedConditionIndex(err) !== 0) throw err;
    return false; // the message moved on meanwhile (a callback linked its SID): the watch went with it
  }
  logger.warn('message send outcome unknown: failed as send_unknown', { tenant_id: tenantId, message_id: messageId, since });
  return true;
}
