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
 * the tenant decides to resend (docs/decisions/messaging.md).
 *
 * Never lost, at most once (as a dial: shared/calls/dispatch.ts). A queued message commits
 * with a sending watch (shared/repositories/messages.ts `sendWatchPut`), deleted when its
 * carrier SID is recorded or it settles. The carrier is asked once:
 *  - a SID → recorded on the message (the watch goes). If that write fails, the message stays
 *    queued: the carrier's callbacks (found by ?message_id=) link the SID and move it on.
 *  - CarrierRefused (the carrier answered and refused: nothing left) → failed carrier_refused.
 *  - anything else (timeout, network error, a 5xx after the request may have been taken, a
 *    crash) → left queued, never re-sent; the scheduler fails it as send_unknown once its
 *    watch is older than MESSAGE_SEND_UNKNOWN_AFTER_MS (shared/messages/send-reconciler.ts),
 *    and a later callback naming its SID still corrects it (shared/policy/messages/status.ts).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type CallerNumber, readCallerPool, readContactHistory, readNumberFacts } from '../calls/compliance-inputs.js';
import { now } from '../clock.js';
import { transactWrite } from '../db/transact-write.js';
import { outboxItems } from '../events/outbox.js';
import { newId } from '../ids.js';
import { logger } from '../observability.js';
import { evaluate } from '../policy/compliance/evaluate.js';
import type { ComplianceDecision, ProfileFacts } from '../policy/compliance/types.js';
import {
  applyMessageStatus,
  type MessageRecord,
  messageEventData,
  messagePut,
  presentMessage,
  sendWatchPut,
  type TransactItem,
} from '../repositories/messages.js';
import { getTelephonyAccount } from '../repositories/telephony-accounts.js';
import type { MessageFailure, MessageSummary } from '../schemas/text-messages.js';
import { providerFor } from '../telephony/carrier-for.js';
import { carrierMessagingWebhookUrls } from '../telephony/endpoints.js';
import { CarrierRefused, type TelephonyProvider } from '../telephony/provider.js';
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
const messageStatusUrl = (messageId: string) => `${carrierMessagingWebhookUrls().status_callback_url}?message_id=${messageId}`;

function failureOf(decision: ComplianceDecision, sender: ReturnType<typeof chooseSender<CallerNumber>>): MessageFailure | null {
  const first = decision.reasons[0]?.message ?? '';
  if (decision.outcome === 'block') return { code: decision.disposition!, message: first, next_permitted_at: null, carrier_error_code: null };
  if (decision.outcome === 'defer')
    return {
      code: 'deferred',
      message: `Not sent: ${first} A text is not held; send it again at or after next_permitted_at.`,
      next_permitted_at: decision.next_permitted_at,
      carrier_error_code: null,
    };
  if (sender.outcome === 'no_sms_number')
    return {
      code: 'no_sms_number',
      message: "The tenant has no active, sms-capable number on a verified account to send from: add sms to a number's capabilities",
      next_permitted_at: null,
      carrier_error_code: null,
    };
  if (sender.outcome === 'a2p_registration_missing')
    return {
      code: 'a2p_registration_missing',
      message: `US long codes need a 10DLC campaign: set a2p_campaign_ref on ${sender.number.phone_e164} (or another sms number) before texting from it`,
      next_permitted_at: null,
      carrier_error_code: null,
    };
  return null;
}

