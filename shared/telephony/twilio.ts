/**
 * The Twilio adapter: plain fetch to Twilio's REST API with Basic auth (the account SID and
 * auth token). Its base URL is a deployment setting (shared/telephony/endpoints.ts): Twilio
 * itself on AWS, the sandbox carrier locally and for mock accounts, which speaks the same
 * subset with the same shapes.
 */
import { CarrierUnavailable, type AccountCheck, type CarrierCredentials, type TelephonyProvider } from './provider.js';

/** Twilio does not report an account's calls-per-second ceiling; its documented default is 1. */
export const TWILIO_DEFAULT_CPS = 1;
const TIMEOUT_MS = 5_000;

export function twilioProvider(credentials: CarrierCredentials, baseUrl: string): TelephonyProvider {
  const authorization = `Basic ${Buffer.from(`${credentials.accountSid}:${credentials.authToken}`).toString('base64')}`;
  const get = async (path: string): Promise<Response> => {
    try {
      return await fetch(`${baseUrl}/2010-04-01${path}`, { headers: { authorization, accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      throw new CarrierUnavailable('unreachable', `Twilio could not be reached: ${(err as Error).name}`);
    }
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
  };
}
