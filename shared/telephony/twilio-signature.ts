/**
 * X-Twilio-Signature, computed and checked by Twilio's own helper library
 * (`twilio/lib/webhooks/webhooks`: 4.2 KB in a bundle, node built-ins only; the full
 * `twilio` entry point is 3.7 MB and is never imported). Using the library's code rather
 * than a copy keeps us on Twilio's exact rules: HMAC-SHA1 keyed by the account's auth
 * token over the URL Twilio was given plus each POST parameter's name and value in name
 * order, base64; the URL tried with and without the scheme's default port; a constant-time
 * compare. The URL is always the configured public one (shared/telephony/endpoints.ts),
 * never rebuilt from the Host header.
 */
import { getExpectedTwilioSignature, validateRequest } from 'twilio/lib/webhooks/webhooks.js';

/** POST parameters as Twilio signs them: a name sent more than once carries every value. */
export type TwilioParams = Record<string, string | string[]>;

export const TWILIO_SIGNATURE_HEADER = 'x-twilio-signature';

/** The signature Twilio would send for a POST of `params` to `url` (the sandbox carrier signs with it). */
export function twilioSignature(authToken: string, url: string, params: TwilioParams): string {
  return getExpectedTwilioSignature(authToken, url, params);
}

/** True only for a present signature that matches; a missing header or unparsable URL is false. */
export function verifyTwilioSignature(input: { authToken: string; signature: string | undefined; url: string; params: TwilioParams }): boolean {
  if (!input.signature || !input.authToken) return false;
  try {
    return validateRequest(input.authToken, input.signature, input.url, input.params);
  } catch {
    return false; // the library parses the URL with `new URL` on its fallback path
  }
}

/** An application/x-www-form-urlencoded body (Twilio's webhook body) as the parameters it signed. */
export function formParams(body: string): TwilioParams {
  // No prototype: a parameter named "constructor" or "__proto__" is just a parameter.
  const out: TwilioParams = Object.create(null) as TwilioParams;
  for (const [name, value] of new URLSearchParams(body)) {
    const seen = out[name];
    out[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}
