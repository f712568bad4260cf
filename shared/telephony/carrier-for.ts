/**
 * Which carrier a telephony account talks to, and as whom:
 *   byo twilio     → Twilio (TWILIO_API_BASE_URL) with the tenant's own sealed credentials
 *   managed twilio → Twilio with the platform's carrier account (a deployment secret)
 *   mock           → the sandbox carrier of this deployment, with the sandbox account made
 *                    for this telephony account when it was created
 * The auth token is also what the carrier signs its callbacks with.
 */
import { DomainError } from '../errors.js';
import { openCredentials, openSandboxCredentials, type TelephonyAccountRecord } from '../repositories/telephony-accounts.js';
import { appSecrets } from '../secrets.js';
import { sandboxApiBaseUrl, twilioApiBaseUrl } from './endpoints.js';
import type { CarrierCredentials, TelephonyProvider } from './provider.js';
import { twilioProvider } from './twilio.js';

export interface CarrierAccess {
  credentials: CarrierCredentials;
  baseUrl: string;
}

export async function carrierAccess(account: TelephonyAccountRecord): Promise<CarrierAccess> {
  if (account.provider === 'mock') {
    const creds = await openSandboxCredentials(account);
    if (!creds) throw new Error(`mock account ${account.id} holds no sandbox account`);
    return { credentials: { accountSid: creds.account_sid, authToken: creds.auth_token }, baseUrl: sandboxApiBaseUrl() };
  }
  if (account.mode === 'byo') {
    const creds = await openCredentials(account);
    if (!creds) throw new Error(`byo account ${account.id} holds no credentials`);
    return { credentials: { accountSid: creds.account_sid, authToken: creds.auth_token }, baseUrl: twilioApiBaseUrl() };
  }
  const platform = (await appSecrets()).platformCarrier;
  if (!platform)
    throw new DomainError(
      'unavailable',
      'platform_carrier_unconfigured',
      'This deployment has no platform carrier account, so managed twilio accounts cannot reach a carrier; use byo or mock',
    );
  return { credentials: platform, baseUrl: twilioApiBaseUrl() };
}

export async function providerFor(account: TelephonyAccountRecord): Promise<TelephonyProvider> {
  const access = await carrierAccess(account);
  // Only the sandbox carrier (mock accounts) answers its stamp of a dial to the millisecond.
  return twilioProvider(access.credentials, access.baseUrl, { dialStamps: account.provider === 'mock' });
}
