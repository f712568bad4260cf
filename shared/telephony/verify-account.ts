/**
 * Verify a telephony account with its provider (the contract: the verify operation proves
 * the credentials and reads the calls-per-second ceiling back into cps_limit).
 *
 *   mock                → mock_verified (the sandbox carrier needs no proof)
 *   twilio, active      → verified + verified_at + cps_limit (Twilio's documented default:
 *                         its account resource reports no ceiling; see twilio.ts)
 *   twilio, refused     → failed            (wrong SID or token)
 *   twilio, suspended/closed → suspended
 *   carrier unreachable → the account as it was; 503 carrier_unreachable (502 carrier_error
 *                         when the carrier answered with its own failure: a non-2xx other
 *                         than 401/403/404, a status Twilio does not document, a body that
 *                         is not an account resource)
 * The account is claimed as `verifying` by a conditional update before the carrier is
 * asked and settled by another, so two concurrent verifies never both apply; a claim left
 * by a crashed run lapses after VERIFY_CLAIM_MS.
 */
import { conflict } from '../errors.js';
import { AccountChanged, type TelephonyAccountRecord, updateTelephonyAccount } from '../repositories/telephony-accounts.js';
import { carrierFailure } from './carrier-errors.js';
import { carrierAccess } from './carrier-for.js';
import { CarrierUnavailable } from './provider.js';
import { twilioProvider } from './twilio.js';

export const VERIFY_CLAIM_MS = 60_000;
/** The sandbox carrier's calls-per-second ceiling for mock accounts. */
export const SANDBOX_CPS = 5;

export async function verifyTelephonyAccount(account: TelephonyAccountRecord, now = new Date()): Promise<TelephonyAccountRecord> {
  try {
    if (account.provider === 'mock') {
      return await updateTelephonyAccount(account, { verification_status: 'mock_verified', verified_at: now.toISOString(), cps_limit: SANDBOX_CPS }, now);
    }
    if (account.verification_status === 'verifying' && now.getTime() - Date.parse(account.updated_at) < VERIFY_CLAIM_MS) {
      throw conflict('verification_in_progress', 'A verification of this account is already in progress; retry in a moment');
    }
    const { credentials, baseUrl } = await carrierAccess(account);
    const claimed = await updateTelephonyAccount(account, { verification_status: 'verifying' }, now);
    let check: Awaited<ReturnType<ReturnType<typeof twilioProvider>['verifyAccount']>>;
    try {
      check = await twilioProvider(credentials, baseUrl).verifyAccount();
    } catch (err) {
      // Whatever went wrong while asking, the claim is released at once (not left to lapse
      // after VERIFY_CLAIM_MS, answering verification_in_progress meanwhile).
      await updateTelephonyAccount(claimed, { verification_status: account.verification_status }, now);
      if (!(err instanceof CarrierUnavailable)) throw err;
      throw carrierFailure(err, 'the account is unchanged');
    }
    switch (check.outcome) {
      case 'active':
        return await updateTelephonyAccount(claimed, { verification_status: 'verified', verified_at: now.toISOString(), cps_limit: check.cpsLimit }, now);
      case 'refused':
        return await updateTelephonyAccount(claimed, { verification_status: 'failed', verified_at: null }, now);
      default:
        return await updateTelephonyAccount(claimed, { verification_status: 'suspended', verified_at: null }, now);
    }
  } catch (err) {
    if (err instanceof AccountChanged) throw conflict('telephony_account_changed', 'The account changed while it was being verified; read it and retry');
    throw err;
  }
}
