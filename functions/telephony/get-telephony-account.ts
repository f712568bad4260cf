import { notFound } from '../../shared/errors.js';
import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { getTelephonyAccount, presentTelephonyAccount } from '../../shared/repositories/telephony-accounts.js';
import { telephonyAccountSummary } from '../../shared/schemas/telephony.js';
import { accountPath } from '../../shared/schemas/telephony-paths.js';

/** GET /v1/telephony-accounts/{account_id} — TelephonyAccountSummary; credential material never. */
export const handler = defineRoute(
  'getTelephonyAccount',
  bearer,
  { path: accountPath, responses: { 200: telephonyAccountSummary } },
  async ({ principal, path }) => {
    const account = await getTelephonyAccount(principal.tenantId, path.account_id);
    if (!account) throw notFound('Telephony account');
    return ok(presentTelephonyAccount(account));
  },
);
