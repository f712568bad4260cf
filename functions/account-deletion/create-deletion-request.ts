import { accountDeletionOverview as overview } from '../../shared/accounts/overview.js';
import { now } from '../../shared/clock.js';
import { conflict, ValidationError, type ValidationIssue } from '../../shared/errors.js';
import { session } from '../../shared/http/auth/session.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { confirmationPhrase, phraseMatches } from '../../shared/policy/accounts/deletion-rules.js';
import { confirmDeletion } from '../../shared/repositories/account-deletion.js';
import { getTenant } from '../../shared/repositories/tenants.js';
import { getSignInUser } from '../../shared/repositories/users.js';
import { accountDeletionOverview, deleteAccountRequest, deletionConflict } from '../../shared/schemas/account-deletion.js';
import { errorSchema } from '../../shared/schemas/common.js';
import { passwordMatches } from '../../shared/sessions/sign-in.js';

/**
 * POST /v1/account-deletion/requests — a password account confirms with its password,
 * checked again now (not the session's age), and the exact phrase `delete <tenant name>`;
 * both wrong → both issues. Creates the request (runs after the grace period) or reconfirms
 * a pending one (its schedule stays). Passwordless accounts use the emailed proof (409).
 */
export const handler = defineRoute(
  'createAccountDeletionRequest',
  session,
  { body: deleteAccountRequest, responses: { 200: accountDeletionOverview, 401: errorSchema, 403: errorSchema, 409: deletionConflict, 429: errorSchema } },
  async ({ session, body, sourceIp }) => {
    const at = now();
    const [user, tenant] = await Promise.all([getSignInUser(session.tenantId, session.userId), getTenant(session.tenantId)]);
    if (!user?.password_hash)
      throw conflict(
        'password_not_set',
        'This account signs in without a password: confirm the deletion with the emailed proof (POST /v1/account-deletion/email-confirmations)',
      );
    const issues: ValidationIssue[] = [];
    if (!(await passwordMatches(user, user.password_hash, body.password, sourceIp ?? 'unknown', at))) {
      issues.push({ loc: ['body', 'password'], msg: 'The password is not correct', type: 'value_error' });
    }
    if (!phraseMatches(body.confirmation_phrase, tenant?.name ?? '')) {
      issues.push({
        loc: ['body', 'confirmation_phrase'],
        msg: `Type exactly: ${confirmationPhrase(tenant?.name ?? '')}`,
        type: 'value_error',
        input: body.confirmation_phrase,
      });
    }
    if (issues.length) throw new ValidationError(issues);
    await confirmDeletion({ tenantId: session.tenantId, userId: session.userId, by: 'password', at });
    return ok(await overview(session.tenantId));
  },
);