export async function sendMessage(tenantId: string, input: SendInput, at: Date): Promise<MessageSummary> {
  const [history, pool] = await Promise.all([readContactHistory(tenantId, input.contactId, at), readCallerPool(tenantId)]);
  if (!history) throw new UnknownContact();
  const phone = history.contact.phone_e164;
  const verified = new Set(pool.accounts.filter((a) => VERIFIED.has(a.verification_status)).map((a) => a.id));
  const sender = chooseSender(pool.numbers, verified, phone, input.preferredNumberId ?? null);
  const senderNumber = sender.outcome === 'no_sms_number' ? null : sender.number;
  const sanRefs = senderNumber
    ? [...(pool.accounts.find((a) => a.id === senderNumber.telephony_account_id)?.ftc_san_refs ?? [])]
    : pool.accounts.flatMap((a) => a.ftc_san_refs);
  const facts = await readNumberFacts(tenantId, phone, input.profile);
  const decision = evaluate(
    {
      channel: 'sms',
      contact: {
        phone_e164: phone,
        timezone: history.contact.timezone ?? null,
        jurisdictions: history.contact.jurisdictions ?? [],
        consents: history.consents,
      },
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
    send_watch_at: failure ? null : nowIso,
    created_at: nowIso,
    updated_at: nowIso,
  };
  const summary = presentMessage(record as unknown as Record<string, unknown>);
  const extra = input.extraItems?.(summary) ?? [];
  const items = [
    messagePut(record),
    ...(failure ? outboxItems(tenantId, 'message.failed', messageEventData(summary), at).items : [sendWatchPut(record, nowIso)]),
    ...extra,
  ];
  try {
    await transactWrite(items);
  } catch (err) {
    const guardFailed =
      err instanceof TransactionCanceledException &&
      (err.CancellationReasons ?? []).some((r, i) => i >= items.length - extra.length && r.Code === 'ConditionalCheckFailed');
    if (guardFailed) throw new AlreadySent();
    throw err;
  }
  if (!failure && senderNumber) await handToCarrier(record, senderNumber);
  return summary;
}

/**
 * Asks the carrier once. Only a definite refusal fails the message; an unknown outcome, or a
 * failed write after the carrier took it, leaves it queued under its sending watch (never
 * re-sent: the carrier may have it). Never throws: the message is committed either way.
 */
async function handToCarrier(record: MessageRecord, from: CallerNumber): Promise<void> {
  const settle = async (report: Parameters<typeof applyMessageStatus>[2], what: string) => {
    try {
      await applyMessageStatus(record.tenant_id, record.id, report, now());
    } catch (err) {
      // The watch stays: callbacks (found by ?message_id=) or the reconciler settle it.
      logger.error(`could not record ${what}; left queued for the callbacks and the reconciler`, { message_id: record.id, error: (err as Error)?.message });
    }
  };
  let provider: TelephonyProvider;
  try {
    const account = await getTelephonyAccount(record.tenant_id, from.telephony_account_id);
    if (!account) throw new Error('sending account vanished');
    provider = await providerFor(account);
  } catch (err) {
    // Nothing was asked of the carrier: definitely not sent.
    logger.warn('message not handed to the carrier', { message_id: record.id, error: (err as Error)?.message });
    await settle(
      {
        status: 'failed',
        failure: {
          code: 'carrier_unavailable',
          message: 'The carrier could not be asked; the message was not sent (send it again)',
          next_permitted_at: null,
          carrier_error_code: null,
        },
      },
      'the failure',
    );
    return;
  }
  let sid: string;
  try {
    ({ sid } = await provider.sendSms({
      to: record.to_e164,
      from: from.phone_e164,
      body: record.body_rendered!,
      statusCallbackUrl: messageStatusUrl(record.id),
    }));
  } catch (err) {
    if (err instanceof CarrierRefused) {
      await settle(
        {
          status: 'failed',
          failure: {
            code: 'carrier_refused',
            message: `The carrier refused the message (${err.reason})`,
            next_permitted_at: null,
            carrier_error_code: err.carrierCode === undefined ? null : String(err.carrierCode),
          },
        },
        'the refusal',
      );
      return;
    }
    // Timeout, network error, a 5xx: it may have been taken. Never re-sent; the reconciler decides.
    logger.warn('message send outcome unknown; left queued for the reconciler', { message_id: record.id, error: (err as Error)?.message });
    return;
  }
  await settle({ status: 'queued', provider_sid: sid }, 'the carrier SID');
}
