/** The Twilio REST shapes the sandbox carrier answers with (the subset the adapter reads). */
import * as z from 'zod';

export const twilioErrorResource = z.object({ code: z.int(), message: z.string(), more_info: z.string(), status: z.int() }).meta({ id: 'SandboxTwilioError' });

export const sandboxAccountResource = z
  .object({
    sid: z.string(),
    owner_account_sid: z.string(),
    friendly_name: z.string(),
    status: z.enum(['active', 'suspended', 'closed']),
    type: z.literal('Full'),
    date_created: z.string(),
    date_updated: z.string(),
    uri: z.string(),
  })
  .meta({ id: 'SandboxAccount' });

export const sandboxNumberResource = z
  .object({
    sid: z.string(),
    account_sid: z.string(),
    phone_number: z.string(),
    friendly_name: z.string(),
    voice_url: z.string().nullable(),
    voice_method: z.string(),
    status_callback: z.string().nullable(),
    status_callback_method: z.string(),
    sms_url: z.string().nullable(),
    sms_method: z.string(),
    capabilities: z.object({ voice: z.boolean(), sms: z.boolean(), mms: z.boolean(), fax: z.boolean() }),
    status: z.string(),
    date_created: z.string(),
    date_updated: z.string(),
    uri: z.string(),
  })
  .meta({ id: 'SandboxIncomingPhoneNumber' });

export const sandboxCallResource = z
  .object({
    sid: z.string(),
    account_sid: z.string(),
    parent_call_sid: z.string().nullable(),
    to: z.string(),
    to_formatted: z.string(),
    from: z.string(),
    from_formatted: z.string(),
    phone_number_sid: z.string(),
    status: z.enum(['queued', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'canceled']),
    direction: z.literal('outbound-api'),
    answered_by: z.string().nullable(),
    start_time: z.string().nullable(),
    end_time: z.string().nullable(),
    duration: z.string().nullable(),
    price: z.string().nullable(),
    price_unit: z.string(),
    caller_name: z.string().nullable(),
    api_version: z.string(),
    date_created: z.string(),
    date_updated: z.string(),
    uri: z.string(),
    date_created_ms: z
      .int()
      .describe("Not in Twilio's Call: the instant (epoch ms) the sandbox stamped the dial — date_created to the millisecond, the instant its cps count uses"),
  })
  .meta({ id: 'SandboxCall' });

export const sandboxMessageResource = z
  .object({
    sid: z.string(),
    account_sid: z.string(),
    to: z.string(),
    from: z.string(),
    body: z.string(),
    status: z.enum(['queued', 'sent', 'delivered', 'undelivered', 'failed']),
    direction: z.literal('outbound-api'),
    num_segments: z.string(),
    num_media: z.string(),
    error_code: z.int().nullable(),
    error_message: z.string().nullable(),
    price: z.string().nullable(),
    price_unit: z.string(),
    messaging_service_sid: z.string().nullable(),
    api_version: z.string(),
    date_created: z.string(),
    date_updated: z.string(),
    date_sent: z.string().nullable(),
    uri: z.string(),
  })
  .meta({ id: 'SandboxMessage' });

/** A sandbox carrier form: every field is a string; the handler checks them as Twilio does. */
export const twilioForm = z.record(z.string(), z.string());
