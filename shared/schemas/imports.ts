/**
 * CSV contact import schemas (the contract "Contact import", Part 3 import job status).
 * The choices the spec leaves open are written up in docs/imports.md.
 */
import * as z from 'zod';
import { storableObject, timestamp } from './common.js';
import { consentBasis } from './contacts.js';
import { multiLineText, singleLineText } from './text.js';

export const IMPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
const ON_DUPLICATE = ['reject', 'skip', 'update'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export type OnDuplicate = (typeof ON_DUPLICATE)[number];

/** Contact fields a CSV column may map to (besides `attributes.<key>`). */
export const IMPORT_TARGETS = [
  'phone_e164',
  'first_name',
  'last_name',
  'company',
  'title',
  'email',
  'timezone',
  'lead_status',
  'owner_user_id',
  'tags',
  'jurisdictions',
  'do_not_call',
] as const;
export type ImportTarget = (typeof IMPORT_TARGETS)[number];
/** `attributes.<key>`; `__proto__` is refused (the SDK's marshaller cannot store it as a key). */
const ATTRIBUTE_TARGET = /^attributes\.(?!__proto__$)(.{1,100})$/s;

/**
 * Size limits. The import runs inside the request, and API Gateway cuts an integration
 * off at 30 s; the function's own timeout is 29 s. See docs/imports.md for the measured
 * time of the largest accepted file.
 */
export const IMPORT_LIMITS = {
  /** UTF-8 bytes of `content` (Lambda's synchronous payload cap is 6 MB, JSON-escaped). */
  maxContentBytes: 4 * 1024 * 1024,
  maxDataRows: 10_000,
  maxMappedColumns: 100,
  /** Row-level reasons kept on the job (counts stay exact beyond it). */
  maxStoredErrors: 1_000,
  maxAffirmationChars: 10_000,
} as const;

/** Closed: signer_ip and signed_at are stamped by the server; a client-sent one is refused. */
const consentAttestationInput = z
  .strictObject({
    signer_name: singleLineText({ min: 1, max: 200 }),
    signer_title: singleLineText({ min: 1, max: 200 }),
    affirmation: multiLineText({ min: 1, max: IMPORT_LIMITS.maxAffirmationChars }),
    consent_basis: consentBasis,
  })
  .meta({ id: 'ImportConsentAttestationRequest' });

/** The size check never echoes the (large) content back in the 422. */
const contentSchema = z
  .string()
  .min(1)
  .superRefine((s, ctx) => {
    const bytes = Buffer.byteLength(s, 'utf8');
    if (bytes > IMPORT_LIMITS.maxContentBytes) {
      ctx.addIssue({
        code: 'custom',
        input: undefined,
        message: `content is ${bytes} bytes of UTF-8; at most ${IMPORT_LIMITS.maxContentBytes} (4 MiB) are accepted`,
        params: { type: 'content_too_large', ctx: { max_bytes: IMPORT_LIMITS.maxContentBytes } },
      });
    }
  });

const scopeSchema = storableObject({ maxBytes: 16 * 1024, maxDepth: 8, minProperties: 1, what: 'consent_scope' });

/**
 * column_mapping: CSV header → target. Checked here so every problem of the request is
 * reported in one 422: unknown targets, a target used twice, no phone_e164 target.
 */
const columnMapping = z.record(singleLineText({ min: 1, max: 255 }), z.string()).superRefine((mapping, ctx) => {
  const entries = Object.entries(mapping);
  if (entries.length > IMPORT_LIMITS.maxMappedColumns) {
    ctx.addIssue({
      code: 'custom',
      message: `column_mapping may map at most ${IMPORT_LIMITS.maxMappedColumns} columns`,
      params: { type: 'too_long', ctx: { max_length: IMPORT_LIMITS.maxMappedColumns } },
    });
  }
  const seen = new Map<string, string>();
  for (const [header, target] of entries) {
    const known = (IMPORT_TARGETS as readonly string[]).includes(target) || ATTRIBUTE_TARGET.test(target);
    if (!known) {
      ctx.addIssue({
        code: 'custom',
        path: [header],
        input: target,
        message: `Unknown import target '${target}'. Targets: ${IMPORT_TARGETS.join(', ')}, or attributes.<key>`,
        params: { type: 'import_target_unknown' },
      });
      continue;
    }
    const first = seen.get(target);
    if (first !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [header],
        input: target,
        message: `Target '${target}' is already mapped from column '${first}'; each target may be mapped once`,
        params: { type: 'import_target_duplicate' },
      });
      continue;
    }
    seen.set(target, header);
  }
  if (!entries.some(([, target]) => target === 'phone_e164')) {
    ctx.addIssue({ code: 'custom', message: 'column_mapping must map a column to phone_e164', params: { type: 'import_phone_target_missing' } });
  }
});

