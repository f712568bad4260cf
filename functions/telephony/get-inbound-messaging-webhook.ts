import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getTelephonyAccount } from '../../shared/repositories/telephony-accounts.js';
import { accountPath } from '../../shared/schemas/telephony-paths.js';
import { inboundMessagingWebhook } from '../../shared/schemas/text-messages.js';
import { carrierMessagingWebhookUrls } from '../../shared/telephony/endpoints.js';

/**
 * GET /v1/telephony-accounts/{account_id}/inbound-messaging-webhook — the messaging URLs to
 * paste into the carrier's console, published like the voice ones: only for a verified BYO
 * account. Managed, mock and unverified accounts: 404, like a missing account.
 */
export const handler = defineRoute(
  'getInboundMessagingWebhook',
  bearer,
  { path: accountPath, responses: { 200: inboundMessagingWebhook } },
  async ({ principal, path }) => {
    const account = await getTelephonyAccount(principal.tenantId, path.account_id);
    if (!account || account.mode !== 'byo' || account.provider !== 'twilio' || account.verification_status !== 'verified')
      throw notFound('Inbound messaging webhook');
    return ok(carrierMessagingWebhookUrls());
  },
);
