import { now } from '../../shared/clock.js';
import { mintToken } from '../../shared/crypto/opaque-token.js';
import { conflict } from '../../shared/errors.js';
import { session } from '../../shared/http/auth/session.js';
import { ok } from '../../shared/http/responses.js';
import { defineRoute } from '../../shared/http/route.js';
import { sendMail } from '../../shared/mail/mailer.js';
import { deletionProofMail } from '../../shared/mail/messages.js';
import { DELETION_PROOF_PREFIX, DELETION_PROOF_TTL_MS, maskEmail } from '../../shared/policy/accounts/deletion-rules.js';
import { putDeletionProof } from '../../shared/repositories/account-deletion.js';
import { getTenant } from '../../shared/repositories/tenants.js';
import { getSignInUser } from '../../shared/repositories/users.js';
import { emailConfirmationAccepted } from '../../shared/schemas/account-deletion.js';
import { errorSchema } from '../../shared/schemas/common.js';
import { portalOrigin } from '../../shared/sessions/origin.js';

/**
 * POST /v1/account-deletion/email-confirmations — passwordless accounts: a fresh one-use
 * proof (256 bits, stored hashed, 30 minutes; it replaces any earlier one) mailed to the
 * signed-in admin's verified mailbox. A password account confirms with its password (409).
 */
export const handler = defineRoute(
  'createAccountDeletionEmailConfirmation',
  session,
  { responses: { 200: emailConfirmationAccepted, 401: errorSchema, 403: errorSchema, 409: errorSchema } },
  async ({ session }) => {
    const at = now();
    const [user, tenant] = await Promise.all([getSignInUser(session.tenantId, session.userId), getTenant(session.tenantId)]);
    if (!user || user.password_hash)
      throw conflict('password_account', 'This account has a password: confirm the deletion with it (POST /v1/account-deletion/requests)');
    if (!user.email_verified_at) throw conflict('email_not_verified', 'This account has no verified mailbox to send the proof to');
    const { token, hash } = mintToken(DELETION_PROOF_PREFIX, [session.tenantId]);
    const { expiresAt } = await putDeletionProof({ tenantId: session.tenantId, userId: user.id, tokenHash: hash, at });
    await sendMail(deletionProofMail(user.email, portalOrigin() ?? '', token, tenant?.name ?? '', DELETION_PROOF_TTL_MS / 60_000), at);
    return ok({ sent_to: maskEmail(user.email), expires_at: expiresAt.toISOString() });
  },
);
