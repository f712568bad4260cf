import { accountDeletionOverview as overview } from '../../shared/accounts/overview.js';
import { now } from '../../shared/clock.js';
import { parseToken } from '../../shared/crypto/opaque-token.js';
import { invalid } from '../../shared/errors.js';
import { originOnly } from '../../shared/http/auth/origin.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { DELETION_PROOF_PREFIX } from '../../shared/policy/accounts/deletion-rules.js';
import { confirmDeletion, getDeletionProofUser, spendProofItem } from '../../shared/repositories/account-deletion.js';
import { getTenant, tenantUsable } from '../../shared/repositories/tenants.js';
import { getSignInUser } from '../../shared/repositories/users.js';
import { accountDeletionOverview, actionTokenRequest, deletionConflict } from '../../shared/schemas/account-deletion.js';
import { errorSchema } from '../../shared/schemas/common.js';

const badToken = () => invalid(['body', 'token'], 'This confirmation link is invalid, expired, already used or replaced by a newer one');

/**
 * POST /v1/account-deletion/email-confirmations/confirm — no cookie: the emailed token is the
 * credential, and only the portal may submit it (Origin = PORTAL_ORIGIN, else 403 before the
 * token is read, so it stays usable). The token is spent by a conditional write in the same
 * transaction that creates or reconfirms the request: of concurrent uses exactly one wins.
 */
export const handler = defineRoute(
  'confirmAccountDeletionEmailConfirmation',
  originOnly,
  { body: actionTokenRequest, responses: { 200: accountDeletionOverview, 403: errorSchema, 409: deletionConflict } },
  async ({ body }) => {
    const at = now();
    const parsed = parseToken(DELETION_PROOF_PREFIX, body.token, 1);
    if (!parsed) throw badToken();
    const tenantId = parsed.scope[0]!;
    const userId = await getDeletionProofUser(tenantId);
    if (!userId) throw badToken();
    // The proof speaks for the admin who asked for it, only while that admin still may.
    const [user, tenant] = await Promise.all([getSignInUser(tenantId, userId), getTenant(tenantId)]);
    if (!user || user.status !== 'active' || user.role !== 'admin' || user.password_hash || !tenantUsable(tenant)) throw badToken();
    await confirmDeletion({ tenantId, userId, by: 'email', at }, [spendProofItem(tenantId, parsed.hash, at)], badToken);
    return ok(await overview(tenantId));
  },
);
