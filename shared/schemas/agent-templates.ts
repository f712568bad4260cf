/** Template schemas (the contract: Template; Part 4: Agents and templates). */
import * as z from 'zod';
import { type Objective, objective } from '../policy/rubric.js';
import { timestamp } from './common.js';

export const USE_CASES = ['sdr', 'staffing', 'survey', 'reminder', 'custom', 'receptionist', 'recruiting'] as const;
export const OUTCOME_TYPES = ['appointment', 'shift_confirmation', 'survey_response', 'none'] as const;
export const TOOL_GRANTS = [
  'check_calendar',
  'book_meeting',
  'send_sms',
  'send_verification_code',
  'verify_identity',
  'record_sms_consent',
  'take_message',
  'open_ticket',
  'update_lead',
  'record_survey_answer',
  'confirm_shift',
  'record_shift_response',
  'record_qualification',
  'schedule_callback',
  'transfer_to_human',
  'record_optout',
  'end_call',
  'custom_webhook',
] as const;
export const TEMPLATE_STATUSES = ['draft', 'published', 'deprecated'] as const;

export const useCase = z.enum(USE_CASES);
const outcomeType = z.enum(OUTCOME_TYPES);
export const toolGrant = z.enum(TOOL_GRANTS);

/** The fields `content_hash` covers, in the canonical rule of shared/canonical-json.ts. */
export const TEMPLATE_HASHED_FIELDS = ['name', 'use_case', 'version', 'outcome_type', 'tool_grants', 'webhook_payload_schema', 'objectives'] as const;

const summaryShape = {
  id: z.string(),
  name: z.string(),
  use_case: useCase,
  version: z.int(),
  outcome_type: outcomeType,
  tool_grants: z.array(toolGrant),
  webhook_payload_schema: z.record(z.string(), z.unknown()),
  content_hash: z.string().describe(`Lowercase hex SHA-256 of the compact JSON, keys sorted at every level, of exactly: ${TEMPLATE_HASHED_FIELDS.join(', ')}`),
  status: z.enum(TEMPLATE_STATUSES),
  created_at: timestamp,
  updated_at: timestamp,
};

export const templateSummary = z.object(summaryShape).meta({ id: 'TemplateSummary' });
export const templateResource = z.object({ ...summaryShape, objectives: z.array(objective) }).meta({ id: 'TemplateResource' });

export type TemplateResource = z.infer<typeof templateResource>;

/** A template as the platform's code defines it (seeded into the table, versioned by content). */
export interface TemplateDefinition {
  id: string;
  name: string;
  use_case: (typeof USE_CASES)[number];
  outcome_type: (typeof OUTCOME_TYPES)[number];
  tool_grants: (typeof TOOL_GRANTS)[number][];
  webhook_payload_schema: Record<string, unknown>;
  objectives: Objective[];
  status: (typeof TEMPLATE_STATUSES)[number];
}
