/**
 * Dashboard sign-in (issue 16): password and one-use emailed link.
 *
 * Password: both throttle slots (account = the email, source = the IP) are taken before any
 * lookup; the user is found by email; Argon2id verifies the password against the user's hash
 * or, for an unknown email or a passwordless user, against a dummy hash — so a wrong email
 * and a wrong password cost the same and answer the same 401. A success gives the slots back.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { keys } from '../db/keys.js';
import { HttpError, invalid } from '../http/errors.js';
import { mintToken, parseToken } from '../auth/opaque-token.js';
import { verifyPassword } from '../auth/passwords.js';
import { retryAfterSeconds, THROTTLES, type ThrottleScope } from '../auth/throttle-rules.js';
import { SIGNIN_LINK_PREFIX, SIGNIN_LINK_TTL_MS } from '../accounts/deletion-rules.js';
import { releaseSlot, reserveSlot } from '../repositories/throttles.js';
import { createSession, newSession, type SessionRecord } from '../repositories/sessions.js';
import { findLogin, getSignInUser, type SignInUser } from '../repositories/users.js';
import { getTenant } from '../repositories/tenants.js';
import { sendMail } from '../mail/mailer.js';
import { signInLinkMail } from '../mail/messages.js';

export const invalidCredentials = () => new HttpError(401, 'invalid_credentials', 'Invalid email or password');
const throttled = (scope: ThrottleScope, at: Date) =>
  new HttpError(429, 'too_many_attempts', 'Too many attempts; try again later', { 'retry-after': String(retryAfterSeconds(at, THROTTLES[scope])) });

/** Takes a slot in each scope, in order; on a refusal gives back the ones taken and throws 429. */
async function reserveAll(slots: [ThrottleScope, string][], at: Date): Promise<void> {
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

/** The tenant user an email may sign in as (active user of a live tenant), or undefined. */
async function signInUser(email: string): Promise<SignInUser | undefined> {
  const login = await findLogin(email);
  if (!login) return undefined;
  const [user, tenant] = await Promise.all([getSignInUser(login.tenant_id, login.user_id), getTenant(login.tenant_id)]);
  if (!user || user.status !== 'active' || !tenant || (tenant.status as string) === 'deleted') return undefined;
  return user;
}

/** The signed-in user's password, checked again now (deletion and its cancellation): throttled like a sign-in. */
export async function passwordMatches(user: { email: string }, storedHash: string | null, password: string, sourceIp: string, at: Date): Promise<boolean> {
  const slots: [ThrottleScope, string][] = [['password_account', user.email], ['password_source', sourceIp]];
  await reserveAll(slots, at);
  const ok = await verifyPassword(storedHash, password);
  if (ok) await Promise.all(slots.map(([s, sub]) => releaseSlot(s, sub, at)));
  return ok;
}

export async function signInWithPassword(input: { email: string; password: string; sourceIp: string; at: Date }): Promise<SessionRecord & { cookieValue: string }> {
  const email = input.email.trim().toLowerCase();
  const slots: [ThrottleScope, string][] = [['password_account', email], ['password_source', input.sourceIp]];
  await reserveAll(slots, input.at);
  const user = await signInUser(email);
  const ok = await verifyPassword(user?.password_hash, input.password);
  if (!ok || !user) throw invalidCredentials();
  await Promise.all(slots.map(([s, sub]) => releaseSlot(s, sub, input.at)));
  const session = await createSession(user.tenant_id, user.id, input.at);
  return { ...session.record, cookieValue: session.cookieValue };
}

/**
 * Email a sign-in link when the email belongs to a user with a verified mailbox; nothing
 * otherwise. The caller answers the same 202 either way. The newest link replaces the last.
 */
export async function requestEmailLink(input: { email: string; sourceIp: string; at: Date; dashboardOrigin: string }): Promise<void> {
  const email = input.email.trim().toLowerCase();
  await reserveAll([['link_account', email], ['link_source', input.sourceIp]], input.at);
  const user = await signInUser(email);
  if (!user?.email_verified_at) return;
  const { token, hash } = mintToken(SIGNIN_LINK_PREFIX, [user.tenant_id, user.id]);
  const expiresAt = new Date(input.at.getTime() + SIGNIN_LINK_TTL_MS);
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.signInLink(user.tenant_id, user.id), type: 'signin_link', tenant_id: user.tenant_id, user_id: user.id, token_hash: hash, created_at: input.at.toISOString(), expires_at: expiresAt.toISOString(), ttl: Math.ceil(expiresAt.getTime() / 1000) + 86_400 },
    }),
  );
  await sendMail(signInLinkMail(user.email, input.dashboardOrigin, token, SIGNIN_LINK_TTL_MS / 60_000), input.at);
}

const badLinkToken = () => invalid(['body', 'token'], 'This sign-in link is invalid, expired, already used or replaced by a newer one', 'value_error');

/** Spend a sign-in link and open a session, in one transaction: exactly one of many concurrent uses wins. */
export async function confirmEmailLink(input: { token: string; at: Date }): Promise<SessionRecord & { cookieValue: string }> {
  const parsed = parseToken(SIGNIN_LINK_PREFIX, input.token, 2);
  if (!parsed) throw badLinkToken();
  const [tenantId, userId] = parsed.scope as [string, string];
  const user = await getSignInUser(tenantId, userId);
  const tenant = await getTenant(tenantId);
  if (!user || user.status !== 'active' || !user.email_verified_at || !tenant || (tenant.status as string) === 'deleted') throw badLinkToken();
  const session = newSession(tenantId, userId, input.at);
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: keys.signInLink(tenantId, userId),
              UpdateExpression: 'SET spent_at = :at',
              ConditionExpression: 'token_hash = :h AND attribute_not_exists(spent_at) AND expires_at > :at',
              ExpressionAttributeValues: { ':h': parsed.hash, ':at': input.at.toISOString() },
            },
          },
          { Put: { TableName: tableName(), Item: session.item, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
  } catch (err) {
    if (err instanceof TransactionCanceledException || err instanceof ConditionalCheckFailedException) throw badLinkToken();
    throw err;
  }
  return { ...session.record, cookieValue: session.cookieValue };
}
