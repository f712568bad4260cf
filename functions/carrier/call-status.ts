import * as z from 'zod';
import { twilioCallForm } from '../../shared/carrier/schemas.js';
import { defineRoute } from '../../shared/http/route.js';
import { applyCarrierStatus, getCall } from '../../shared/repositories/calls.js';
import { authenticateCarrierRequest } from '../../shared/telephony/carrier-request.js';

/**
 * POST /carrier/twilio/status — a call's status changed. Signed like every carrier callback
 * (403 otherwise). The change goes through the call state machine
 * (shared/policy/call-state): monotonic, so replays and late, reordered callbacks change nothing.
 */
export const handler = defineRoute(
  'carrierCallStatus',
  { body: twilioCallForm, responses: { 200: z.object({ received: z.boolean() }) } },
  async ({ event, form, body }) => {
    const caller = await authenticateCarrierRequest(event, form, 'to');
    const call = caller.callId ? await getCall(caller.tenantId, caller.callId) : undefined;
    if (call && body?.CallStatus) {
      // Whole seconds only (Twilio's form): "1e9", "-3" or "0x10" are not durations to store.
      const duration = body.CallDuration !== undefined && /^\d{1,7}$/.test(body.CallDuration) ? Number(body.CallDuration) : null;
      await applyCarrierStatus(call, { CallStatus: body.CallStatus, ...(body.AnsweredBy ? { AnsweredBy: body.AnsweredBy } : {}), ...(body.SipResponseCode ? { SipResponseCode: body.SipResponseCode } : {}) }, duration);
    }
    return { status: 200, body: { received: true } };
  },
);
