/** Phone number schemas (the contract "Phone number", Part 3 status and reputation_state). */
import * as z from 'zod';
import { INBOUND_ROUTE_MODES, NUMBER_CAPABILITIES, NUMBER_STATUSES, REPUTATION_STATES } from '../policy/telephony-states.js';
import { timestamp } from './common.js';
import { numberE164 } from './phone.js';
import { multiLineText, singleLineText } from './text.js';

const capabilities = z
  .array(z.enum(NUMBER_CAPABILITIES))
  .min(1)
  .max(2)
  .refine((c) => new Set(c).size === c.length, { message: 'Capabilities must not repeat', params: { type: 'list_unique' } });

const greeting = multiLineText({ min: 1, max: 1000, trim: true }).describe('Read to callers before the recording starts');

export const phoneNumberCreateRequest = z
  .strictObject({
    phone_e164: numberE164,
    telephony_account_id: z.string().min(1).max(64),
    capabilities: capabilities.default(['voice']),
    provider_sid: singleLineText({ min: 1, max: 64 }).describe("The carrier's id of a number the account already owns; omit to buy the number").optional(),
    a2p_campaign_ref: singleLineText({ min: 1, max: 100 }).optional(),
    daily_dial_cap: z.int().min(1).max(100_000).optional(),
  })
  .meta({ id: 'PhoneNumberCreateRequest' });

/** `policy` is reached only through PUT …/answering-policy, which writes the policy with it. */
export const phoneNumberPatchRequest = z
  .strictObject({
    inbound_agent_id: z.string().min(1).max(64).nullable().optional().describe('An agent with a published version; null clears it'),
    inbound_route_mode: z
      .enum(['agent', 'voicemail'], {
        message: "inbound_route_mode may be 'agent' or 'voicemail' here; the policy route is set by PUT /v1/phone-numbers/{number_id}/answering-policy",
      })
      .optional(),
    inbound_voicemail_greeting: greeting.nullable().optional(),
    daily_dial_cap: z.int().min(1).max(100_000).nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'Name at least one field to change', params: { type: 'too_short', ctx: { min_length: 1 } } })
  .meta({ id: 'PhoneNumberPatchRequest' });

export const phoneNumberSummary = z
  .object({
    id: z.string(),
    phone_e164: z.string(),
    telephony_account_id: z.string(),
    provider_sid: z.string().nullable(),
    capabilities: z.array(z.enum(NUMBER_CAPABILITIES)),
    a2p_campaign_ref: z.string().nullable(),
    status: z.enum(NUMBER_STATUSES),
    assigned_at: timestamp.nullable(),
    daily_dial_cap: z.int().nullable(),
    dials_today: z.int().describe('Dials placed from this number since 00:00 UTC today'),
    reputation_state: z.enum(REPUTATION_STATES),
    inbound_agent_id: z.string().nullable(),
    inbound_route_mode: z.enum(INBOUND_ROUTE_MODES),
    inbound_voicemail_greeting: z.string().nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'PhoneNumberSummary' });
export type PhoneNumberSummary = z.infer<typeof phoneNumberSummary>;

export const numberPath = z.object({ number_id: z.string().min(1).max(64) });
