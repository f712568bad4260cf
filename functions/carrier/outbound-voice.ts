import { callEnded } from '../../shared/calls/call-ended.js';
import { twilioCallForm, twimlDocument } from '../../shared/carrier/schemas.js';
import { CALL_SID, twimlOk } from '../../shared/carrier/twiml-response.js';
import { now as clockNow } from '../../shared/clock.js';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { getAgentVersion } from '../../shared/repositories/agents.js';
import { applyOutboundStatus } from '../../shared/repositories/call-lifecycle.js';
import { authenticateCarrierRequest } from '../../shared/telephony/carrier-request.js';
import { relayToAgent } from '../../shared/telephony/inbound-answer.js';
import { answerContext } from '../../shared/telephony/inbound-context.js';
import { politeHangup, voicemailParts, voicemailTwiml } from '../../shared/telephony/outbound-answer.js';
import { callOfRequest, outboundCallQuery } from '../../shared/telephony/outbound-call.js';

/**
 * POST /carrier/twilio/outbound?call_id=cal_… — the carrier fetches the TwiML of an outbound
 * call it placed (dispatch's TwiML URL), once answered. Signed under the call's account (the
 * From number is ours; 403 otherwise, nothing written).
 *   a person → the call moves to `answered` (call.answered, once) and is handed to the voice
 *     runtime through ConversationRelay with the signed token (pinned agent version);
 *   AnsweredBy machine_* → the call ends `machine` / voicemail_machine (call.completed, once)
 *     and hears the pinned version's voicemail drop, then Hangup;
 *   an unknown call, or one that is over → a polite Hangup, nothing written.
 */
export const handler = defineRoute(
  'carrierOutboundVoice',
  handlerChecked,
  { body: twilioCallForm, callbackQuery: outboundCallQuery, successMediaType: 'text/xml', responses: { 200: twimlDocument } },
  async ({ event, form, body }) => {
    const caller = await authenticateCarrierRequest(event, form, 'from');
    if (!body?.CallSid || !CALL_SID.test(body.CallSid)) return twimlOk(politeHangup());
    const call = await callOfRequest(caller, event, body.CallSid);
    if (!call || call.direction !== 'outbound' || !call.agent_version_id) return twimlOk(politeHangup());

    const now = clockNow();
    const machine = (typeof body.AnsweredBy === 'string' && body.AnsweredBy.startsWith('machine')) || call.state === 'machine';
    const result = await applyOutboundStatus(call, { CallStatus: 'in-progress', ...(body.AnsweredBy ? { AnsweredBy: body.AnsweredBy } : {}) }, null, now);
    if (result?.ended) await callEnded(call);
    const state = result?.change?.state ?? result?.call.state ?? call.state;

    const version = await getAgentVersion(call.tenant_id, call.agent_version_id);
    if (!version) return twimlOk(politeHangup());
    if (machine && state === 'machine') return twimlOk(voicemailTwiml(voicemailParts(version.definition)));
    if (state !== 'answered' && state !== 'in_conversation') return twimlOk(politeHangup());

    const ctx = await answerContext({
      tenantId: call.tenant_id,
      callId: call.id,
      numberId: call.phone_number_id ?? 'none',
      numberE164: call.from_e164,
      at: now,
      agentVersions: [version],
    });
    return twimlOk(relayToAgent(ctx, { agent_id: call.agent_id ?? version.agent_id, agent_version_id: version.id }).twiml);
  },
);
