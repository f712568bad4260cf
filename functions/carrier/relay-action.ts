import { twilioRelayActionForm, twimlDocument } from '../../shared/carrier/schemas.js';
import { twimlOk } from '../../shared/carrier/twiml-response.js';
import { now as clockNow } from '../../shared/clock.js';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import { logger } from '../../shared/observability.js';
import { isTerminal } from '../../shared/policy/call-state/machine.js';
import { getAgentVersion } from '../../shared/repositories/agents.js';
import { getCall } from '../../shared/repositories/calls.js';
import { getRep } from '../../shared/repositories/reps.js';
import { callTokenKey } from '../../shared/telephony/call-token-key.js';
import { relayActionQuery, streamTokenTtlSeconds, verifyRelayActionParams } from '../../shared/telephony/call-tokens.js';
import { authenticateCarrierRequest, forbiddenSignature } from '../../shared/telephony/carrier-request.js';
import { publicBaseUrl, voiceRuntimeRelayUrl } from '../../shared/telephony/endpoints.js';
import { politeHangup } from '../../shared/telephony/outbound-answer.js';
import { decideRelayAction, parseHandoffData, renderRelayAction } from '../../shared/telephony/relay-action.js';
import { relaySpeechSettings } from '../../shared/telephony/relay-settings.js';
import { relayTwiml } from '../../shared/telephony/relay-twiml.js';

/** Twilio's statuses of a call still on the line. */
const LIVE_STATUSES = new Set(['in-progress', 'ringing', 'queued']);

/**
 * POST /carrier/twilio/relay-action?tenant_id=…&call_id=…&reconnects=N&…&sig=… — Twilio
 * posts here when a call's ConversationRelay session ends (<Connect action>). Signed twice:
 * X-Twilio-Signature under the call's account, and our own MAC over the query's state (the
 * call's token claims and the reconnect count); either wrong → 403, nothing read further.
 * The answer is TwiML from shared/telephony/relay-action.ts: a transfer to a rep's stored
 * number, the closing and a hang-up, a reconnect after the runtime's socket died, or a
 * polite hang-up. Writes nothing: the runtime reports the call's events itself.
 */
export const handler = defineRoute(
  'carrierRelayAction',
  handlerChecked,
  { body: twilioRelayActionForm, callbackQuery: relayActionQuery, successMediaType: 'text/xml', responses: { 200: twimlDocument } },
  async ({ event, form, body }) => {
    const caller = await authenticateCarrierRequest(event, form, 'to');
    const now = clockNow();
    const key = await callTokenKey();
    const checked = verifyRelayActionParams(key, new URLSearchParams(event.rawQueryString ?? ''), now);
    if (!checked.ok && checked.reason === 'expired') return twimlOk(politeHangup());
    if (!checked.ok) throw forbiddenSignature();
    const state = checked.claims;
    if (state.tenant_id !== caller.tenantId || (caller.callId && state.call_id !== caller.callId)) throw forbiddenSignature();

    const call = await getCall(state.tenant_id, state.call_id);
    if (!call) return twimlOk(politeHangup());
    const handoff = parseHandoffData(body?.HandoffData);
    const callLive = !isTerminal(call.state) && (body?.CallStatus === undefined || LIVE_STATUSES.has(body.CallStatus));
    const errorCode = body?.ErrorCode && /^\d{1,6}$/.test(body.ErrorCode) ? body.ErrorCode : null;
    const decision = decideRelayAction({ handoff, errorCode, callLive, reconnects: state.reconnects });
    // The decision and ids only: never the rep's number or the runtime's closing words.
    logger.info('relay session ended', {
      call_id: call.id,
      decision: decision.kind,
      ...('reason' in decision ? { reason: decision.reason } : {}),
      error_code: errorCode,
      session_status: body?.SessionStatus ?? null,
    });

    let transferNumber: string | null = null;
    if (decision.kind === 'transfer') {
      const rep = await getRep(state.tenant_id, decision.rep_id);
      transferNumber = rep?.status === 'active' && rep.transfer_number ? rep.transfer_number : null;
    }
    let relay: string | null = null;
    if (decision.kind === 'reconnect') {
      const version = await getAgentVersion(state.tenant_id, state.agent_version_id);
      const claims = {
        tenant_id: state.tenant_id,
        call_id: state.call_id,
        agent_version_id: state.agent_version_id,
        number_id: state.number_id,
        ...(state.policy_version ? { policy_version: state.policy_version } : {}),
      };
      if (version)
        relay = relayTwiml({
          claims,
          agent: version.definition,
          key,
          at: now,
          relayUrl: voiceRuntimeRelayUrl(),
          baseUrl: publicBaseUrl(),
          speech: relaySpeechSettings(),
          ttlSeconds: streamTokenTtlSeconds(),
          reconnects: decision.reconnects,
        });
    }
    const ours = call.direction === 'inbound' ? call.to_e164 : call.from_e164;
    return twimlOk(renderRelayAction(decision, { transferNumber, callerId: ours, relay }));
  },
);
