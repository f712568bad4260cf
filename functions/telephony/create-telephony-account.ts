import { bearer } from '../../shared/http/auth/bearer.js';
import { created } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { presentTelephonyAccount } from '../../shared/repositories/telephony-accounts.js';
import { telephonyAccountCreateRequest, telephonyAccountSummary } from '../../shared/schemas/telephony.js';
import { connectTelephonyAccount } from '../../shared/telephony/connect-account.js';

/**
 * POST /v1/telephony-accounts — admin only. Credentials (byo twilio only) are sealed before
 * they are stored and never returned; the account starts `pending` until verified.
 */
export const handler = defineRoute(
  'createTelephonyAccount',
  bearer,
  { body: telephonyAccountCreateRequest, responses: { 201: telephonyAccountSummary } },
  async ({ principal, body }) => {
    const account = await connectTelephonyAccount({
      tenantId: principal.tenantId,
      mode: body.mode,
      provider: body.provider,
      ...(body.credentials ? { credentials: body.credentials } : {}),
      ...(body.a2p_brand_ref ? { a2pBrandRef: body.a2p_brand_ref } : {}),
      ...(body.ftc_san_refs ? { ftcSanRefs: body.ftc_san_refs } : {}),
    });
    return created(presentTelephonyAccount(account));
  },
);
