/** Number pools and campaigns (see docs/decisions/campaigns.md; the contract CampaignSummary, CampaignOutcomeSummary). */
import * as z from 'zod';
import { CALL_STATES } from '../policy/call-state/machine.js';
import { CAMPAIGN_STATUSES } from '../policy/campaigns/rules.js';
import { DISPOSITIONS } from './call-detail.js';
import { errorWith, timestamp } from './common.js';
import { singleLineText } from './text.js';

const id = singleLineText({ min: 1, max: 64 });

export const poolPath = z.object({ pool_id: id });
export const campaignPath = z.object({ campaign_id: id });

export const numberPoolCreateRequest = z
  .strictObject({ name: singleLineText({ min: 1, max: 100 }), phone_number_ids: z.array(id).min(1).max(100) })
  .meta({ id: 'NumberPoolCreateRequest' });
export const numberPoolUpdateRequest = z
  .strictObject({ name: singleLineText({ min: 1, max: 100 }).optional(), phone_number_ids: z.array(id).min(1).max(100).optional() })
  .meta({ id: 'NumberPoolUpdateRequest' });
export const numberPoolResource = z
  .object({ id: z.string(), name: z.string(), phone_number_ids: z.array(z.string()), created_at: timestamp, updated_at: timestamp })
  .meta({ id: 'NumberPool' });
export type NumberPool = z.infer<typeof numberPoolResource>;

export const campaignCreateRequest = z
  .strictObject({
    name: singleLineText({ min: 1, max: 200 }),
    agent_id: id.describe('A published agent; its latest version is pinned when the campaign starts'),
    target: z.strictObject({ contact_list_id: id }),
    number_pool_id: id,
    telephony_account_id: id.describe('The account every pool number must be on; its cps_limit is shared with single calls'),
    compliance_profile_id: id.optional().describe("Defaults to the agent's; when given it must be the agent's (docs/decisions.md)"),
    max_attempts_per_contact: z.int().min(1).max(10).default(1),
    concurrency_cap: z.int().min(1).max(1000).nullable().default(null),
    retry_after_minutes: z
      .int()
      .min(0)
      .max(1440)
      .default(240)
      .describe('After an unanswered attempt (no_answer, busy, machine); 0 = as soon as the windows allow'),
  })
  .meta({ id: 'CampaignCreateRequest' });
export type CampaignCreateRequest = z.output<typeof campaignCreateRequest>;

const scrubCounts = z
  .object({ allowed: z.int(), deferred: z.int(), blocked: z.int(), by_disposition: z.record(z.string(), z.int()), by_reason: z.record(z.string(), z.int()) })
  .meta({ id: 'CampaignScrubCounts' });

export const campaignSummary = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.enum(CAMPAIGN_STATUSES),
    agent_definition_id: z.string(),
    agent_version_id: z.string().nullable(),
    target: z.object({ contact_list_id: z.string() }),
    number_pool_id: z.string(),
    telephony_account_id: z.string(),
    compliance_profile_id: z.string().nullable(),
    scrub_run_id: z.string().nullable(),
    scrub: scrubCounts.nullable().describe('Counts of the scrub run by outcome, disposition and reason code (beyond the spec)'),
    max_attempts_per_contact: z.int(),
    concurrency_cap: z.int().nullable(),
    retry_after_minutes: z.int(),
    contacts_total: z.int(),
    dialed: z.int(),
    connected: z.int(),
    completed_goal: z.int(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'CampaignSummary' });
export type CampaignSummary = z.infer<typeof campaignSummary>;

const SHIFT_RESPONSES = ['confirmed', 'declined', 'tentative', 'unreachable'] as const;
const shiftConfirmation = z
  .object({
    kind: z.literal('shift_confirmation'),
    id: z.string(),
    response: z.enum(SHIFT_RESPONSES),
    shift_ref: z.string().nullable(),
    site: z.string().nullable(),
    shift_starts_at: timestamp.nullable(),
  })
  .meta({ id: 'ShiftConfirmationOutcome' });
const appointmentOutcome = z
  .object({
    kind: z.literal('appointment'),
    id: z.string(),
    status: z.enum(['booked', 'rescheduled', 'cancelled', 'not_booked']),
    starts_at: timestamp.nullable(),
    duration_minutes: z.int().nullable(),
  })
  .meta({ id: 'AppointmentOutcome' });
const surveyResponseOutcome = z
  .object({ kind: z.literal('survey_response'), id: z.string(), complete: z.boolean(), answers: z.record(z.string(), z.string()) })
  .meta({ id: 'SurveyResponseOutcome' });
/** Every structured outcome a call records (the contract shows shift_confirmation; appointment and survey_response rows are shown the same way). */
const rowOutcomeSchema = z.discriminatedUnion('kind', [shiftConfirmation, appointmentOutcome, surveyResponseOutcome]);

export const campaignOutcomeSummary = z
  .object({
    contact_id: z.string(),
    contact_phone: z.string(),
    attempts: z.int(),
    latest_attempt_id: z.string(),
    latest_attempt_state: z.enum(CALL_STATES),
    disposition: z.enum(DISPOSITIONS).nullable(),
    sub_code: z.string().nullable(),
    call_id: z.string().nullable(),
    outcome: rowOutcomeSchema
      .nullable()
      .describe('The structured outcome the latest attempt recorded (shift_confirmation, appointment or survey_response); null when none'),
    last_activity_at: timestamp,
  })
  .meta({ id: 'CampaignOutcomeSummary' });
export type CampaignOutcomeSummary = z.infer<typeof campaignOutcomeSummary>;

export const campaignStatusConflict = errorWith('CampaignStatusConflict', { status: z.enum(CAMPAIGN_STATUSES) });
