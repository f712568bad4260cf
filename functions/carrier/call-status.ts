import * as z from 'zod';
import { applyCallStatus } from '../../shared/calls/carrier-status.js';
import { twilioCallForm } from '../../shared/carrier/schemas.js';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { authenticateCarrierRequest } from '../../shared/telephony/carrier-request.js';
import { callOfRequest, outboundCallQuery, preferFor } from '../../shared/telephony/outbound-call.js';

/**
 * POST /carrier/twilio/status — a call's status changed. Signed like every carrier callback
 * (403 otherwise). The change goes through the call state machine
 * (shared/policy/call-state): monotonic, so replays and late, reordered callbacks change nothing.
 * Outbound calls (URL `?call_id=`, dispatch's status callback) also get their disposition at
 * the terminal transition and their outbox events in the same transaction
 * (shared/repositories/call-lifecycle.ts); a call that ended is sent to analysis (an inbound
 * one when an agent took it).
 */
export const handler = defineRoute(
  'carrierCallStatus',
  handlerChecked,
  { body: twilioCallForm, callbackQuery: outboundCallQuery, responses: { 200: z.object({ received: z.boolean() }) } },
  async ({ event, form, body }) => {
    const caller = await authenticateCarrierRequest(event, form, preferFor(event));
    const call = await callOfRequest(caller, event, body?.CallSid);
    if (call && body?.CallStatus) {
      // Whole seconds only (Twilio's form): "1e9", "-3" or "0x10" are not durations to store.
      const duration = body.CallDuration !== undefined && /^\d{1,7}$/.test(body.CallDuration) ? Number(body.CallDuration) : null;
      const status = {
        CallStatus: body.CallStatus,
        ...(body.AnsweredBy ? { AnsweredBy: body.AnsweredBy } : {}),
        ...(body.SipResponseCode ? { SipResponseCode: body.SipResponseCode } : {}),
      };
      await applyCallStatus(call, status, duration);
    }
    return { status: 200, body: { received: true } };
  },
);
