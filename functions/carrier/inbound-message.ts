import { MESSAGE_SID, twilioMessageForm, twimlDocument } from '../../shared/carrier/schemas.js';
import { twimlOk } from '../../shared/carrier/twiml-response.js';
import { now } from '../../shared/clock.js';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { receiveMessage } from '../../shared/messages/receive-message.js';
import { authenticateCarrierRequest } from '../../shared/telephony/carrier-request.js';
import { message, twiml } from '../../shared/telephony/twiml.js';

/**
 * POST /carrier/twilio/message — a text to one of our numbers (Twilio's messaging webhook).
 * Signed by the carrier under the account holding the number written to (403 otherwise,
 * nothing written). Stored once per MessageSid, linked to the contact with the sender's
 * number, classified (stop / help / other); a STOP suppresses the sender in the same
 * transaction (shared/messages/receive-message.ts). Answered with TwiML: the STOP
 * confirmation or HELP text as one <Message>, else an empty response — as is a replay, a
 * message without a MessageSid, or a number no tenant holds.
 */
export const handler = defineRoute(
  'carrierInboundMessage',
  handlerChecked,
  { body: twilioMessageForm, successMediaType: 'text/xml', responses: { 200: twimlDocument } },
  async ({ event, form, body }) => {
    const caller = await authenticateCarrierRequest(event, form, 'to');
    const sid = body?.MessageSid ?? body?.SmsSid;
    if (!sid || !MESSAGE_SID.test(sid) || !body?.From || !body.To) return twimlOk(twiml());
    const received = await receiveMessage(caller, { messageSid: sid, from: body.From, to: body.To, body: body.Body ?? '' }, now());
    return twimlOk(received.reply ? twiml(message(received.reply)) : twiml());
  },
);
