/**
 * Who posted a carrier callback (manifest auth `twilio_signature`). The request is trusted
 * only if X-Twilio-Signature matches under the auth token of the tenant account it names,
 * computed over the URL the carrier was given (the configured public base URL plus the
 * route's path and query, never the Host header) and the exact posted parameters.
 *
 * Which account: the call's (a CallSid we already know), else the account that holds the
 * called number (`To`; `From` for our own outbound calls), else — for a number no tenant
 * holds — the tenant accounts that use the posted AccountSid. The posted AccountSid must
 * be that account's. No match: 403, nothing written.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { DomainError } from '../errors.js';
import { getCallPointer } from '../repositories/calls.js';
import { getNumberClaim, type NumberClaim } from '../repositories/phone-numbers.js';
import { carrierAccountUses, getTelephonyAccount, type TelephonyAccountRecord } from '../repositories/telephony-accounts.js';
import { carrierAccess } from './carrier-for.js';
import { publicBaseUrl } from './endpoints.js';
import { TWILIO_SIGNATURE_HEADER, type TwilioParams, verifyTwilioSignature } from './twilio-signature.js';

export interface CarrierCaller {
  tenantId: string;
  account: TelephonyAccountRecord;
  /** The claim of the number the callback is about, when a tenant holds it. */
  claim?: NumberClaim;
  /** The call the CallSid names, when we already know it. */
  callId?: string;
}

export const forbiddenSignature = () => new DomainError('forbidden', 'invalid_signature', 'Missing or invalid X-Twilio-Signature');

/** Form pairs as Twilio signs them (a repeated name carries every value). */
export function signedParams(pairs: readonly [string, string][]): TwilioParams {
  const out: TwilioParams = Object.create(null) as TwilioParams;
  for (const [name, value] of pairs) {
    const seen = out[name];
    out[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

/** The URL the carrier was given for this request: configured base + path + query. */
export const signedUrl = (event: Pick<APIGatewayProxyEventV2, 'rawPath' | 'rawQueryString'>) =>
  `${publicBaseUrl()}${event.rawPath}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`;

const single = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * The fields that say whose request this is. Twilio sends each once; a repeated one would
 * let the value this module authenticates differ from the one a handler reads later.
 */
const IDENTITY_FIELDS = ['AccountSid', 'CallSid', 'To', 'From'] as const;

export async function authenticateCarrierRequest(
  event: APIGatewayProxyEventV2,
  pairs: readonly [string, string][],
  prefer: 'to' | 'from' = 'to',
): Promise<CarrierCaller> {
  const params = signedParams(pairs);
  if (IDENTITY_FIELDS.some((name) => Array.isArray(params[name]))) throw forbiddenSignature();
  const signature = event.headers?.[TWILIO_SIGNATURE_HEADER];
  const accountSid = single(params.AccountSid);
  if (!signature || !accountSid) throw forbiddenSignature();
  const url = signedUrl(event);
  const proves = async (account: TelephonyAccountRecord | undefined): Promise<boolean> => {
    if (!account) return false;
    const { credentials } = await carrierAccess(account).catch(() => ({ credentials: undefined }));
    return Boolean(credentials && credentials.accountSid === accountSid && verifyTwilioSignature({ authToken: credentials.authToken, signature, url, params }));
  };

  const callSid = single(params.CallSid);
  const pointer = callSid ? await getCallPointer(callSid) : undefined;
  if (pointer) {
    const account = await getTelephonyAccount(pointer.tenant_id, pointer.telephony_account_id);
    if (await proves(account)) return { tenantId: pointer.tenant_id, account: account!, callId: pointer.call_id };
    throw forbiddenSignature();
  }
  const numbers = prefer === 'to' ? [single(params.To), single(params.From)] : [single(params.From), single(params.To)];
  for (const e164 of numbers) {
    const claim = e164 ? await getNumberClaim(e164) : undefined;
    if (!claim) continue;
    const account = await getTelephonyAccount(claim.tenant_id, claim.telephony_account_id);
    if (await proves(account)) return { tenantId: claim.tenant_id, account: account!, claim };
    throw forbiddenSignature();
  }
  for (const use of await carrierAccountUses(accountSid)) {
    const account = await getTelephonyAccount(use.tenant_id, use.account_id);
    if (await proves(account)) return { tenantId: use.tenant_id, account: account! };
  }
  throw forbiddenSignature();
}
