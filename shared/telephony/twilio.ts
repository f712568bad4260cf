/**
 * The Twilio adapter: plain fetch to Twilio's REST API with Basic auth (the account SID and
 * auth token). Its base URL is a deployment setting (shared/telephony/endpoints.ts): Twilio
 * itself on AWS, the sandbox carrier locally and for mock accounts, which speaks the same
 * subset with the same shapes.
 */

import { CARRIER_CALL_STATUSES, type CarrierCallStatus } from '../policy/call-state/carrier-call.js';
import { DIAL_REQUEST_MAX_MS } from '../policy/dial-pacing.js';
import {
  type AccountCheck,
  type CarrierCredentials,
  type CarrierNumber,
  CarrierRefused,
  CarrierUnavailable,
  NumberRefused,
  type NumberRouting,
  type TelephonyProvider,
} from './provider.js';

/**
 * An account's calls-per-second ceiling. Twilio's Account resource (2010-04-01) has no such
 * field (auth_token, date_created, date_updated, friendly_name, owner_account_sid, sid,
 * status, subresource_uris, type, uri) and no other REST resource reports it: Twilio sets
 * a raised ceiling on request, outside the API. So the figure is Twilio's documented
 * default, 1 call per second, whatever the response holds (docs/decisions/telephony.md).
 */
export const TWILIO_DEFAULT_CPS = 1;
/** Every request is given up by then; a dial's cps lane counts on it (shared/policy/dial-pacing.ts). */
const TIMEOUT_MS = DIAL_REQUEST_MAX_MS;

/** Twilio's error codes for a request it will not carry out (https://www.twilio.com/docs/errors). */
const REFUSALS: Record<number, CarrierRefused['reason']> = {
  21201: 'invalid_to', // no To
  21211: 'invalid_to', // To is not a valid number
  21214: 'invalid_to', // To cannot be reached
  21217: 'invalid_to', // To is not a valid phone number
  21604: 'invalid_to', // (SMS) no To
  21614: 'invalid_to', // (SMS) To is not a mobile number
  21210: 'caller_id_not_allowed', // From is not verified or bought for the account
  21212: 'caller_id_not_allowed', // From is not a valid caller id
  21213: 'caller_id_not_allowed', // no From
  21603: 'caller_id_not_allowed', // (SMS) no From
  21606: 'caller_id_not_allowed', // (SMS) From is not an SMS-capable number of the account
  20001: 'invalid_request',
  21205: 'invalid_request', // Url
  21401: 'invalid_request', // method
  21602: 'invalid_request', // (SMS) no Body
  21609: 'invalid_request', // StatusCallback
  21617: 'invalid_request', // (SMS) Body too long
  21626: 'invalid_request', // StatusCallbackEvent
};

/**
 * Twilio's failure body → the port's typed errors. Credentials refused (401/403) on a create
 * (`creates`: a call or a message) is a refusal: Twilio authenticates before it creates
 * anything, so nothing was dialled or sent and waiting cannot change the answer. On a read
 * it is the carrier's failure (verify the account again).
 */
async function failure(res: Response, what: string, creates = false): Promise<Error> {
  const body = (await res.json().catch(() => ({}))) as { code?: number; message?: string };
  const reason = body.code !== undefined ? REFUSALS[body.code] : undefined;
  if (reason && res.status < 500) return new CarrierRefused(reason, body.code, `Twilio refused ${what}: ${body.code} ${body.message ?? ''}`.trim());
  if (res.status === 404) return new CarrierRefused('not_found', body.code, `Twilio found no such resource for ${what}`);
  if ((res.status === 401 || res.status === 403) && creates)
    return new CarrierRefused('credentials_refused', body.code, `Twilio refused the account credentials for ${what}; verify the account again`);
  if (res.status === 401 || res.status === 403)
    return new CarrierUnavailable('carrier_error', 'Twilio refused the account credentials; verify the account again');
  if (res.status >= 400 && res.status < 500 && res.status !== 429)
    return new CarrierRefused('invalid_request', body.code, `Twilio refused ${what}: ${res.status} ${body.code ?? ''}`.trim());
  return new CarrierUnavailable('carrier_error', `Twilio answered ${res.status} to ${what}`);
}

