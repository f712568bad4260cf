/**
 * Sign-in throttling and the user an email signs in as (see docs/decisions/auth-and-sessions.md), shared by the password
 * and the emailed-link paths. No password hashing here: functions that import this module
 * alone bundle without the Argon2id native module.
 */

import { commit, conditionalTransaction, noChange, type TransactItem } from '../db/conditional-transaction.js';
import { DomainError } from '../errors.js';
import { admit, PASSWORD_BACKOFF, type PasswordScope, retryAfterSeconds, THROTTLES, type ThrottleScope } from '../policy/auth/throttle-rules.js';
import { getTenant, tenantUsable } from '../repositories/tenants.js';
import { backoffPut, clearBackoff, giveBackFailure, readBackoff, releaseSlot, reserveSlot } from '../repositories/throttles.js';
import { findLogin, getSignInUser, type SignInUser } from '../repositories/users.js';

const tooMany = (seconds: number) =>
  new DomainError('rate_limited', 'too_many_attempts', 'Too many attempts; try again later', {}, { retryAfterSeconds: seconds });

/** Takes a slot in each scope, in order; on a refusal gives back the ones taken and throws 429. */
export async function reserveAll(slots: [ThrottleScope, string][], at: Date): Promise<void> {
  const taken: [ThrottleScope, string][] = [];
  for (const [scope, subject] of slots) {
    if (await reserveSlot(scope, subject, at)) {
      taken.push([scope, subject]);
      continue;
    }
    await Promise.all(taken.map(([s, sub]) => releaseSlot(s, sub, at)));
    throw tooMany(retryAfterSeconds(at, THROTTLES[scope]));
  }
}

/** The three password scopes of one attempt: the account, the source with that account, the source. */
const passwordScopes = (email: string, sourceIp: string): [PasswordScope, string][] => [
  ['password_account', email],
  ['password_pair', `${sourceIp} ${email}`],
  ['password_source', sourceIp],
];

/**
 * Admits one password attempt (counted as a failure until `passwordSucceeded`) or throws 429
 * with the longest wait any scope asks for. Every scope is written in one transaction
 * conditioned on what was read, so concurrent attempts are counted exactly.
 */
export async function admitPasswordAttempt(email: string, sourceIp: string, at: Date): Promise<void> {
  const scopes = passwordScopes(email, sourceIp);
  const wait = await conditionalTransaction<number>({
    decide: async () => {
      const reads = await Promise.all(scopes.map(([scope, subject]) => readBackoff(scope, subject)));
      const items: TransactItem[] = [];
      let wait = 0;
      scopes.forEach(([scope, subject], i) => {
        const decision = admit(reads[i]!.state, at, PASSWORD_BACKOFF[scope]);
        if (decision.admitted) items.push(backoffPut(scope, subject, reads[i]!, decision.next));
        else wait = Math.max(wait, decision.retryAfterSeconds);
      });
      return wait > 0 ? noChange(wait) : commit(items, 0);
    },
    // Lost every race: others are guessing this account right now; this one waits its turn.
    exhausted: () => tooMany(1),
  });
  if (wait > 0) throw tooMany(wait);
}

/** The right password: the account's counters start over; the source gets its attempt back. */
export async function passwordSucceeded(email: string, sourceIp: string): Promise<void> {
  await Promise.all([
    clearBackoff('password_account', email),
    clearBackoff('password_pair', `${sourceIp} ${email}`),
    giveBackFailure('password_source', sourceIp),
  ]);
}

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
