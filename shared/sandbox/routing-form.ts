/** Twilio's form fields that route a number's calls and texts, checked as Twilio checks them. */
import * as z from 'zod';
import { twilioError } from './accounts.js';
import type { NumberRouting } from './numbers.js';

/** The fields as the routes' body schema: strings here, Twilio's own checks in `invalidRouting`. */
export const routingFormFields = z.object({
  VoiceUrl: z.string().optional(),
  VoiceMethod: z.string().optional(),
  StatusCallback: z.string().optional(),
  StatusCallbackMethod: z.string().optional(),
  SmsUrl: z.string().optional(),
  SmsMethod: z.string().optional(),
});

export type RoutingForm = z.infer<typeof routingFormFields>;

export const routingFromForm = (f: RoutingForm): NumberRouting => ({
  ...(f.VoiceUrl !== undefined ? { voice_url: f.VoiceUrl } : {}),
  ...(f.VoiceMethod !== undefined ? { voice_method: f.VoiceMethod } : {}),
  ...(f.StatusCallback !== undefined ? { status_callback: f.StatusCallback } : {}),
  ...(f.StatusCallbackMethod !== undefined ? { status_callback_method: f.StatusCallbackMethod } : {}),
  ...(f.SmsUrl !== undefined ? { sms_url: f.SmsUrl } : {}),
  ...(f.SmsMethod !== undefined ? { sms_method: f.SmsMethod } : {}),
});

const httpUrl = z.url({ protocol: /^https?$/ }).max(4000);

/**
 * Twilio refuses a URL that is not http(s) (21402) and a method other than GET/POST (21401).
 * Checked here, after Basic auth, not in the route's schema: a stranger learns nothing.
 */
export function invalidRouting(form: RoutingForm) {
  for (const url of [form.VoiceUrl, form.StatusCallback, form.SmsUrl]) {
    if (url !== undefined && !httpUrl.safeParse(url).success) return twilioError(400, 21402, `Url is not valid: ${url.slice(0, 200)}`);
  }
  for (const method of [form.VoiceMethod, form.StatusCallbackMethod, form.SmsMethod]) {
    if (method !== undefined && method !== 'GET' && method !== 'POST') return twilioError(400, 21401, `Method is not valid: ${method.slice(0, 10)}`);
  }
  return undefined;
}
