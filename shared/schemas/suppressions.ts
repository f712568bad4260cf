/** The suppression list (internal do-not-call): one per tenant, keyed by phone number, shared by voice and SMS. */
import * as z from 'zod';
import { errorWith, timestamp } from './common.js';
import { contactPhone } from './phone.js';
import { multiLineText } from './text.js';

export const SUPPRESSION_REASONS = ['opt_out', 'wrong_person', 'manual', 'complaint'] as const;
export const SUPPRESSION_SOURCES = ['api', 'call', 'sms', 'import'] as const;
export const SUPPRESSION_STATUSES = ['active', 'lifted'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];
export type SuppressionSource = (typeof SUPPRESSION_SOURCES)[number];

const note = multiLineText({ min: 1, max: 1000, trim: true });

export const suppressionCreateRequest = z
  .strictObject({
    phone_e164: contactPhone,
    reason: z.enum(SUPPRESSION_REASONS),
    note: note.optional(),
  })
  .meta({ id: 'SuppressionCreateRequest' });

export const suppressionLiftRequest = z
  .strictObject({ note: note.describe('Why the number may be called again (kept on the entry)') })
  .meta({ id: 'SuppressionLiftRequest' });

/** The path parameter: API Gateway (and the local router) hand it over URL-decoded, so `%2B1…` arrives as `+1…`. */
export const suppressionPath = z.object({ phone_e164: contactPhone });

export const suppressionResource = z
  .object({
    id: z.string(),
    phone_e164: z.string(),
    status: z.enum(SUPPRESSION_STATUSES).describe('active while it suppresses the number; lifted entries are kept as history'),
    reason: z.enum(SUPPRESSION_REASONS),
    note: z.string().nullable(),
    source: z.enum(SUPPRESSION_SOURCES).describe('What made the entry: the API, a call (opt-out), an SMS (STOP) or a contact import'),
    source_id: z.string().nullable().describe('The id of what made it: the API key (api), the call, the message, or the import'),
    created_at: timestamp,
    lifted_at: timestamp.nullable(),
    lift_note: z.string().nullable(),
    lifted_by: z.string().nullable().describe('The API key that lifted it'),
  })
  .meta({ id: 'Suppression' });

export type Suppression = z.infer<typeof suppressionResource>;

/** 409 `already_suppressed`, naming the active entry. */
export const alreadySuppressedError = errorWith('AlreadySuppressedError', {
  suppression_id: z.string().describe('With `already_suppressed`: the active entry'),
});
