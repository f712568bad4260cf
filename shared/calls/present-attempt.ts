import type { OutboundCallRecord } from '../repositories/outbound-calls.js';
import type { ContactAttempt } from '../schemas/contact-attempts.js';

/** The ContactAttempt view of an outbound call record (POST /v1/calls answers it). */
export function presentContactAttempt(call: OutboundCallRecord): ContactAttempt {
  return {
    id: call.attempt_id,
    call_id: call.id,
    contact_id: call.contact_id,
    agent_id: call.agent_id,
    agent_version_id: call.agent_version_id,
    campaign_id: call.campaign_id,
    origin: call.origin,
    state: call.state,
    disposition: call.disposition,
    scheduled_for: call.scheduled_for,
    compliance: call.compliance as ContactAttempt['compliance'],
    telephony: { ...call.telephony, provider_call_sid: call.provider_call_sid ?? call.telephony.provider_call_sid },
    questions: call.questions as ContactAttempt['questions'],
    context: call.context,
    created_at: call.created_at,
    updated_at: call.updated_at,
  };
}