const sidIn = (resource: { sid?: unknown }, prefix: 'CA' | 'SM'): { sid: string } => {
  if (typeof resource.sid !== 'string' || !resource.sid.startsWith(prefix)) throw new CarrierUnavailable('carrier_error', 'Twilio answered without a sid');
  return { sid: resource.sid };
};

const sidOf = async (res: Response, prefix: 'CA' | 'SM'): Promise<{ sid: string }> => sidIn((await res.json().catch(() => ({}))) as { sid?: unknown }, prefix);

const ALL_CALL_EVENTS = ['initiated', 'ringing', 'answered', 'completed'] as const;

/**
 * `dialStamps`: the carrier answers a Calls create with `date_created_ms`, its stamp of the dial
 * to the millisecond (the sandbox carrier: not a Twilio field, so Twilio itself is never read for it).
 */
export function twilioProvider(credentials: CarrierCredentials, baseUrl: string, opts: { dialStamps?: boolean } = {}): TelephonyProvider {
  const authorization = `Basic ${Buffer.from(`${credentials.accountSid}:${credentials.authToken}`).toString('base64')}`;
  const send = async (path: string, form?: Record<string, string> | [string, string][], method?: 'DELETE'): Promise<Response> => {
    try {
      return await fetch(`${baseUrl}/2010-04-01${path}`, {
        method: method ?? (form ? 'POST' : 'GET'),
        headers: { authorization, accept: 'application/json', ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new CarrierUnavailable('unreachable', `Twilio could not be reached: ${(err as Error).name}`);
    }
  };
  const get = (path: string) => send(path);
  const accountPath = `/Accounts/${encodeURIComponent(credentials.accountSid)}`;
  const numbersPath = `/Accounts/${encodeURIComponent(credentials.accountSid)}/IncomingPhoneNumbers`;
  const routingForm = (r: NumberRouting) => ({
    VoiceUrl: r.voiceUrl,
    VoiceMethod: 'POST',
    StatusCallback: r.statusCallbackUrl,
    StatusCallbackMethod: 'POST',
    ...(r.smsUrl ? { SmsUrl: r.smsUrl, SmsMethod: 'POST' } : {}),
  });
  /** Twilio's IncomingPhoneNumber resource → ours; its own failures → CarrierUnavailable. */
  const numberFrom = async (res: Response, refused: (code: number | undefined, status: number) => NumberRefused | undefined): Promise<CarrierNumber> => {
    if (!res.ok) {
      const body = (await res.json().catch(() => ({}))) as { code?: number; message?: string };
      const refusal = refused(body.code, res.status);
      if (refusal) throw refusal;
      if (res.status === 401 || res.status === 403)
        throw new CarrierUnavailable('carrier_error', 'Twilio refused the account credentials; verify the account again');
      throw new CarrierUnavailable('carrier_error', `Twilio answered ${res.status}`);
    }
    const number = (await res.json()) as { sid?: unknown; phone_number?: unknown };
    if (typeof number.sid !== 'string' || typeof number.phone_number !== 'string')
      throw new CarrierUnavailable('carrier_error', 'Twilio answered without a number sid');
    return { sid: number.sid, phoneE164: number.phone_number };
  };
  return {
    async verifyAccount(): Promise<AccountCheck> {
      const res = await get(`/Accounts/${encodeURIComponent(credentials.accountSid)}.json`);
      if (res.status === 401 || res.status === 403 || res.status === 404) return { outcome: 'refused' };
      if (!res.ok) throw new CarrierUnavailable('carrier_error', `Twilio answered ${res.status}`);
      // A 200 that is not the account resource (a proxy's page, a truncated body) is the carrier's failure too.
      const account = (await res.json().catch(() => null)) as { status?: unknown } | null;
      if (account === null || typeof account !== 'object') throw new CarrierUnavailable('carrier_error', 'Twilio answered without a JSON account resource');
      if (account.status === 'suspended') return { outcome: 'suspended' };
      if (account.status === 'closed') return { outcome: 'closed' };
      if (account.status !== 'active')
        throw new CarrierUnavailable('carrier_error', `Twilio reported an account status it does not document: ${String(account.status)}`);
      return { outcome: 'active', cpsLimit: TWILIO_DEFAULT_CPS };
    },
    async buyNumber(phoneE164, routing) {
      const res = await send(`${numbersPath}.json`, { PhoneNumber: phoneE164, ...routingForm(routing) });
      // 21422: the number is not available to buy; 21421: not a valid number for purchase.
      return numberFrom(res, (code, status) =>
        code === 21422 || code === 21421 || (status === 400 && code === undefined)
          ? new NumberRefused('unavailable', `The carrier will not sell ${phoneE164}`)
          : undefined,
      );
    },
    async connectNumber(sid, routing) {
      const res = await send(`${numbersPath}/${encodeURIComponent(sid)}.json`, routingForm(routing));
      return numberFrom(res, (_code, status) => (status === 404 ? new NumberRefused('not_found', `The account owns no number with sid ${sid}`) : undefined));
    },
    async placeCall(input) {
      const pairs: [string, string][] = [
        ['To', input.to],
        ['From', input.from],
        ['Url', input.twimlUrl],
        ['Method', 'POST'],
        ['StatusCallback', input.statusCallbackUrl],
        ['StatusCallbackMethod', 'POST'],
        ...(input.statusCallbackEvents ?? ALL_CALL_EVENTS).map((e): [string, string] => ['StatusCallbackEvent', e]),
        ...(input.machineDetection ? [['MachineDetection', input.machineDetection] as [string, string]] : []),
        ...(input.timeoutSeconds !== undefined ? [['Timeout', String(input.timeoutSeconds)] as [string, string]] : []),
      ];
      // Pairs, so the repeated StatusCallbackEvent goes as Twilio expects: one pair per event.
      const res = await send(`${accountPath}/Calls.json`, pairs);
      if (!res.ok) throw await failure(res, `the call to ${input.to}`, true);
      const resource = (await res.json().catch(() => ({}))) as { sid?: unknown; date_created_ms?: unknown };
      const { sid } = sidIn(resource, 'CA');
      const stamp = resource.date_created_ms;
      return opts.dialStamps && typeof stamp === 'number' && Number.isFinite(stamp) ? { sid, stampedAt: stamp } : { sid };
    },
    async fetchCall(callSid) {
      const res = await get(`${accountPath}/Calls/${encodeURIComponent(callSid)}.json`);
      if (!res.ok) throw await failure(res, `reading the call ${callSid}`);
      const call = (await res.json().catch(() => ({}))) as { status?: unknown; answered_by?: unknown; duration?: unknown };
      if (!CARRIER_CALL_STATUSES.includes(call.status as CarrierCallStatus))
        throw new CarrierUnavailable('carrier_error', `Twilio reported a call status it does not document: ${String(call.status)}`);
      // Twilio sends the duration as a string of whole seconds (null until the call ended).
      const duration =
        typeof call.duration === 'string' && /^\d{1,7}$/.test(call.duration)
          ? Number(call.duration)
          : typeof call.duration === 'number' && Number.isInteger(call.duration) && call.duration >= 0
            ? call.duration
            : null;
      return {
        status: call.status as CarrierCallStatus,
        answeredBy: typeof call.answered_by === 'string' && call.answered_by ? call.answered_by : null,
        durationSeconds: duration,
      };
    },
    async releaseNumber(sid) {
      const res = await send(`${numbersPath}/${encodeURIComponent(sid)}.json`, undefined, 'DELETE');
      if (res.ok || res.status === 404) {
        await res.arrayBuffer().catch(() => undefined);
        return;
      }
      throw await failure(res, `releasing ${sid}`);
    },
    async hangUp(callSid) {
      const res = await send(`${accountPath}/Calls/${encodeURIComponent(callSid)}.json`, { Status: 'completed' });
      if (res.ok) return;
      const err = await failure(res, `hanging up ${callSid}`);
      // 21220: the call is no longer in progress, which is what was wanted.
      if (err instanceof CarrierRefused && err.carrierCode === 21220) return;
      throw err;
    },
    async sendSms(input) {
      const res = await send(`${accountPath}/Messages.json`, {
        To: input.to,
        From: input.from,
        Body: input.body,
        ...(input.statusCallbackUrl ? { StatusCallback: input.statusCallbackUrl } : {}),
      });
      if (!res.ok) throw await failure(res, `the message to ${input.to}`, true);
      return sidOf(res, 'SM');
    },
  };
}