export const contactImportRequest = z
  .strictObject({
    file_name: singleLineText({ min: 1, max: 255 }),
    content: contentSchema.describe('The CSV text (RFC 4180; a header row; UTF-8 BOM allowed). At most 4 MiB of UTF-8 and 10,000 data rows.'),
    column_mapping: columnMapping.describe(
      "CSV header → target: phone_e164 (required), first_name, last_name, company, title, email, timezone, lead_status, owner_user_id, tags, jurisdictions (split on ';' or '|'), do_not_call (true/false, yes/no, 1/0: true adds the number to the suppression list), or attributes.<key>. Each target at most once; unmapped columns are ignored.",
    ),
    consent_attestation: consentAttestationInput,
    target_list_id: singleLineText({ min: 1, max: 64 }).optional(),
    list_name: singleLineText({ min: 1, max: 200, trim: true }).optional(),
    on_duplicate: z
      .enum(ON_DUPLICATE)
      .optional()
      .default('reject')
      .describe('What a row whose phone already names a contact (existing, or an earlier row of the file) does'),
    /**
     * Extension: the consent scope every imported row's consent record gets. Without it the
     * scope is {source: "import", affirmation: <the affirmation, verbatim>}: never broader
     * than what the signed request states.
     */
    consent_scope: scopeSchema
      .optional()
      .describe('Extension: the scope of every imported consent. Default {"source": "import", "affirmation": <the affirmation>}'),
  })
  .superRefine((body, ctx) => {
    if (body.target_list_id !== undefined && body.list_name !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['list_name'],
        message: 'Give target_list_id or list_name, not both',
        params: { type: 'mutually_exclusive' },
      });
    }
  })
  .meta({ id: 'ContactImportRequest' });

export type ContactImportRequest = z.output<typeof contactImportRequest>;

const importRowError = z
  .object({
    row: z.int().describe('1-based data row number: the header row is not counted, blank lines are skipped'),
    line: z.int().nullable().describe('1-based line of the file where the row starts (the header is line 1)'),
    field: z.string().nullable(),
    type: z.string(),
    msg: z.string(),
  })
  .meta({ id: 'ImportRowError' });

const importConsentAttestation = z
  .object({
    signer_name: z.string(),
    signer_title: z.string(),
    affirmation: z.string(),
    consent_basis: consentBasis,
    signer_ip: z.string().nullable().describe('Stamped by the server from the request; never taken from the client'),
    signed_at: timestamp.describe('Stamped by the server; never taken from the client'),
  })
  .meta({ id: 'ImportConsentAttestation' });

export const importJobSummary = z
  .object({
    id: z.string(),
    status: z.enum(IMPORT_STATUSES),
    file_name: z.string(),
    file_uri: z.string(),
    file_sha256: z.string(),
    column_mapping: z.record(z.string(), z.string()),
    target_list_id: z.string().nullable(),
    consent_attestation: importConsentAttestation,
    attestation_id: z.string(),
    consent_scope: z.record(z.string(), z.unknown()),
    on_duplicate: z.enum(ON_DUPLICATE),
    rows_total: z.int(),
    rows_accepted: z.int(),
    rows_rejected: z.int(),
    rows_skipped: z.int(),
    errors_truncated: z.boolean(),
    failure_reason: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'ImportJobSummary' });

export const importJobResource = importJobSummary
  .extend({ errors: z.array(importRowError).describe('Row-level rejections in row order, the first 1,000 at most') })
  .meta({ id: 'ImportJob' });

export type ImportJobResource = z.output<typeof importJobResource>;
export type ImportJobSummaryResource = z.output<typeof importJobSummary>;
export type ImportRowError = z.output<typeof importRowError>;
