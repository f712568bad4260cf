/**
 * The Twilio adapter: plain fetch to Twilio's REST API with Basic auth (the account SID and
 * auth token). Its base URL is a deployment setting (shared/telephony/endpoints.ts): Twilio
 * itself on AWS, the sandbox carrier locally and for mock accounts, which speaks the same
 * subset with the same shapes.
 */
import { CarrierUnavailable, NumberRefused, type AccountCheck, type CarrierCredentials, type CarrierNumber, type NumberRouting, type TelephonyProvider } from './provider.js';

/** Twilio does not report an account's calls-per-second ceiling; its documented default is 1. */
export const TWILIO_DEFAULT_CPS = 1;
const TIMEOUT_MS = 5_000;

export function twilioProvider(credentials: CarrierCredentials, baseUrl: string): TelephonyProvider {
  const authorization = `Basic ${Buffer.from(`${credentials.accountSid}:${credentials.authToken}`).toString('base64')}`;
  const send = async (path: string, form?: Record<string, string>): Promise<Response> => {
    try {
      return await fetch(`${baseUrl}/2010-04-01${path}`, {
        method: form ? 'POST' : 'GET',
        headers: { authorization, accept: 'application/json', ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new CarrierUnavailable('unreachable', `Twilio could not be reached: ${(err as Error).name}`);
    }
  };
  const get = (path: string) => send(path);
  const numbersPath = `/Accounts/${encodeURIComponent(credentials.accountSid)}/IncomingPhoneNumbers`;
  const routingForm = (r: NumberRouting) => ({ VoiceUrl: r.voiceUrl, VoiceMethod: 'POST', StatusCallback: r.statusCallbackUrl, StatusCallbackMethod: 'POST' });
  /** Twilio's IncomingPhoneNumber resource → ours; its own failures → CarrierUnavailable. */
  const numberFrom = async (res: Response, refused: (code: number | undefined, status: number) => NumberRefused | undefined): Promise<CarrierNumber> => {
    if (!res.ok) {
      const body = (await res.json().catch(() => ({}))) as { code?: number; message?: string };
      const refusal = refused(body.code, res.status);
      if (refusal) throw refusal;
      if (res.status === 401 || res.status === 403) throw new CarrierUnavailable('carrier_error', 'Twilio refused the account credentials; verify the account again');
      throw new CarrierUnavailable('carrier_error', `Twilio answered ${res.status}`);
    }
    const number = (await res.json()) as { sid?: unknown; phone_number?: unknown };
    if (typeof number.sid !== 'string' || typeof number.phone_number !== 'string') throw new CarrierUnavailable('carrier_error', 'Twilio answered without a number sid');
    return { sid: number.sid, phoneE164: number.phone_number };
  };
  return {
    async verifyAccount(): Promise<AccountCheck> {
      const res = await get(`/Accounts/${encodeURIComponent(credentials.accountSid)}.json`);
      if (res.status === 401 || res.status === 403 || res.status === 404) return { outcome: 'refused' };
      if (!res.ok) throw new CarrierUnavailable('carrier_error', `Twilio answered ${res.status}`);
      const account = (await res.json()) as { status?: string; cps_limit?: unknown };
      if (account.status === 'suspended') return { outcome: 'suspended' };
      if (account.status === 'closed') return { outcome: 'closed' };
      if (account.status !== 'active') throw new CarrierUnavailable('carrier_error', `Twilio reported an account status it does not document: ${String(account.status)}`);
      const cps = typeof account.cps_limit === 'number' && Number.isInteger(account.cps_limit) && account.cps_limit > 0 ? account.cps_limit : TWILIO_DEFAULT_CPS;
      return { outcome: 'active', cpsLimit: cps };
    },
    async buyNumber(phoneE164, routing) {
      const res = await send(`${numbersPath}.json`, { PhoneNumber: phoneE164, ...routingForm(routing) });
      // 21422: the number is not available to buy; 21421: not a valid number for purchase.
      return numberFrom(res, (code, status) =>
        code === 21422 || code === 21421 || (status === 400 && code === undefined) ? new NumberRefused('unavailable', `The carrier will not sell ${phoneE164}`) : undefined,
      );
    },
    async connectNumber(sid, routing) {
      const res = await send(`${numbersPath}/${encodeURIComponent(sid)}.json`, routingForm(routing));
      return numberFrom(res, (_code, status) => (status === 404 ? new NumberRefused('not_found', `The account owns no number with sid ${sid}`) : undefined));
    },
  };
}
