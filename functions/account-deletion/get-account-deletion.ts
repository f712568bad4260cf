import { accountDeletionOverview as overview } from '../../shared/accounts/overview.js';
import { session } from '../../shared/http/auth/session.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { accountDeletionOverview } from '../../shared/schemas/account-deletion.js';
import { errorSchema } from '../../shared/schemas/common.js';

/** GET /v1/account-deletion — what deletion would remove now, and the request's status (none, pending with scheduled_for, cancelled, …). */
export const handler = defineRoute('getAccountDeletion', session, { responses: { 200: accountDeletionOverview, 401: errorSchema } }, async ({ session }) =>
  ok(await overview(session.tenantId)),
);
