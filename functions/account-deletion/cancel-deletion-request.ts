import { accountDeletionOverview as overview } from '../../shared/accounts/overview.js';
import { now } from '../../shared/clock.js';
import { invalid } from '../../shared/errors.js';
import { session } from '../../shared/http/auth/session.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { cancelDeletion } from '../../shared/repositories/account-deletion.js';
import { getSignInUser } from '../../shared/repositories/users.js';
import { accountDeletionOverview, cancelDeletionRequest, deletionConflict } from '../../shared/schemas/account-deletion.js';
import { errorSchema } from '../../shared/schemas/common.js';
import { passwordMatches } from '../../shared/sessions/sign-in.js';

/**
 * DELETE /v1/account-deletion/requests — cancel a pending deletion during the grace period.
 * A password account re-enters its password (422 at ["body","password"] when wrong or
 * missing); a passwordless account cancels with its session (cancelling only keeps data).
 */
export const handler = defineRoute(
  'cancelAccountDeletionRequest',
  session,
  {
    body: cancelDeletionRequest.optional(),
    responses: { 200: accountDeletionOverview, 401: errorSchema, 403: errorSchema, 409: deletionConflict, 429: errorSchema },
  },
  async ({ session, body, sourceIp }) => {
    const at = now();
    const user = await getSignInUser(session.tenantId, session.userId);
    if (user?.password_hash) {
      const password = body?.password;
      if (!password) throw invalid(['body', 'password'], 'A password account re-enters its password to cancel', 'missing');
      if (!(await passwordMatches(user, user.password_hash, password, sourceIp ?? 'unknown', at)))
        throw invalid(['body', 'password'], 'The password is not correct');
    }
    await cancelDeletion({ tenantId: session.tenantId, userId: session.userId, at });
    return ok(await overview(session.tenantId));
  },
);
