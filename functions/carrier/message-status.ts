import * as z from 'zod';
import { MESSAGE_SID, twilioMessageForm } from '../../shared/carrier/schemas.js';
import { now } from '../../shared/clock.js';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { statusOfCarrier } from '../../shared/policy/messages/status.js';
import { applyMessageStatus, getMessageRecord } from '../../shared/repositories/messages.js';
import { authenticateCarrierRequest, forbiddenSignature } from '../../shared/telephony/carrier-request.js';

const messageIdOf = (q: Record<string, string | undefined> | undefined) => {
  const id = q?.message_id;
  return typeof id === 'string' && /^msg_[0-9A-Za-z]{1,60}$/.test(id) ? id : undefined;
};

/**
 * POST /carrier/twilio/message-status?message_id=msg_… — a text's delivery changed (the
 * StatusCallback we gave the carrier; the query is covered by the signature). Signed under
 * the account of the sending number (From; 403 otherwise, nothing written); the message
 * must be one that account sent. Monotonic and idempotent (shared/policy/messages/status.ts):
 * queued → sent → delivered | failed, each move with its message.* event; a replayed or
 * late callback changes nothing. The MessageSid is linked if the send's answer was not yet stored.
 */
export const handler = defineRoute(
  'carrierMessageStatus',
  handlerChecked,
  {
    body: twilioMessageForm,
    callbackQuery: z.object({ message_id: z.string().optional().describe('The text this delivery report is about (msg_…); covered by the carrier signature') }),
    responses: { 200: z.object({ received: z.boolean() }) },
  },
  async ({ event, form, body }) => {
    const caller = await authenticateCarrierRequest(event, form, 'from');
    const id = messageIdOf(event.queryStringParameters);
    const status = statusOfCarrier(body?.MessageStatus ?? body?.SmsStatus);
    const sid = body?.MessageSid ?? body?.SmsSid;
    if (!id || !status || !sid || !MESSAGE_SID.test(sid)) return { status: 200, body: { received: false } };
    const stored = await getMessageRecord(caller.tenantId, id);
    if (!stored || stored.direction !== 'outbound') return { status: 200, body: { received: false } };
    // The signature proved the account; the message must be one that account sent.
    if (stored.telephony_account_id !== caller.account.id) throw forbiddenSignature();
    const code = body?.ErrorCode && /^\d{1,6}$/.test(body.ErrorCode) ? body.ErrorCode : null;
    const failure =
      status === 'failed'
        ? {
            code: 'carrier_error' as const,
            message: `The carrier reports the message ${body?.MessageStatus ?? 'failed'}${code ? ` (error ${code})` : ''}`,
            next_permitted_at: null,
            carrier_error_code: code,
          }
        : undefined;
    await applyMessageStatus(caller.tenantId, id, { status, provider_sid: sid, ...(failure ? { failure } : {}) }, now());
    return { status: 200, body: { received: true } };
  },
);
