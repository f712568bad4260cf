import { twilioCallForm, twimlDocument } from '../../shared/carrier/schemas.js';
import { twimlOk } from '../../shared/carrier/twiml-response.js';
import { now as clockNow } from '../../shared/clock.js';
import { handlerChecked } from '../../shared/http/auth/handler-checked.js';
import { defineRoute } from '../../shared/http/route.js';
import type { MenuStepOf, PolicyStep } from '../../shared/policy/answering/model.js';
import { pressKey } from '../../shared/policy/answering/navigate.js';
import { decodeStepPath, nextStepPath, resolveStep } from '../../shared/policy/answering/step-path.js';
import { getPolicyVersion } from '../../shared/repositories/answering-policies.js';
import { appendInboundPath, getCall } from '../../shared/repositories/calls.js';
import { callTokenKey } from '../../shared/telephony/call-token-key.js';
import { gatherQuery, verifyGatherParams } from '../../shared/telephony/call-tokens.js';
import { authenticateCarrierRequest, forbiddenSignature } from '../../shared/telephony/carrier-request.js';
import { type Answer, runStep, unavailable } from '../../shared/telephony/inbound-answer.js';
import { answerContext } from '../../shared/telephony/inbound-context.js';
import { hangup, say, twiml } from '../../shared/telephony/twiml.js';

const EXPIRED = "Sorry, we didn't hear from you in time. Please call again. Goodbye.";

/**
 * POST /carrier/twilio/policy-action — a menu's key press (Gather: Digits, empty on silence)
 * or a ring's outcome (Dial: DialCallStatus). The URL's query is our signed state: the call,
 * the number, the policy version the call started on and the step path; a tampered query is
 * a 403, an expired one a polite goodbye. The next step is rendered from that same policy
 * version, so a policy edited mid-call does not move a caller already in it. A replayed
 * callback renders the same answer and records nothing twice.
 */
export const handler = defineRoute(
  'carrierPolicyAction',
  handlerChecked,
  { body: twilioCallForm, callbackQuery: gatherQuery, successMediaType: 'text/xml', responses: { 200: twimlDocument } },
  async ({ event, form, body }) => {
    const caller = await authenticateCarrierRequest(event, form, 'to');
    const now = clockNow();
    const checked = verifyGatherParams(await callTokenKey(), new URLSearchParams(event.rawQueryString ?? ''), now);
    if (!checked.ok && checked.reason === 'expired') return twimlOk(twiml(say(EXPIRED), hangup()));
    if (!checked.ok) throw forbiddenSignature();
    const state = checked.claims;
    if (state.tenant_id !== caller.tenantId || (caller.callId && state.call_id !== caller.callId)) throw forbiddenSignature();
    const call = await getCall(state.tenant_id, state.call_id);
    const policy = await getPolicyVersion(state.tenant_id, state.number_id, state.policy_version);
    const path = decodeStepPath(state.step_path);
    const step = policy && path ? resolveStep(policy, path) : undefined;
    if (!call || !policy || !path || !step) return twimlOk(unavailable('policy_step_missing').twiml);

    const ctx = await answerContext({ tenantId: state.tenant_id, callId: call.id, numberId: state.number_id, numberE164: call.to_e164, at: now, policy });
    let answer: Answer;
    let dedupe: string;
    if (step.type === 'menu') {
      const digit = body?.Digits ?? '';
      const outcome = pressKey(step as MenuStepOf<PolicyStep>, path, digit === '' ? null : digit, state.invalid_attempts);
      const next =
        outcome.outcome === 'invalid'
          ? runStep(ctx, policy, policy.version, path, { invalidAttempts: outcome.invalid_attempts, notAnOption: true })
          : runStep(ctx, policy, policy.version, outcome.next);
      answer = {
        twiml: next.twiml,
        entries: [{ action: 'pressed', step_path: state.step_path, digit: digit || null, outcome: outcome.outcome }, ...next.entries],
      };
      dedupe = `menu:${state.step_path}:${state.invalid_attempts}`;
    } else if (step.type === 'ring_humans') {
      const answered = body?.DialCallStatus === 'completed';
      const next = answered ? { twiml: twiml(hangup()), entries: [] } : runStep(ctx, policy, policy.version, nextStepPath(policy, path));
      answer = {
        twiml: next.twiml,
        entries: [{ action: 'ring_result', step_path: state.step_path, dial_status: body?.DialCallStatus ?? null }, ...next.entries],
      };
      dedupe = `ring:${state.step_path}`;
    } else {
      answer = runStep(ctx, policy, policy.version, path);
      dedupe = `step:${state.step_path}`;
    }
    await appendInboundPath(call, dedupe, answer.entries, now);
    return twimlOk(answer.twiml);
  },
);
