/**
 * Dashboard sign-in with a password (see docs/decisions/auth-and-sessions.md).
 *
 * The attempt is admitted by the throttle (progressive delays per account, per source and
 * account, per source) before any lookup; the user is found by email; Argon2id verifies the password against the user's hash or, for an
 * unknown email or a passwordless user, against a dummy hash — so a wrong email and a wrong
 * password cost the same and answer the same 401. A success resets the account's counters.
 * (The emailed link is shared/sessions/email-link.ts, which needs no Argon2id.)
 */

import { verifyPassword } from '../auth/passwords.js';
import { DomainError } from '../errors.js';
import type { SessionRecord } from '../repositories/sessions.js';
import { createSession } from './session-cookie.js';
import { admitPasswordAttempt, passwordSucceeded, signInUser } from './throttle.js';

const invalidCredentials = () => new DomainError('unauthorized', 'invalid_credentials', 'Invalid email or password');

/** The signed-in user's password, checked again now (deletion and its cancellation): throttled like a sign-in. */
export async function passwordMatches(user: { email: string }, storedHash: string | null, password: string, sourceIp: string, at: Date): Promise<boolean> {
  const email = user.email.trim().toLowerCase();
  await admitPasswordAttempt(email, sourceIp, at);
  const ok = await verifyPassword(storedHash, password);
  if (ok) await passwordSucceeded(email, sourceIp);
  return ok;
}

export async function signInWithPassword(input: {
  email: string;
  password: string;
  sourceIp: string;
  at: Date;
}): Promise<SessionRecord & { cookieValue: string }> {
  const email = input.email.trim().toLowerCase();
  await admitPasswordAttempt(email, input.sourceIp, input.at);
  const user = await signInUser(email);
  const ok = await verifyPassword(user?.password_hash, input.password);
  if (!ok || !user) throw invalidCredentials();
  await passwordSucceeded(email, input.sourceIp);
  const session = await createSession(user.tenant_id, user.id, input.at);
  return { ...session.record, cookieValue: session.cookieValue };
}
