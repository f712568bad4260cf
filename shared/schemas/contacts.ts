/** Contact and consent schemas (the contract: Contact, Contact create request, consent). */
import * as z from 'zod';
import { idPattern } from '../ids.js';
import { CONSENT_BASES } from '../policy/consent-strength.js';
import { isKnownZone } from '../time-zone.js';
import { errorWith, storableObject, timestamp } from './common.js';
import { contactPhone } from './phone.js';
import { multiLineText, singleLineText } from './text.js';

export const LEAD_STATUSES = ['new', 'working', 'qualified', 'unqualified', 'won', 'lost'] as const;

export const consentBasis = z.enum(CONSENT_BASES);
const leadStatus = z.enum(LEAD_STATUSES);

const timeZone = singleLineText({ min: 1, max: 64 }).refine(isKnownZone, { message: 'Unknown IANA time zone', params: { type: 'timezone_invalid' } });

/** The editable contact fields, shared by the create request and CSV import rows. */
export const contactFields = {
  first_name: singleLineText({ max: 200 }).optional(),
  last_name: singleLineText({ max: 200 }).optional(),
  company: singleLineText({ max: 200 }).optional(),
  title: singleLineText({ max: 200 }).optional(),
  email: z.email().max(320).optional(),
  timezone: timeZone.optional(),
  jurisdictions: z
    .array(singleLineText({ min: 1, max: 16 }))
    .max(16)
    .optional(),
  attributes: storableObject({ maxBytes: 32 * 1024, maxDepth: 8, what: 'attributes' }).optional(),
  lead_status: leadStatus.optional(),
  owner_user_id: z.string().regex(idPattern('usr'), { message: 'owner_user_id must be a user id (usr_…)' }).optional(),
  tags: z
    .array(singleLineText({ min: 1, max: 64 }))
    .max(32)
    .optional(),
};

const consentEvidence = z.strictObject({
  artifact_type: singleLineText({ min: 1, max: 100 }),
  artifact_ref: singleLineText({ min: 1, max: 2000 }),
  content_hash: z.string().regex(/^[0-9a-f]{64}$/, { message: 'content_hash must be 64 lowercase hexadecimal characters' }),
});

const consentScope = storableObject({ maxBytes: 16 * 1024, maxDepth: 8, minProperties: 1, what: 'scope' });

/** Closed: unknown keys are refused, so a caller can never name an attestation. */
export const consentInput = z
  .strictObject({
    consent_basis: consentBasis,
    captured_at: timestamp,
    scope: consentScope,
    evidence: consentEvidence,
    disclosure_text_shown: multiLineText({ max: 10000 }).optional(),
    expires_at: timestamp.optional(),
  })
  .superRefine((c, ctx) => {
    if (c.expires_at !== undefined && Date.parse(c.expires_at) < Date.parse(c.captured_at)) {
      ctx.addIssue({
        code: 'custom',
        path: ['expires_at'],
        input: c.expires_at,
        message: 'expires_at must not be earlier than captured_at',
        params: { type: 'expires_before_captured' },
      });
    }
  });

export const contactCreateRequest = z.strictObject({ phone_e164: contactPhone, ...contactFields, consent: consentInput }).meta({ id: 'ContactCreateRequest' });

export const contactResource = z
  .object({
    id: z.string(),
    phone_e164: z.string(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    company: z.string().nullable(),
    title: z.string().nullable(),
    email: z.string().nullable(),
    timezone: z.string().nullable(),
    best_consent_class: consentBasis.nullable(),
    do_not_call: z.boolean(),
    lead_status: leadStatus.nullable(),
    owner_user_id: z.string().nullable(),
    tags: z.array(z.string()),
    jurisdictions: z.array(z.string()),
    attributes: z.record(z.string(), z.unknown()),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Contact' });

const attestationResource = z
  .object({
    id: z.string(),
    source: z.enum(['api', 'import']),
    import_id: z.string().nullable(),
    signer_name: z.string().nullable(),
    signer_title: z.string().nullable(),
    affirmation: z.string(),
    created_at: timestamp,
  })
  .meta({ id: 'ConsentAttestation' });

export const consentRecordResource = z
  .object({
    id: z.string(),
    contact_id: z.string(),
    consent_basis: consentBasis,
    captured_at: timestamp,
    scope: z.record(z.string(), z.unknown()),
    evidence: consentEvidence,
    disclosure_text_shown: z.string().nullable(),
    expires_at: timestamp.nullable(),
    /** Derived at read time: expired records stay on file for audit but grant nothing. */
    valid: z.boolean(),
    attestation: attestationResource,
    created_at: timestamp,
  })
  .meta({ id: 'ConsentRecord' });

/** 409 `contact_exists`: the phone already names a contact of this tenant, which it names. */
export const contactExistsError = errorWith('ContactExistsError', {
  contact_id: z.string().describe('With `contact_exists`: the contact that holds the phone'),
});
