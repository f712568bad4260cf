import { now } from '../../shared/clock.js';
import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getTelephonyAccount, presentTelephonyAccount } from '../../shared/repositories/telephony-accounts.js';
import { telephonyAccountSummary } from '../../shared/schemas/telephony.js';
import { accountPath } from '../../shared/schemas/telephony-paths.js';
import { verifyTelephonyAccount } from '../../shared/telephony/verify-account.js';

/**
 * POST /v1/telephony-accounts/{account_id}/verify — proves the credentials with the
 * provider (shared/telephony/verify-account.ts has the outcomes). Optional Idempotency-Key.
 */
export const handler = defineRoute(
  'verifyTelephonyAccount',
  bearer,
  { path: accountPath, responses: { 200: telephonyAccountSummary } },
  async ({ principal, path }) => {
    const account = await getTelephonyAccount(principal.tenantId, path.account_id);
    if (!account) throw notFound('Telephony account');
    return ok(presentTelephonyAccount(await verifyTelephonyAccount(account, now())));
  },
);
