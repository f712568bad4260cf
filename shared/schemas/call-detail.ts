/**
 * The call detail (the contract "Call detail"): GET /v1/calls/{call_id} and the items of
 * GET /v1/calls. Outbound and inbound calls share it; fields that do not apply are null.
 */
import * as z from 'zod';
import { successEvaluation } from '../policy/analysis/evaluation.js';
import { CALL_STATES } from '../policy/call-state/machine.js';
import { errorWith, timestamp } from './common.js';
import { actionConfirmation, outcomeBody } from './runtime-events.js';

export const DISPOSITIONS = [
  'completed_goal',
  'completed_no_goal',
  'answered_incomplete',
  'voicemail_machine',
  'no_answer',
  'busy',
  'failed',
  'opt_out',
  'wrong_person_opt_out',
  'dnc_hit',
  'scrub_blocked',
  'blocked_by_policy',
  'abandoned_no_slot',
  'inbound_unavailable',
  'browser_unavailable',
] as const;
const DISPOSITION_SET_BY = ['carrier', 'agent_llm', 'compliance', 'system'] as const;
export const CALL_DIRECTIONS = ['outbound', 'inbound'] as const;

const fitReview = z
  .object({
    status: z
      .string()
      .describe(
        'unreviewed until a qualification review of the current answers exists (an amendment after a review makes it unreviewed again, latest_review kept)',
      ),
    reason_truncated: z.boolean(),
    latest_review: z.object({ decision: z.string() }).passthrough().nullable(),
  })
  .meta({ id: 'FitReview' });

const qualificationReviewView = z
  .object({
    action_id: z.string().describe("The runtime's record_qualification action id"),
    revision: z.int().min(1).describe('Bumped on every amendment of the answers and every saved review'),
    answers: z.record(z.string(), z.string()),
    qualified: z.boolean().nullable(),
    fit_review: z.object({
      status: z
        .string()
        .describe(
          'The latest decision (good_fit, poor_fit, needs_more_info) while it judges the current answers; unreviewed before any review and again once the answers were amended after it (latest_review then stays, its revision below this one)',
        ),
      reason: z.string().nullable().describe('The latest review reason, shortened (reason_truncated)'),
      reason_truncated: z.boolean(),
      latest_review: z.object({ id: z.string(), decision: z.string(), revision: z.int(), reviewer_ref: z.string(), created_at: timestamp }).nullable(),
    }),
    qualification_coverage: z.object({
      status: z.enum(['available', 'unavailable']),
      questions: z.array(z.object({ question_id: z.string(), answer_status: z.enum(['answered', 'unanswered']) })),
    }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'QualificationReceipt' });

const recordedResponseView = z
  .object({
    event_id: z.string(),
    kind: z.enum(['objective', 'question']),
    question_id: z.string(),
    value: z.string(),
    value_truncated: z.boolean(),
    note: z.string().nullable(),
    note_truncated: z.boolean(),
    fit_review: fitReview,
    at: timestamp,
  })
  .meta({ id: 'RecordedResponse' });

const conversationActionView = z
  .object({
    id: z.string(),
    event_id: z.string(),
    kind: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    action_confirmation: z
      .object({ kind: actionConfirmation.shape.kind, response: actionConfirmation.shape.response, method: z.string(), policy_version: z.int().nullable() })
      .nullable(),
    at: timestamp,
  })
  .meta({ id: 'ConversationAction' });

const callTelephony = z
  .object({
    provider: z.string().nullable().describe('null on an outbound call no number could place yet (deferred or blocked for no_caller_number)'),
    telephony_account_id: z.string().nullable().describe('null on an outbound call no number could place yet'),
    phone_number_id: z.string().nullable(),
    from_e164: z.string().nullable().describe('Outbound: our own number (the caller id; null while no number can place the call); inbound: the caller'),
    to_e164: z.string(),
    provider_call_sid: z.string().nullable().describe("The carrier's call id; null until dialled"),
    mock: z.boolean().describe('true for sandbox (mock) accounts'),
  })
  .meta({ id: 'CallTelephony' });

export const callDetail = z
  .object({
    id: z.string(),
    direction: z.enum(CALL_DIRECTIONS),
    state: z.enum(CALL_STATES),
    end_reason: z.string().nullable(),
    disposition: z.enum(DISPOSITIONS).nullable(),
    disposition_set_by: z.enum(DISPOSITION_SET_BY).nullable(),
    attempt_id: z.string().nullable().describe('The contact attempt (outbound); null for inbound calls'),
    contact_id: z.string().nullable(),
    agent_id: z.string().nullable(),
    agent_version_id: z.string().nullable().describe('The pinned agent version (its rubric scores the call)'),
    campaign_id: z.string().nullable(),
    origin: z.string().nullable().describe('api for calls queued through POST /v1/calls; null for inbound calls'),
    telephony: callTelephony,
    scheduled_for: timestamp.nullable(),
    started_at: timestamp.nullable().describe('Outbound: when the carrier was asked to dial; inbound: when the call arrived'),
    answered_at: timestamp.nullable(),
    ended_at: timestamp.nullable(),
    duration_seconds: z.int().nullable(),
    compliance: z.record(z.string(), z.unknown()).nullable().describe('The ComplianceDecision made at queue time, verbatim; null for inbound calls'),
    questions: z.array(z.record(z.string(), z.unknown())),
    context: z.record(z.string(), z.string()),
    recorded_response_count: z.int().min(0),
    recorded_responses: z.array(recordedResponseView),
    conversation_actions: z.array(conversationActionView),
    outcome: outcomeBody.nullable().describe('The structured outcome the runtime recorded, if any'),
    opted_out: z.boolean(),
    qualification_reviews: z
      .record(z.string(), qualificationReviewView)
      .describe(
        'Keyed by receipt id (the workflow outcome id POST /v1/workflow-outcomes/{action_id}/fit-reviews takes); {} when the call recorded no qualification',
      ),
    analysis: z
      .object({ success_evaluation: successEvaluation })
      .nullable()
      .describe('null until scored, or when the stored verdict was written by a results schema this deployment cannot read'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'CallDetail' });
export type CallDetail = z.infer<typeof callDetail>;

export const callPath = z.object({ call_id: z.string().min(1).max(64) });

/** One turn of a call's transcript (GET /v1/calls/{call_id}/transcript), as the voice runtime reported it. */
export const transcriptTurn = z
  .object({
    speaker: z.enum(['agent', 'contact']),
    text: z.string().describe('What was said; an interrupted agent turn holds what was heard before the interruption'),
    started_at: timestamp.describe('When the turn happened, by the runtime clock'),
    latency_ms: z
      .int()
      .nullable()
      .describe('Agent turns: from the contact falling silent to the agent starting to speak; null for contact turns or when not reported'),
    interrupted: z.boolean().describe('The contact talked over this agent turn'),
    model: z.string().nullable().describe('Agent turns: the model that produced the reply, when reported'),
    passage_ids: z.array(z.string()).describe('Agent turns: the knowledge-pack passages the reply relied on (empty when none)'),
  })
  .meta({ id: 'TranscriptTurn', description: 'The first agent turn is the disclosure greeting' });
export type TranscriptTurn = z.infer<typeof transcriptTurn>;

/** 409 `call_not_cancellable`, with the state that refused it. */
export const callNotCancellableError = errorWith('CallNotCancellableError', {
  state: z.enum(CALL_STATES).describe("With `call_not_cancellable`: the call's state"),
});
