/** Compliance profiles (beyond the spec): what the compliance engine judges a call by. */
import * as z from 'zod';
import { callingWindowProblems, HHMM, LEGAL_WINDOW } from '../policy/calling-window.js';
import { timestamp } from './common.js';
import { singleLineText } from './text.js';

const CALL_PURPOSES = ['marketing', 'informational'] as const;

const hhmm = z.string().regex(HHMM, { message: 'Time must be HH:MM on a 24-hour clock' });

const callingWindow = z
  .strictObject({ start: hhmm, end: hhmm })
  .superRefine((w, ctx) => {
    for (const p of callingWindowProblems(w))
      ctx.addIssue({ code: 'custom', message: p.msg, path: p.field ? [p.field] : [], input: w, params: { type: p.type } });
  })
  .describe(
    `The tenant's own calling window in the callee's local time. It may only narrow the legal ${LEGAL_WINDOW.start}–${LEGAL_WINDOW.end} window (422 calling_window_too_wide otherwise); start < end.`,
  );

const fields = {
  name: singleLineText({ min: 1, max: 100 }),
  call_purpose: z.enum(CALL_PURPOSES),
  subject: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[a-z0-9_]+$/, { message: 'subject is lowercase letters, digits and _' })
    .describe('The consent-scope purpose these calls fall under: a consent covers the call only if its scope.purposes contains it'),
  seller_name: singleLineText({ min: 1, max: 200 }).describe('The seller a written consent must name when its scope names one'),
};

export const complianceProfileCreateRequest = z
  .strictObject({ ...fields, calling_window: callingWindow.optional() })
  .meta({ id: 'ComplianceProfileCreateRequest' });

export const complianceProfileUpdateRequest = z
  .strictObject({
    name: fields.name.optional(),
    call_purpose: fields.call_purpose.optional(),
    subject: fields.subject.optional(),
    seller_name: fields.seller_name.optional(),
    calling_window: callingWindow.nullable().optional(),
  })
  .meta({ id: 'ComplianceProfileUpdateRequest' });

export const complianceProfileResource = z
  .object({
    id: z.string(),
    name: z.string(),
    call_purpose: z.enum(CALL_PURPOSES),
    subject: z.string(),
    seller_name: z.string(),
    calling_window: z.object({ start: z.string(), end: z.string() }).nullable(),
    revision: z.int().describe('Bumped on every change; a published agent version keeps the frozen copy it was published with'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'ComplianceProfile' });

export type ComplianceProfile = z.infer<typeof complianceProfileResource>;
