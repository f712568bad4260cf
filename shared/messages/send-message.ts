/**
 * The one path every outbound text takes (POST /v1/messages and the voice runtime's
 * `send_sms` action): judge it for the `sms` channel, pick the sending number, commit the
 * message (queued, or failed with its reason) with its event and the caller's own items
 * (idempotency result, the action's guard) in one transaction, then — only when queued —
 * ask the carrier once. A blocked, deferred or unsendable message never reaches the carrier.
 *
 * A deferral (quiet hours, a state window) is not held: the message is stored `failed`
 * with failure `deferred` and `next_permitted_at`, because a text is about now — a code, a
 * link, an answer to a call in progress — and one delivered hours late is worse than one
 * the tenant decides to resend (docs/decisions.md, "Messages").
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { readCallerPool, readContactHistory, readNumberFacts, type CallerNumber } from '../calls/compliance-inputs.js';
import { db } from '../db/client.js';
import { outboxItems } from '../events/outbox.js';
import { newId } from '../ids.js';
import { logger } from '../observability.js';
import { evaluate, type ComplianceDecision, type ProfileFacts } from '../policy/compliance/index.js';
import { applyMessageStatus, messageEventData, messagePut, presentMessage, type MessageRecord, type TransactItem } from '../repositories/messages.js';
import { getTelephonyAccount } from '../repositories/telephony-accounts.js';
import type { MessageFailure, MessageSummary } from '../schemas/text-messages.js';
import { providerFor } from '../telephony/carrier-for.js';
import { carrierMessagingWebhookUrls } from '../telephony/endpoints.js';
import { CarrierRefused } from '../telephony/provider.js';
import { countSegments } from './segments.js';
import { chooseSender } from './sender-number.js';

export class UnknownContact extends Error {}
/** The caller's own guard item refused the write: this send was made before. */
export class AlreadySent extends Error {}

export interface SendInput {
  contactId: string;
  /** The profile judged under: the tenant's (API) or the call version's frozen copy (send_sms). */
  profile: ProfileFacts | null;
  profileId: string | null;
  body: string;
  templateId: string | null;
  originCallId: string | null;
  /** The number to send from when it can (the call's). */
  preferredNumberId?: string | null;
  /** Items committed with the message (idempotency result, the action guard); `guardIndex` items' failure = AlreadySent. */
  extraItems?: (m: MessageSummary) => TransactItem[];
}

const VERIFIED = new Set(['verified', 'mock_verified']);

/** Where the carrier reports the message's delivery (covered by its signature). */
export const messageStatusUrl = (messageId: string) => `${carrierMessagingWebhookUrls().status_callback_url}?message_id=${messageId}`;

function failureOf(decision: ComplianceDecision, sender: ReturnType<typeof chooseSender<CallerNumber>>): MessageFailure | null {
  const first = decision.reasons[0]?.message ?? '';
  if (decision.outcome === 'block') return { code: decision.disposition!, message: first, next_permitted_at: null, carrier_error_code: null };
  if (decision.outcome === 'defer') return { code: 'deferred', message: `Not sent: ${first} A text is not held; send it again at or after next_permitted_at.`, next_permitted_at: decision.next_permitted_at, carrier_error_code: null };
  if (sender.outcome === 'no_sms_number') return { code: 'no_sms_number', message: 'The tenant has no active, sms-capable number on a verified account to send from: add sms to a number\'s capabilities', next_permitted_at: null, carrier_error_code: null };
  if (sender.outcome === 'a2p_registration_missing') return { code: 'a2p_registration_missing', message: `US long codes need a 10DLC campaign: set a2p_campaign_ref on ${sender.number.phone_e164} (or another sms number) before texting from it`, next_permitted_at: null, carrier_error_code: null };
  return null;
}

