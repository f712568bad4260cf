/**
 * An inbound text (the carrier's signed messaging webhook). Stored once per MessageSid
 * (a platform pointer put if absent: a replayed webhook stores nothing and answers nothing,
 * so a STOP is confirmed once). In the same transaction as the message record:
 *  - `message.received`;
 *  - stop: the sender's number suppressed (source `sms`, source_id the message) with the
 *    holding contact's do_not_call, and `contact.opted_out` — unless it already was;
 *  - START/UNSTOP: the active suppression lifted only if an SMS STOP made it (source `sms`;
 *    the entry records the lift: lifted_by the message, a note).
 * The message is linked to the contact holding the sender's number. The answer — the STOP
 * confirmation, the HELP text, the START confirmation — goes back as the webhook's TwiML,
 * sent by the carrier from the number written to. A number that may not send texts (not
 * active, no sms, account unverified, burned) still records the text and honours a STOP,
 * but answers nothing: an opt-out is never refused, and a number that may not text does not.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { commit, conditionalTransaction } from '../db/conditional-transaction.js';
import { outboxItems } from '../events/outbox.js';
import { newId } from '../ids.js';
import {
  inboundTextPointerPut,
  inboundTextSeen,
  type MessageRecord,
  messageEventData,
  messagePut,
  presentMessage,
  type TransactItem,
} from '../repositories/messages.js';
import { activityItem } from '../repositories/mobile-activity.js';
import { getPhoneNumber, type PhoneNumberRecord } from '../repositories/phone-numbers.js';
import { getActiveSuppression, newSuppression, phoneHolder, suppressionAddItems, suppressionLiftItems } from '../repositories/suppressions.js';
import { getTenant } from '../repositories/tenants.js';
import { messageSegmentsLedgerItems } from '../repositories/usage-ledger.js';
import { RACE } from '../retry.js';
import type { MessageSummary } from '../schemas/text-messages.js';
import type { CarrierCaller } from '../telephony/carrier-request.js';
import { classifyKeyword, intentOf } from './intent.js';
import { helpText, startConfirmation, stopConfirmation } from './replies.js';
import { countSegments } from './segments.js';

export interface InboundText {
  messageSid: string;
  from: string;
  to: string;
  body: string;
}

export interface Received {
  /** What to answer with (null: an empty TwiML response). */
  reply: string | null;
  /** null: not stored (a replay, or a number no tenant holds). */
  message: MessageSummary | null;
}

const canSend = (n: PhoneNumberRecord | undefined, accountStatus: string) =>
  Boolean(
    n &&
      n.status === 'active' &&
      n.capabilities.includes('sms') &&
      (accountStatus === 'verified' || accountStatus === 'mock_verified') &&
      n.reputation_state !== 'burned',
  );

export async function receiveMessage(caller: CarrierCaller, text: InboundText, at: Date): Promise<Received> {
  const none: Received = { reply: null, message: null };
  const claim = caller.claim;
  if (!claim || claim.phone_e164 !== text.to) return none; // no tenant holds the number written to: refused politely
  if (await inboundTextSeen(text.messageSid)) return none;

  const tenantId = caller.tenantId;
  const [number, tenant] = await Promise.all([getPhoneNumber(tenantId, claim.number_id), getTenant(tenantId)]);
  const keyword = classifyKeyword(text.body);
  const name = tenant?.name ?? 'This sender';
  return conditionalTransaction<Received>({
    decide: async () => {
      const [holder, active] = await Promise.all([phoneHolder(tenantId, text.from), getActiveSuppression(tenantId, text.from)]);
      const nowIso = at.toISOString();
      const id = newId('msg');
      const items: TransactItem[] = [];
      let reply: string | null = null;
      if (keyword === 'stop') {
        reply = stopConfirmation(name);
        if (!active) {
          const entry = newSuppression(
            { phone_e164: text.from, reason: 'opt_out', note: `Texted "${text.body.trim().slice(0, 200)}"`, source: 'sms', source_id: id },
            nowIso,
          );
          items.push(...suppressionAddItems(tenantId, entry, holder));
          items.push(
            ...outboxItems(
              tenantId,
              'contact.opted_out',
              {
                phone_e164: text.from,
                contact_id: holder?.contactId ?? null,
                reason: 'opt_out',
                message_id: id,
                suppression_id: entry.id,
                source: 'sms',
                at: nowIso,
              },
              at,
            ).items,
          );
        }
      } else if (keyword === 'help') {
        reply = helpText(name);
      } else if (keyword === 'start' && active?.source === 'sms') {
        items.push(
          ...suppressionLiftItems(tenantId, active, { note: `Texted "${text.body.trim().slice(0, 20)}" from the number`, by: id, now: nowIso }, holder),
        );
        reply = startConfirmation(name);
      }
      if (!canSend(number, caller.account.verification_status)) reply = null;
      const record: MessageRecord = {
        id,
        tenant_id: tenantId,
        direction: 'inbound',
        phone_number_id: number?.id ?? null,
        telephony_account_id: caller.account.id,
        contact_id: holder?.contactId ?? null,
        to_e164: text.to,
        from_e164: text.from,
        template_id: null,
        body_rendered: text.body,
        status: 'received',
        provider_sid: text.messageSid,
        origin_call_id: null,
        inbound_intent: intentOf(keyword),
        segments: countSegments(text.body).segments,
        compliance_profile_id: null,
        compliance: null,
        failure: null,
        reply,
        created_at: nowIso,
        updated_at: nowIso,
      };
      const summary = presentMessage(record as unknown as Record<string, unknown>);
      const all: TransactItem[] = [
        inboundTextPointerPut(text.messageSid, tenantId, id),
        messagePut(record),
        ...outboxItems(tenantId, 'message.received', messageEventData(summary), at).items,
        // The mobile timeline's message entry commits with the text.
        activityItem(tenantId, { kind: 'message', resource_id: id, label: 'message' }, at),
        ...items,
        // An inbound text's segments are final when it is stored: metered with it.
        ...(await messageSegmentsLedgerItems(tenantId, record, at)),
      ];
      return commit(all, { reply, message: summary });
    },
    // The same webhook, stored meanwhile (the carrier pointer is item 0).
    settle: (err) =>
      err instanceof TransactionCanceledException && err.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed' ? { result: none } : undefined,
    // Otherwise the suppression or the holder changed under us: read again.
    raced: (err) => err instanceof TransactionCanceledException,
    policy: { ...RACE, attempts: 5 },
  });
}
