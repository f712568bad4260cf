/**
 * The call detail as the API shows it (the contract "Call detail"), from a stored call
 * record (outbound or inbound; the runtime's aggregates are absent until its first event).
 * Pure. `analysis` goes through readStoredAnalysis: a stored verdict of a results schema this
 * deployment cannot read is shown as null, and the detail still renders.
 */
import { readStoredAnalysis } from '../policy/analysis/stored.js';
import { type QualificationOutcome, qualificationView, responseFitReview } from '../policy/workflow/qualification.js';
import type { CallRecordWithEvents } from '../schemas/call-aggregates.js';
import type { CallDetail } from '../schemas/call-detail.js';

type Stored = CallRecordWithEvents;

/** `qualifications`: the call's record_qualification outcomes (repositories/workflow-outcomes.ts), oldest first. */
export function presentCall(call: Stored, qualifications: readonly QualificationOutcome[] = []): CallDetail {
  const outbound = call.direction === 'outbound';
  const t = call.telephony;
  const evaluation = readStoredAnalysis(call.analysis);
  const outcome = call.outcome ? (({ event_id: _e, at: _a, ...body }) => body)(call.outcome) : null;
  return {
    id: call.id,
    direction: call.direction,
    state: call.state,
    end_reason: call.end_reason ?? null,
    disposition: (call.disposition ?? null) as CallDetail['disposition'],
    disposition_set_by: call.disposition_set_by ?? null,
    attempt_id: call.attempt_id ?? null,
    contact_id: call.contact_id ?? null,
    agent_id: call.agent_id ?? call.inbound?.agent_id ?? null,
    agent_version_id: call.agent_version_id ?? call.inbound?.agent_version_id ?? null,
    campaign_id: call.campaign_id ?? null,
    origin: call.origin ?? null,
    telephony: {
      provider: t?.provider ?? call.provider ?? null,
      telephony_account_id: t?.telephony_account_id ?? call.telephony_account_id ?? null,
      phone_number_id: t?.phone_number_id ?? call.phone_number_id ?? null,
      from_e164: t?.from_e164 ?? call.from_e164 ?? null,
      to_e164: call.to_e164,
      provider_call_sid: call.provider_call_sid || t?.provider_call_sid || null,
      mock: t?.mock ?? call.provider === 'mock',
    },
    scheduled_for: call.scheduled_for ?? null,
    started_at: outbound ? (call.dialing_at ?? null) : call.created_at,
    answered_at: call.answered_at ?? null,
    ended_at: call.ended_at ?? null,
    duration_seconds: call.duration_seconds ?? null,
    compliance: (call.compliance ?? null) as Record<string, unknown> | null,
    questions: (call.questions ?? []) as unknown as Record<string, unknown>[],
    context: call.context ?? {},
    recorded_response_count: call.recorded_response_count ?? 0,
    recorded_responses: (call.recorded_responses ?? []).map((r) => ({
      event_id: r.event_id,
      kind: r.kind,
      question_id: r.question_id,
      value: r.value,
      value_truncated: r.value_truncated,
      note: r.note,
      note_truncated: r.note_truncated,
      fit_review: qualifications.length ? responseFitReview(r.question_id, qualifications) : r.fit_review,
      at: r.at,
    })),
    conversation_actions: (call.conversation_actions ?? []).map((a) => ({
      id: a.id,
      event_id: a.event_id,
      kind: a.kind,
      arguments: a.arguments,
      action_confirmation: a.action_confirmation
        ? {
            kind: a.action_confirmation.kind,
            response: a.action_confirmation.response,
            method: a.action_confirmation.method ?? 'voice',
            policy_version: a.action_confirmation.policy_version ?? null,
          }
        : null,
      at: a.at,
    })),
    outcome: outcome as CallDetail['outcome'],
    opted_out: call.opted_out ?? false,
    qualification_reviews: Object.fromEntries(qualifications.map((q) => [q.id, qualificationView(q)])) as CallDetail['qualification_reviews'],
    analysis: evaluation ? { success_evaluation: evaluation } : null,
    created_at: call.created_at,
    updated_at: call.updated_at,
  };
}

/** A presented call with its qualification outcomes applied (lists, which present before they read them). */
export function withQualifications(detail: CallDetail, qualifications: readonly QualificationOutcome[]): CallDetail {
  if (!qualifications.length) return detail;
  return {
    ...detail,
    recorded_responses: detail.recorded_responses.map((r) => ({ ...r, fit_review: responseFitReview(r.question_id, qualifications) })),
    qualification_reviews: Object.fromEntries(qualifications.map((q) => [q.id, qualificationView(q)])) as CallDetail['qualification_reviews'],
  };
}
