/** Telephony account schemas (the contract "Telephony account", Part 3 verification_status). */
import * as z from 'zod';
import { TELEPHONY_PROVIDERS, type TelephonyProviderName, VERIFICATION_STATUSES } from '../policy/telephony-states.js';
import { timestamp } from './common.js';
import { singleLineText } from './text.js';

const TELEPHONY_MODES = ['byo', 'managed'] as const;
export type TelephonyMode = (typeof TELEPHONY_MODES)[number];

/** Twilio's own formats: an Account SID is AC + 32 hex; an auth token is 32 hex. */
const twilioCredentials = z
  .strictObject({
    account_sid: z.string().regex(/^AC[0-9a-fA-F]{32}$/, { message: 'account_sid must be a Twilio Account SID: AC followed by 32 hexadecimal characters' }),
    auth_token: z.string().regex(/^[0-9a-fA-F]{32}$/, { message: 'auth_token must be 32 hexadecimal characters' }),
  })
  .meta({ id: 'TwilioCredentials' });
export type TwilioCredentials = z.output<typeof twilioCredentials>;

const sanRef = z.strictObject({
  san: singleLineText({ min: 1, max: 64 }).describe('FTC Subscription Account Number for the National DNC Registry'),
  area_codes: z
    .array(z.string().regex(/^[2-9]\d{2}$/, { message: 'An area code is three digits, the first 2-9' }))
    .min(1)
    .max(1000)
    .refine((codes) => new Set(codes).size === codes.length, { message: 'Area codes must not repeat', params: { type: 'list_unique' } }),
});
const sanRefs = z.array(sanRef).max(50);

/** Credentials belong to BYO Twilio accounts only: managed accounts use the platform's, mock accounts have none. */
const credentialsRule = (mode: TelephonyMode, provider: TelephonyProviderName, hasCredentials: boolean): { type: string; msg: string } | undefined => {
  const needs = mode === 'byo' && provider === 'twilio';
  if (needs && !hasCredentials) return { type: 'missing', msg: 'credentials are required for a byo twilio account' };
  if (!needs && hasCredentials)
    return {
      type: 'credentials_not_allowed',
      msg: `credentials are not accepted for a ${mode} ${provider} account (${mode === 'managed' ? "it uses the platform's carrier account" : 'the sandbox needs none'})`,
    };
  return undefined;
};

export const telephonyAccountCreateRequest = z
  .strictObject({
    mode: z.enum(TELEPHONY_MODES),
    provider: z.enum(TELEPHONY_PROVIDERS),
    credentials: twilioCredentials.optional(),
    a2p_brand_ref: singleLineText({ min: 1, max: 100 }).optional(),
    ftc_san_refs: sanRefs.optional(),
  })
  .superRefine((body, ctx) => {
    const problem = credentialsRule(body.mode, body.provider, body.credentials !== undefined);
    if (problem) ctx.addIssue({ code: 'custom', path: ['credentials'], message: problem.msg, params: { type: problem.type } });
  })
  .meta({ id: 'TelephonyAccountCreateRequest' });

export const telephonyAccountPatchRequest = z
  .strictObject({
    credentials: twilioCredentials.optional().describe('New credentials (byo twilio only); the account returns to pending'),
    a2p_brand_ref: singleLineText({ min: 1, max: 100 }).nullable().optional(),
    ftc_san_refs: sanRefs.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'Name at least one field to change', params: { type: 'too_short', ctx: { min_length: 1 } } })
  .meta({ id: 'TelephonyAccountPatchRequest' });

export { credentialsRule };

export const telephonyAccountSummary = z
  .object({
    id: z.string(),
    mode: z.enum(TELEPHONY_MODES),
    provider: z.enum(TELEPHONY_PROVIDERS),
    credentials_stored: z.boolean(),
    cps_limit: z.int().nullable(),
    a2p_brand_ref: z.string().nullable(),
    ftc_san_refs: z.array(z.object({ san: z.string(), area_codes: z.array(z.string()) })),
    verification_status: z.enum(VERIFICATION_STATUSES),
    verified_at: timestamp.nullable(),
    telephony_minutes_metered: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'TelephonyAccountSummary' });

export const inboundVoiceWebhook = z.object({ url: z.string(), status_callback_url: z.string() }).meta({ id: 'InboundVoiceWebhook' });
