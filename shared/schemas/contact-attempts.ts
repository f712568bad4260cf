/**
 * The ContactAttempt resource (the contract/3; see docs/decisions/dispatch-and-carrier.md): what POST /v1/calls answers, read
 * from the outbound call record (`presentContactAttempt`, shared/calls/queue-call.ts).
 */
import * as z from 'zod';
import { CALL_STATES } from '../policy/call-state/machine.js';
import { callQuestion, complianceDecision } from './calls.js';
import { timestamp } from './common.js';

const attemptTelephony = z
  .object({
    provider: z.enum(['twilio', 'mock']).nullable(),
    telephony_account_id: z.string().nullable(),
    phone_number_id: z.string().nullable(),
    from_e164: z.string().nullable().describe('Our own number the call is placed from (null while no number can place it)'),
    provider_call_sid: z.string().nullable().describe("The carrier's call id, once dialled"),
    mock: z.boolean().describe('true for sandbox (mock) accounts'),
  })
  .meta({ id: 'AttemptTelephony' });

export const contactAttempt = z
  .object({
    id: z.string().describe('att_…'),
    call_id: z.string().describe('cal_…: the call detail is readable from the moment of queuing'),
    contact_id: z.string(),
    agent_id: z.string(),
    agent_version_id: z.string().describe('The published version pinned at queuing'),
    campaign_id: z.string().nullable(),
    origin: z.enum(['api', 'campaign']),
    state: z.enum(CALL_STATES),
    disposition: z.string().nullable(),
    scheduled_for: timestamp.nullable(),
    compliance: complianceDecision,
    telephony: attemptTelephony,
    questions: z.array(callQuestion),
    context: z.record(z.string(), z.string()),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'ContactAttempt' });
export type ContactAttempt = z.infer<typeof contactAttempt>;
