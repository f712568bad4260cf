/**
 * Text messages (SMS; see docs/decisions/messaging.md): the contract MessageSummary, the send request (beyond the
 * spec) and the inbound messaging webhook configuration. (shared/schemas/queue-bodies.ts holds
 * the queue messages of the workers, not these.)
 */
import * as z from 'zod';
import { MAX_VARIABLE_CHARS, MESSAGE_TEMPLATES } from '../policy/messages/sms-templates.js';
import { MESSAGE_STATUSES } from '../policy/messages/status.js';
import { complianceDecision } from './calls.js';
import { timestamp } from './common.js';
import { multiLineText, singleLineText } from './text.js';

export const MESSAGE_DIRECTIONS = ['outbound', 'inbound'] as const;
export const INBOUND_INTENTS = ['stop', 'help', 'other'] as const;
/** Twilio's concatenated-message limit. */
export const MAX_BODY_CHARS = 1600;

const FAILURE_CODES = [
  'dnc_hit',
  'scrub_blocked',
  'blocked_by_policy',
  'deferred',
  'a2p_registration_missing',
  'no_sms_number',
  'carrier_refused',
  'carrier_unavailable',
  'carrier_error',
  'send_unknown',
] as const;

const messageFailure = z
  .object({
    code: z
      .enum(FAILURE_CODES)
      .describe(
        'Why the message failed: a compliance block (dnc_hit, scrub_blocked, blocked_by_policy) or deferral (deferred), the sending number, or the carrier; send_unknown: the carrier call had no known outcome and no carrier SID arrived in time (never re-sent; a later carrier report still corrects it)',
      ),
    message: z.string(),
    next_permitted_at: timestamp.nullable().describe('deferred: the earliest instant a resend would be allowed'),
    carrier_error_code: z.string().nullable().describe("The carrier's own error code (Twilio ErrorCode), when it reported one"),
  })
  .meta({ id: 'MessageFailure' });
export type MessageFailure = z.infer<typeof messageFailure>;

export const messageSummary = z
  .object({
    id: z.string(),
    direction: z.enum(MESSAGE_DIRECTIONS),
    phone_number_id: z.string().nullable().describe('Our number that sent or received it'),
    contact_id: z.string().nullable().describe("Outbound: the contact addressed; inbound: the contact holding the sender's number, if any"),
    to_e164: z.string(),
    from_e164: z.string(),
    template_id: z.string().nullable(),
    body_rendered: z.string().nullable(),
    status: z.enum(MESSAGE_STATUSES),
    provider_sid: z.string().nullable(),
    origin_call_id: z.string().nullable().describe("Set when the voice runtime's send_sms tool sent it during that call"),
    inbound_intent: z.enum(INBOUND_INTENTS).nullable().describe('Inbound only: stop, help or other'),
    segments: z.int().describe('Segments as carriers count them (GSM-7 160/153, else UCS-2 70/67)'),
    compliance_profile_id: z.string().nullable().describe("Outbound: the profile the message was judged under (for send_sms, the call version's)"),
    compliance: complianceDecision.nullable().describe('Outbound: the compliance decision for the sms channel, verbatim'),
    failure: messageFailure.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'MessageSummary' });
export type MessageSummary = z.infer<typeof messageSummary>;

const variables = z
  .record(singleLineText({ min: 1, max: 64 }), multiLineText({ max: MAX_VARIABLE_CHARS }))
  .refine((v) => Object.keys(v).length <= 20, 'At most 20 variables');

export const messageCreateRequest = z
  .strictObject({
    contact_id: z.string().min(1).max(64).describe('The contact is the address: there is no raw destination'),
    compliance_profile_id: z.string().min(1).max(64).describe('What the text is about: judged under this profile for the sms channel'),
    body: multiLineText({ min: 1, max: MAX_BODY_CHARS, trim: true }).optional(),
    template_id: z.enum(MESSAGE_TEMPLATES.map((t) => t.id) as [string, ...string[]]).optional(),
    variables: variables.optional(),
  })
  .superRefine((b, ctx) => {
    if ((b.body === undefined) === (b.template_id === undefined))
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'Give either body, or template_id with its variables', params: { type: 'body_or_template' } });
    if (b.body !== undefined && b.variables !== undefined)
      ctx.addIssue({ code: 'custom', path: ['variables'], message: 'variables go with a template_id, not a body', params: { type: 'extra_forbidden' } });
  })
  .meta({
    id: 'MessageCreateRequest',
    description: 'To whom (a contact) and about what (a compliance profile), with a body, or a template_id and its variables',
  });

export const messagePath = z.object({ message_id: z.string().min(1).max(64) });

export const inboundMessagingWebhook = z
  .object({
    url: z.string().describe('Paste as the number\'s "A message comes in" webhook (POST)'),
    status_callback_url: z.string().describe('Where delivery status callbacks go (set per message by the platform)'),
  })
  .meta({ id: 'InboundMessagingWebhook' });
