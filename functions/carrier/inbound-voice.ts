import { decideInbound, firstAnswer, type InboundDecision, numberOf } from '../../shared/carrier/inbound-route.js';
import { twilioCallForm, twimlDocument } from '../../shared/carrier/schemas.js';
import { CALL_SID, twimlOk } from '../../shared/carrier/twiml-response.js';
import { now as clockNow } from '../../shared/clock.js';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { getPolicyVersion } from '../../shared/repositories/answering-policies.js';
import { appendInboundPath, CallSidHeldElsewhere, createInboundCall, getCall } from '../../shared/repositories/calls.js';
import { activityItem } from '../../shared/repositories/mobile-activity.js';
import { authenticateCarrierRequest, forbiddenSignature } from '../../shared/telephony/carrier-request.js';
import { unavailable } from '../../shared/telephony/inbound-answer.js';
import { answerContext } from '../../shared/telephony/inbound-context.js';

/**
 * POST /carrier/twilio/voice — a call to one of our numbers. Signed by the carrier under the
 * number's account (403 otherwise, nothing written). The To number is re-resolved now: an
 * active voice number of that account's tenant, eligible, with a published agent / a policy.
 * The call is stored (direction inbound; an ineligible or unknown number: disposition
 * inbound_unavailable and a polite refusal) and answered with TwiML. A replayed webhook
 * (same CallSid) finds the stored call and gets the same answer.
 */
export const handler = defineRoute(
  'carrierInboundVoice',
  handlerChecked,
  { body: twilioCallForm, successMediaType: 'text/xml', responses: { 200: twimlDocument } },
  async ({ event, form, body }) => {
    const caller = await authenticateCarrierRequest(event, form, 'to');
    const now = clockNow();
    // Twilio always names the call; a signed request without one gets the refusal, unrecorded.
    if (!body?.CallSid || !CALL_SID.test(body.CallSid)) return twimlOk(unavailable('call_sid_missing').twiml);
    const known = caller.callId ? await getCall(caller.tenantId, caller.callId) : undefined;
    const number = await numberOf(caller.tenantId, known?.phone_number_id ?? caller.claim?.number_id ?? null);
    const decision: InboundDecision = known?.inbound
      ? { ...known.inbound, unavailable: known.disposition === 'inbound_unavailable' ? known.end_reason : null }
      : await decideInbound(number, caller.account, now);

    const { call } = known
      ? { call: known }
      : await createInboundCall(
          {
            tenant_id: caller.tenantId,
            state: decision.unavailable ? 'disposed' : 'answered',
            disposition: decision.unavailable ? 'inbound_unavailable' : null,
            disposition_set_by: decision.unavailable ? 'system' : null,
            end_reason: decision.unavailable,
            from_e164: body?.From ?? '',
            to_e164: body?.To ?? '',
            phone_number_id: number?.id ?? null,
            telephony_account_id: caller.account.id,
            provider: caller.account.provider,
            provider_call_sid: body.CallSid,
            inbound: {
              route_mode: decision.route_mode,
              policy_version: decision.policy_version,
              schedule: decision.schedule,
              agent_id: decision.agent_id,
              agent_version_id: decision.agent_version_id,
              greeting: decision.greeting,
              path: [],
            },
            answered_at: decision.unavailable ? null : now.toISOString(),
          },
          now,
          // The mobile timeline's live_call entry commits with the call.
          (c) => [activityItem(c.tenant_id, { kind: 'live_call', resource_id: c.id, label: 'live_call' }, now)],
        ).catch((err: unknown) => {
          if (err instanceof CallSidHeldElsewhere) throw forbiddenSignature();
          throw err;
        });

    const policy = decision.policy_version && number ? await getPolicyVersion(caller.tenantId, number.id, decision.policy_version) : undefined;
    const ctx = await answerContext({
      tenantId: caller.tenantId,
      callId: call.id,
      numberId: number?.id ?? 'none',
      numberE164: call.to_e164,
      at: now,
      ...(policy ? { policy } : {}),
      agentVersionIds: decision.agent_version_id ? [decision.agent_version_id] : [],
    });
    const answer = firstAnswer(ctx, decision, policy);
    await appendInboundPath(call, 'voice', answer.entries, now);
    return twimlOk(answer.twiml);
  },
);
