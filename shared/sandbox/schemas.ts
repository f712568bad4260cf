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
    capabilities: z.object({ voice: z.boolean(), sms: z.boolean(), mms: z.boolean(), fax: z.boolean() }),
    status: z.string(),
    date_created: z.string(),
    date_updated: z.string(),
    uri: z.string(),
  })
  .meta({ id: 'SandboxIncomingPhoneNumber' });
