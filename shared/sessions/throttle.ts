/**
 * Sign-in throttling and the user an email signs in as (see docs/decisions/auth-and-sessions.md), shared by the password
 * and the emailed-link paths. No password hashing here: functions that import this module
 * alone bundle without the Argon2id native module.
 */
import { HttpError } from '../http/errors.js';
import { retryAfterSeconds, THROTTLES, type ThrottleScope } from '../auth/throttle-rules.js';
import { releaseSlot, reserveSlot } from '../repositories/throttles.js';
import { findLogin, getSignInUser, type SignInUser } from '../repositories/users.js';
import { getTenant, tenantUsable } from '../repositories/tenants.js';

const throttled = (scope: ThrottleScope, at: Date) =>
  new HttpError(429, 'too_many_attempts', 'Too many attempts; try again later', { 'retry-after': String(retryAfterSeconds(at, THROTTLES[scope])) });

/** Takes a slot in each scope, in order; on a refusal gives back the ones taken and throws 429. */
export async function reserveAll(slots: [ThrottleScope, string][], at: Date): Promise<void> {
  const taken: [ThrottleScope, string][] = [];
  for (const [scope, subject] of slots) {
    if (await reserveSlot(scope, subject, at)) {
      taken.push([scope, subject]);
      continue;
    }
    await Promise.all(taken.map(([s, sub]) => releaseSlot(s, sub, at)));
    throw throttled(scope, at);
  }
}


/** Give back every slot (a success). */
export const releaseAll = (slots: [ThrottleScope, string][], at: Date) => Promise.all(slots.map(([s, sub]) => releaseSlot(s, sub, at)));

/** Ids no tenant or user has: an unknown email reads them, so it does the same reads as a known one. */
const NO_TENANT = 'ten_00000000000000000000000000';
const NO_USER = 'usr_00000000000000000000000000';

/**
 * The tenant user an email may sign in as (active user of a live tenant), or undefined. An
 * unknown email reads a user and a tenant that do not exist, so both paths make the same
 * three reads (timing parity with the known path, next to the same Argon2id verification).
 */
export async function signInUser(email: string): Promise<SignInUser | undefined> {
  const login = await findLogin(email);
  const [user, tenant] = await Promise.all([getSignInUser(login?.tenant_id ?? NO_TENANT, login?.user_id ?? NO_USER), getTenant(login?.tenant_id ?? NO_TENANT)]);
  if (!login || !user || user.status !== 'active' || !tenantUsable(tenant)) return undefined;
  return user;
}
