import * as z from 'zod';
import { twilioCallForm } from '../../shared/carrier/schemas.js';
import { defineRoute } from '../../shared/http/route.js';
import { getCall, recordFinalStatus } from '../../shared/repositories/calls.js';
import { authenticateCarrierRequest } from '../../shared/telephony/carrier-request.js';

/**
 * POST /carrier/twilio/status — a call's status changed. Signed like every carrier callback
 * (403 otherwise). A final status ends the call once: replays and late, reordered callbacks
 * change nothing. The calls issue hands this route the full outbound state machine.
 */
export const handler = defineRoute(
  'carrierCallStatus',
  { body: twilioCallForm, responses: { 200: z.object({ received: z.boolean() }) } },
  async ({ event, form, body }) => {
    const caller = await authenticateCarrierRequest(event, form, 'to');
    const call = caller.callId ? await getCall(caller.tenantId, caller.callId) : undefined;
    if (call && body?.CallStatus) {
      const duration = Number(body.CallDuration);
      await recordFinalStatus(call, body.CallStatus, Number.isFinite(duration) && body.CallDuration !== undefined ? duration : null);
    }
    return { status: 200, body: { received: true } };
  },
);
