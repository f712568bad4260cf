/**
 * Dashboard sign-in with a password (see docs/decisions/auth-and-sessions.md).
 *
 * Both throttle slots (account = the email, source = the IP) are taken before any lookup; the
 * user is found by email; Argon2id verifies the password against the user's hash or, for an
 * unknown email or a passwordless user, against a dummy hash — so a wrong email and a wrong
 * password cost the same and answer the same 401. A success gives the slots back.
 * (The emailed link is shared/sessions/email-link.ts, which needs no Argon2id.)
 */
import { HttpError } from '../http/errors.js';
import { verifyPassword } from '../auth/passwords.js';
import type { ThrottleScope } from '../auth/throttle-rules.js';
import { createSession, type SessionRecord } from '../repositories/sessions.js';
import { releaseAll, reserveAll, signInUser } from './throttle.js';

const invalidCredentials = () => new HttpError(401, 'invalid_credentials', 'Invalid email or password');

/** The signed-in user's password, checked again now (deletion and its cancellation): throttled like a sign-in. */
export async function passwordMatches(user: { email: string }, storedHash: string | null, password: string, sourceIp: string, at: Date): Promise<boolean> {
  const slots: [ThrottleScope, string][] = [['password_account', user.email], ['password_source', sourceIp]];
  await reserveAll(slots, at);
  const ok = await verifyPassword(storedHash, password);
  if (ok) await releaseAll(slots, at);
  return ok;
}

export async function signInWithPassword(input: { email: string; password: string; sourceIp: string; at: Date }): Promise<SessionRecord & { cookieValue: string }> {
  const email = input.email.trim().toLowerCase();
  const slots: [ThrottleScope, string][] = [['password_account', email], ['password_source', input.sourceIp]];
  await reserveAll(slots, input.at);
  const user = await signInUser(email);
  const ok = await verifyPassword(user?.password_hash, input.password);
  if (!ok || !user) throw invalidCredentials();
  await releaseAll(slots, input.at);
  const session = await createSession(user.tenant_id, user.id, input.at);
  return { ...session.record, cookieValue: session.cookieValue };
}

