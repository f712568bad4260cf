import { now } from '../../shared/clock.js';
import { conflict, invalid, notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import {
  AccountChanged,
  getTelephonyAccount,
  presentTelephonyAccount,
  recordCarrierAccountUse,
  sealCredentials,
  updateTelephonyAccount,
} from '../../shared/repositories/telephony-accounts.js';
import { credentialsRule, telephonyAccountPatchRequest, telephonyAccountSummary } from '../../shared/schemas/telephony.js';
import { accountPath } from '../../shared/schemas/telephony-paths.js';

/**
 * PATCH /v1/telephony-accounts/{account_id} — admin only. New credentials (byo twilio only)
 * return the account to `pending`: what was verified is no longer what is stored.
 */
export const handler = defineRoute(
  'updateTelephonyAccount',
  bearer,
  { path: accountPath, body: telephonyAccountPatchRequest, responses: { 200: telephonyAccountSummary } },
  async ({ principal, path, body }) => {
    const account = await getTelephonyAccount(principal.tenantId, path.account_id);
    if (!account) throw notFound('Telephony account');
    if (body.credentials) {
      const problem = credentialsRule(account.mode, account.provider, true);
      if (problem) throw invalid(['body', 'credentials'], problem.msg, problem.type);
    }
    try {
      const updated = await updateTelephonyAccount(
        account,
        {
          ...(body.ftc_san_refs !== undefined ? { ftc_san_refs: body.ftc_san_refs } : {}),
          ...(body.a2p_brand_ref !== undefined ? { a2p_brand_ref: body.a2p_brand_ref } : {}),
          ...(body.credentials
            ? {
                credentials_sealed: await sealCredentials(account.tenant_id, account.id, body.credentials),
                verification_status: 'pending' as const,
                verified_at: null,
                cps_limit: null,
              }
            : {}),
        },
        now(),
      );
      if (body.credentials) await recordCarrierAccountUse(body.credentials.account_sid, account.tenant_id, account.id);
      return ok(presentTelephonyAccount(updated));
    } catch (err) {
      if (err instanceof AccountChanged) throw conflict('telephony_account_changed', 'The account changed concurrently; read it and retry');
      throw err;
    }
  },
);
