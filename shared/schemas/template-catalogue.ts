/**
 * The platform's agent templates, as code. `seedPlatformData` writes them on every start
 * (and `npm run admin -- seed` on AWS): unchanged content writes nothing, changed content
 * becomes a new `version` and the old version stays readable (`?version=N`).
 *
 * Edit a template's content here to publish its next version; change `status` to
 * deprecate it (status is not content: no new version).
 */

import type { Objective } from '../policy/rubric.js';
import type { TemplateDefinition } from './agent-templates.js';

const SCHEMA = 'https://json-schema.org/draft/2020-12/schema';
const ALWAYS = ['record_optout', 'end_call'] as const;

const payload = (title: string, properties: Record<string, unknown>, required: string[]) => ({
  $schema: SCHEMA,
  title,
  type: 'object',
  additionalProperties: false,
  required: ['call_id', 'contact_id', ...required],
  properties: { call_id: { type: 'string' }, contact_id: { type: ['string', 'null'] }, ...properties },
});

const obj = (id: string, description: string, required = true): Objective => ({ id, description, required });

/** What the voice runtime records for an appointment outcome (shared/schemas/runtime-events.ts `status`), each expressible here. */
const APPOINTMENT_STATUSES = ['booked', 'rescheduled', 'cancelled', 'not_booked'];

const appointmentPayload = (title: string) =>
  payload(
    title,
    {
      outcome: { enum: [...APPOINTMENT_STATUSES, 'declined', 'callback_requested', 'no_decision'] },
      appointment: {
        type: ['object', 'null'],
        required: ['starts_at', 'duration_minutes'],
        properties: {
          starts_at: { type: 'string', format: 'date-time' },
          duration_minutes: { type: 'integer', minimum: 5, maximum: 240 },
          timezone: { type: 'string' },
        },
      },
    },
    ['outcome', 'appointment'],
  );