export async function sendMessage(tenantId: string, input: SendInput, at: Date): Promise<MessageSummary> {
  const [history, pool] = await Promise.all([readContactHistory(tenantId, input.contactId, at), readCallerPool(tenantId)]);
  if (!history) throw new UnknownContact();
  const phone = history.contact.phone_e164;
  const verified = new Set(pool.accounts.filter((a) => VERIFIED.has(a.verification_status)).map((a) => a.id));
  const sender = chooseSender(pool.numbers, verified, phone, input.preferredNumberId ?? null);
  const senderNumber = sender.outcome === 'no_sms_number' ? null : sender.number;
  const sanRefs = senderNumber ? [...(pool.accounts.find((a) => a.id === senderNumber.telephony_account_id)?.ftc_san_refs ?? [])] : pool.accounts.flatMap((a) => a.ftc_san_refs);
  const facts = await readNumberFacts(tenantId, phone, input.profile);
  const decision = evaluate(
    {
      channel: 'sms',
      contact: { phone_e164: phone, timezone: history.contact.timezone ?? null, jurisdictions: history.contact.jurisdictions ?? [], consents: history.consents },
      profile: input.profile,
      san_refs: sanRefs,
      suppressed: facts.suppressed,
      dnc_snapshot: facts.dnc_snapshot,
      recent_attempts: history.attempts,
    },
    at,
  );
  const failure = failureOf(decision, sender);
  const nowIso = at.toISOString();
  const record: MessageRecord = {
    id: newId('msg'),
    tenant_id: tenantId,
    direction: 'outbound',
    phone_number_id: senderNumber?.id ?? null,
    telephony_account_id: senderNumber?.telephony_account_id ?? null,
    contact_id: input.contactId,
    to_e164: phone,
    from_e164: senderNumber?.phone_e164 ?? '',
    template_id: input.templateId,
    body_rendered: input.body,
    status: failure ? 'failed' : 'queued',
    provider_sid: null,
    origin_call_id: input.originCallId,
    inbound_intent: null,
    segments: countSegments(input.body).segments,
    compliance_profile_id: input.profileId,
    compliance: decision,
    failure,
    reply: null,
    created_at: nowIso,
    updated_at: nowIso,
  };
  const summary = presentMessage(record as unknown as Record<string, unknown>);
  const extra = input.extraItems?.(summary) ?? [];
  const items = [messagePut(record), ...(failure ? outboxItems(tenantId, 'message.failed', messageEventData(summary), at).items : []), ...extra];
  try {
    await db().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (err) {
    const guardFailed = err instanceof TransactionCanceledException && (err.CancellationReasons ?? []).some((r, i) => i >= items.length - extra.length && r.Code === 'ConditionalCheckFailed');
    if (guardFailed) throw new AlreadySent();
    throw err;
  }
  if (!failure && senderNumber) await handToCarrier(record, senderNumber, at);
  return summary;
}

/** Asks the carrier once; a refusal or an unreachable carrier fails the message (never retried blindly: it may have left). */
async function handToCarrier(record: MessageRecord, from: CallerNumber, at: Date): Promise<void> {
  const fail = (f: MessageFailure) => applyMessageStatus(record.tenant_id, record.id, { status: 'failed', failure: f }, new Date());
  try {
    const account = await getTelephonyAccount(record.tenant_id, from.telephony_account_id);
    if (!account) throw new Error('sending account vanished');
    const provider = await providerFor(account);
    const { sid } = await provider.sendSms({ to: record.to_e164, from: from.phone_e164, body: record.body_rendered!, statusCallbackUrl: messageStatusUrl(record.id) });
    await applyMessageStatus(record.tenant_id, record.id, { status: 'queued', provider_sid: sid }, at);
  } catch (err) {
    if (err instanceof CarrierRefused) {
      await fail({ code: 'carrier_refused', message: `The carrier refused the message (${err.reason})`, next_permitted_at: null, carrier_error_code: err.carrierCode === undefined ? null : String(err.carrierCode) });
      return;
    }
    logger.warn('message not handed to the carrier', { message_id: record.id, error: (err as Error).name });
    await fail({ code: 'carrier_unavailable', message: 'The carrier could not be reached; the message was not sent (send it again)', next_permitted_at: null, carrier_error_code: null });
  }
}
