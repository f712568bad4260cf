import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getTelephonyAccount } from '../../shared/repositories/telephony-accounts.js';
import { inboundVoiceWebhook } from '../../shared/schemas/telephony.js';
import { accountPath } from '../../shared/schemas/telephony-paths.js';
import { carrierWebhookUrls } from '../../shared/telephony/endpoints.js';

/**
 * GET /v1/telephony-accounts/{account_id}/inbound-voice-webhook — configuration to paste
 * into the carrier's console, only for a verified BYO account. Managed, mock and
 * unverified accounts never publish an inbound route: 404, like a missing account.
 */
export const handler = defineRoute(
  'getInboundVoiceWebhook',
  bearer,
  { path: accountPath, responses: { 200: inboundVoiceWebhook } },
  async ({ principal, path }) => {
    const account = await getTelephonyAccount(principal.tenantId, path.account_id);
    if (!account || account.mode !== 'byo' || account.provider !== 'twilio' || account.verification_status !== 'verified')
      throw notFound('Inbound voice webhook');
    return ok(carrierWebhookUrls());
  },
);