export const TEMPLATES: readonly TemplateDefinition[] = [
  {
    id: 'tpl_sdr_outbound',
    name: 'Outbound SDR: qualify and book a meeting',
    use_case: 'sdr',
    outcome_type: 'appointment',
    tool_grants: ['check_calendar', 'book_meeting', 'record_qualification', 'update_lead', 'schedule_callback', 'transfer_to_human', ...ALWAYS],
    webhook_payload_schema: appointmentPayload('SDR meeting outcome'),
    objectives: [
      obj('confirm_identity', 'Confirm you are speaking with the intended contact'),
      obj('qualify', 'Ask the qualification questions and record the answers'),
      obj('book_meeting', 'Offer open slots and book a meeting with a rep'),
      obj('capture_callback', 'If now is a bad time, schedule a callback', false),
    ],
    status: 'published',
  },
  {
    id: 'tpl_sdr_legacy',
    name: 'Outbound SDR (legacy script)',
    use_case: 'sdr',
    outcome_type: 'appointment',
    tool_grants: ['check_calendar', 'book_meeting', ...ALWAYS],
    webhook_payload_schema: appointmentPayload('SDR meeting outcome'),
    objectives: [obj('book_meeting', 'Book a meeting with a rep')],
    status: 'deprecated',
  },
  {
    id: 'tpl_staffing_shift_confirmation',
    name: 'Staffing: confirm an upcoming shift',
    use_case: 'staffing',
    outcome_type: 'shift_confirmation',
    tool_grants: ['confirm_shift', 'record_shift_response', 'send_sms', 'transfer_to_human', ...ALWAYS],
    // The shift_confirmation outcome as the contract shows it (Campaign: CampaignOutcomeSummary): response
    // confirmed | declined | tentative | unreachable, shift_ref, site, shift_starts_at.
    webhook_payload_schema: payload(
      'Shift confirmation',
      {
        shift_ref: { type: 'string' },
        response: { enum: ['confirmed', 'declined', 'tentative', 'unreachable'] },
        site: { type: ['string', 'null'] },
        shift_starts_at: { type: 'string', format: 'date-time' },
        reason: { type: ['string', 'null'], maxLength: 1000 },
      },
      ['shift_ref', 'response'],
    ),
    objectives: [
      obj('identify_worker', 'Confirm you are speaking with the assigned worker'),
      obj('state_shift', 'State the shift: site, date, start and end time'),
      obj('record_response', 'Record whether the worker confirms, declines or needs a change'),
      obj('send_details', 'Offer to text the shift details', false),
    ],
    status: 'published',
  },
  {
    id: 'tpl_survey_phone',
    name: 'Phone survey',
    use_case: 'survey',
    outcome_type: 'survey_response',
    tool_grants: ['record_survey_answer', 'schedule_callback', ...ALWAYS],
    // As the contract shows a SurveyResponse: answers (an object: question id → answer), completion_status.
    webhook_payload_schema: payload(
      'Survey response',
      {
        survey_id: { type: 'string' },
        completion_status: { type: 'string', description: 'complete, or partial when the person stopped before the last question' },
        answers: { type: 'object', additionalProperties: { type: 'string' } },
      },
      ['completion_status', 'answers'],
    ),
    objectives: [
      obj('consent_to_survey', 'Ask whether the person has a few minutes for the survey'),
      obj('ask_questions', 'Ask each survey question in order and record every answer'),
      obj('thank', 'Thank the person and close the call', false),
    ],
    status: 'published',
  },
  {
    id: 'tpl_reminder_appointment',
    name: 'Appointment reminder: confirm or reschedule',
    use_case: 'reminder',
    outcome_type: 'appointment',
    tool_grants: ['check_calendar', 'book_meeting', 'send_sms', 'transfer_to_human', ...ALWAYS],
    webhook_payload_schema: appointmentPayload('Appointment reminder outcome'),
    objectives: [
      obj('remind', 'Remind the contact of the appointment date, time and place'),
      obj('confirm_or_reschedule', 'Record a confirmation, or book a new time if the contact cannot make it'),
      obj('text_confirmation', 'Offer a text with the details', false),
    ],
    status: 'published',
  },
  {
    id: 'tpl_custom_blank',
    name: 'Custom agent (blank)',
    use_case: 'custom',
    outcome_type: 'none',
    tool_grants: ['custom_webhook', 'transfer_to_human', ...ALWAYS],
    webhook_payload_schema: payload('Custom call outcome', { data: { type: 'object' } }, []),
    objectives: [obj('goal', 'Reach the goal described in the agent persona')],
    status: 'published',
  },
  {
    id: 'tpl_receptionist_front_desk',
    name: 'Receptionist: answer, take messages, book visits',
    use_case: 'receptionist',
    outcome_type: 'appointment',
    tool_grants: ['take_message', 'check_calendar', 'book_meeting', 'open_ticket', 'verify_identity', 'transfer_to_human', ...ALWAYS],
    webhook_payload_schema: payload(
      'Receptionist call outcome',
      {
        outcome: { enum: ['message_taken', ...APPOINTMENT_STATUSES, 'transferred', 'ticket_opened', 'no_action'] },
        message: {
          type: ['object', 'null'],
          required: ['caller_name', 'callback_number', 'body'],
          properties: { caller_name: { type: 'string' }, callback_number: { type: 'string' }, body: { type: 'string', maxLength: 4000 } },
        },
        appointment: { type: ['object', 'null'], properties: { starts_at: { type: 'string', format: 'date-time' }, duration_minutes: { type: 'integer' } } },
      },
      ['outcome'],
    ),
    objectives: [
      obj('greet', 'Greet the caller with the business name'),
      obj('understand_need', 'Find out why the person is calling'),
      obj('resolve', 'Take a message, book a visit or transfer to a person, as the caller needs'),
    ],
    status: 'published',
  },
  {
    id: 'tpl_recruiting_screen',
    name: 'Recruiting: screen a candidate and book an interview',
    use_case: 'recruiting',
    outcome_type: 'appointment',
    tool_grants: ['record_qualification', 'check_calendar', 'book_meeting', 'send_sms', 'schedule_callback', ...ALWAYS],
    webhook_payload_schema: appointmentPayload('Candidate screen outcome'),
    objectives: [
      obj('confirm_interest', 'Confirm the candidate is still interested in the role'),
      obj('screen', 'Ask the screening questions and record the answers'),
      obj('book_interview', 'Book an interview slot', false),
    ],
    status: 'published',
  },
];
