import { bearer } from '../../shared/http/auth/bearer.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { listTelephonyAccounts } from '../../shared/repositories/telephony-accounts.js';
import { cursorPage, pageQuery } from '../../shared/schemas/common.js';
import { telephonyAccountSummary } from '../../shared/schemas/telephony.js';

/** GET /v1/telephony-accounts — admin only; newest first. */
export const handler = defineRoute(
  'listTelephonyAccounts',
  bearer,
  { query: pageQuery, responses: { 200: cursorPage(telephonyAccountSummary) } },
  async ({ principal, query }) => ok(await listTelephonyAccounts(principal.tenantId, query)),
);
