import { now } from '../../shared/clock.js';
import { conflict, invalid } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { activatePhoneNumber, claimPhoneNumber, NumberTaken, presentPhoneNumber, releaseUnprovisionedNumber } from '../../shared/repositories/phone-numbers.js';
import { getTelephonyAccount } from '../../shared/repositories/telephony-accounts.js';
import { phoneNumberCreateRequest, phoneNumberSummary } from '../../shared/schemas/phone-numbers.js';
import { carrierFailure } from '../../shared/telephony/carrier-errors.js';
import { providerFor } from '../../shared/telephony/carrier-for.js';
import { carrierMessagingWebhookUrls, carrierWebhookUrls } from '../../shared/telephony/endpoints.js';
import { CarrierUnavailable, NumberRefused } from '../../shared/telephony/provider.js';

const numberUnavailable = (e164: string) => conflict('number_unavailable', `${e164} is already held on this platform or cannot be had from the carrier`);

/**
 * POST /v1/phone-numbers — buys the number (no provider_sid) or connects one the account
 * already owns, and points its calls at our carrier routes. The number is claimed
 * platform-wide first (409 number_unavailable if anyone holds it), stored `provisioning`,
 * and becomes `active` when the carrier confirms; if the carrier refuses or fails, the
 * claim and the record are removed, so nothing half-made remains.
 */
export const handler = defineRoute(
  'createPhoneNumber',
  bearer,
  { body: phoneNumberCreateRequest, responses: { 200: phoneNumberSummary } },
  async ({ principal, body }) => {
    const account = await getTelephonyAccount(principal.tenantId, body.telephony_account_id);
    if (!account) throw invalid(['body', 'telephony_account_id'], 'No telephony account of this tenant has this id', 'not_found', body.telephony_account_id);
    if (account.verification_status !== 'verified' && account.verification_status !== 'mock_verified') {
      throw invalid(
        ['body', 'telephony_account_id'],
        `The telephony account is ${account.verification_status}; verify it first (POST /v1/telephony-accounts/${account.id}/verify)`,
        'account_not_verified',
        body.telephony_account_id,
      );
    }
    const provider = await providerFor(account);

    let number: Awaited<ReturnType<typeof claimPhoneNumber>>;
    try {
      number = await claimPhoneNumber({
        tenantId: principal.tenantId,
        phoneE164: body.phone_e164,
        telephonyAccountId: account.id,
        acquired: body.provider_sid ? 'connected' : 'bought',
        capabilities: body.capabilities,
        ...(body.a2p_campaign_ref ? { a2pCampaignRef: body.a2p_campaign_ref } : {}),
        ...(body.daily_dial_cap ? { dailyDialCap: body.daily_dial_cap } : {}),
        at: now(),
      });
    } catch (err) {
      if (err instanceof NumberTaken) throw numberUnavailable(body.phone_e164);
      throw err;
    }

    const webhooks = carrierWebhookUrls();
    const routing = { voiceUrl: webhooks.url, statusCallbackUrl: webhooks.status_callback_url, smsUrl: carrierMessagingWebhookUrls().url };
    let carrierNumber: Awaited<ReturnType<typeof provider.buyNumber>>;
    try {
      carrierNumber = body.provider_sid ? await provider.connectNumber(body.provider_sid, routing) : await provider.buyNumber(body.phone_e164, routing);
      if (carrierNumber.phoneE164 !== body.phone_e164) {
        throw invalid(
          ['body', 'provider_sid'],
          `The carrier's number ${body.provider_sid} is ${carrierNumber.phoneE164}, not ${body.phone_e164}`,
          'provider_sid_mismatch',
          body.provider_sid,
        );
      }
    } catch (err) {
      await releaseUnprovisionedNumber(number);
      if (err instanceof NumberRefused) {
        if (err.reason === 'unavailable') throw numberUnavailable(body.phone_e164);
        throw invalid(['body', 'provider_sid'], `The telephony account owns no number with provider_sid ${body.provider_sid}`, 'not_found', body.provider_sid);
      }
      if (err instanceof CarrierUnavailable) throw carrierFailure(err, 'no number was added');
      throw err;
    }
    const activatedAt = now();
    return ok(presentPhoneNumber(await activatePhoneNumber(number, carrierNumber.sid, activatedAt), activatedAt));
  },
);
