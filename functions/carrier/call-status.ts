import { nudgeCampaign } from '../../shared/campaigns/nudge.js';
import * as z from 'zod';
import { requestAnalysis } from '../../shared/calls/analysis-queue.js';
import { twilioCallForm } from '../../shared/carrier/schemas.js';
import { defineRoute } from '../../shared/http/route.js';
import { applyOutboundStatus } from '../../shared/repositories/call-lifecycle.js';
import { isTerminal, onCarrierStatus } from '../../shared/policy/call-state/machine.js';
import { applyCarrierStatus } from '../../shared/repositories/calls.js';
import { authenticateCarrierRequest } from '../../shared/telephony/carrier-request.js';
import { callOfRequest, preferFor } from '../../shared/telephony/outbound-call.js';

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
  { body: twilioCallForm, responses: { 200: z.object({ received: z.boolean() }) } },
  async ({ event, form, body }) => {
    const caller = await authenticateCarrierRequest(event, form, preferFor(event));
    const call = await callOfRequest(caller, event, body?.CallSid);
    if (call && body?.CallStatus) {
      // Whole seconds only (Twilio's form): "1e9", "-3" or "0x10" are not durations to store.
      const duration = body.CallDuration !== undefined && /^\d{1,7}$/.test(body.CallDuration) ? Number(body.CallDuration) : null;
      const status = { CallStatus: body.CallStatus, ...(body.AnsweredBy ? { AnsweredBy: body.AnsweredBy } : {}), ...(body.SipResponseCode ? { SipResponseCode: body.SipResponseCode } : {}) };
      if (call.direction === 'outbound') {
        const result = await applyOutboundStatus(call, status, duration);
        if (result?.ended) await Promise.all([requestAnalysis(call.tenant_id, call.id), nudgeCampaign(call)]);
      } else {
        // An inbound call an agent answered is scored like an outbound one when it ends.
        const ends = onCarrierStatus(call.state, status);
        if ((await applyCarrierStatus(call, status, duration)) && ends && isTerminal(ends.state) && call.inbound?.agent_version_id) await requestAnalysis(call.tenant_id, call.id);
      }
    }
    return { status: 200, body: { received: true } };
  },
);
