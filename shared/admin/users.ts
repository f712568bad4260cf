/**
 * Operator actions for dashboard sign-in (see docs/decisions/auth-and-sessions.md): give a user a password (read from stdin
 * by bin/admin.ts, never an argument) or mark its email verified (a passwordless user who
 * signs in with emailed links). Either binds the email to the user for sign-in.
 */
import { hashPassword, passwordProblem } from '../auth/passwords.js';
import { enableSignIn, getSignInUser, LoginEmailTaken } from '../repositories/users.js';
import { OperatorError } from './bootstrap.js';

async function requireUser(tenantId: string, userId: string) {
  const user = await getSignInUser(tenantId, userId);
  if (!user) throw new OperatorError(`user ${userId} does not exist in tenant ${tenantId}`);
  return user;
}

const bind = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (err) {
    if (err instanceof LoginEmailTaken) throw new OperatorError(`the email ${err.message} already signs in as another user`);
    throw err;
  }
};

export async function setPasswordAction(input: { tenantId: string; userId: string; password: string }) {
  const problem = passwordProblem(input.password);
  if (problem) throw new OperatorError(problem);
  await requireUser(input.tenantId, input.userId);
  const hash = await hashPassword(input.password);
  const user = await bind(() => enableSignIn(input.tenantId, input.userId, { passwordHash: hash }, new Date()));
  return { tenant_id: input.tenantId, user_id: user.id, email: user.email, password_set: true };
}

export async function verifyEmailAction(input: { tenantId: string; userId: string }) {
  await requireUser(input.tenantId, input.userId);
  const at = new Date();
  const user = await bind(() => enableSignIn(input.tenantId, input.userId, { emailVerifiedAt: at.toISOString() }, at));
  return { tenant_id: input.tenantId, user_id: user.id, email: user.email, email_verified_at: user.email_verified_at };
}
