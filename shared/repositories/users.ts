import { createHash } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { collections, keys, platformKeys } from '../db/keys.js';
import { type Page, queryPage } from '../pagination/page.js';
import type { Role } from '../policy/auth/roles.js';
import { revokeSessions } from './sessions.js';

export interface User {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  status: 'active' | 'deactivated';
  created_at: string;
  updated_at: string;
}

export const userItem = (tenantId: string, u: User) => ({ ...keys.user(tenantId, u.id), type: 'user', tenant_id: tenantId, ...u });
/** Guard item that makes an email unique within a tenant (written in the same transaction). */
export const userEmailGuard = (tenantId: string, u: User) => ({ ...keys.userEmail(tenantId, u.email), type: 'user_email', user_id: u.id });

const toUser = (item: Record<string, unknown>): User => {
  const { id, email, name, role, status, created_at, updated_at } = item as unknown as User;
  return { id, email, name: name ?? null, role, status, created_at, updated_at };
};

export function listUsers(tenantId: string, opts: { limit: number; cursor?: string }): Promise<Page<User>> {
  return queryPage({
    tenantId,
    scope: 'users',
    skPrefix: collections.users,
    newestFirst: true,
    limit: opts.limit,
    cursor: opts.cursor,
    map: toUser,
  });
}

/**
 * Dashboard sign-in (see docs/decisions/auth-and-sessions.md). The user item also holds `password_hash` (Argon2id, never
 * presented) and `email_verified_at`; a user with either can sign in, found by email through
 * the platform login item (`platformKeys.loginEmail`), which names one tenant user per email.
 */
export interface SignInUser extends User {
  tenant_id: string;
  password_hash: string | null;
  /** When the password was last set: sessions opened before it are no longer valid. */
  password_set_at: string | null;
  email_verified_at: string | null;
}

const emailHash = (email: string): string => createHash('sha256').update(email.trim().toLowerCase()).digest('hex');

export async function getSignInUser(tenantId: string, userId: string): Promise<SignInUser | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: keys.user(tenantId, userId), ConsistentRead: true }));
  if (!out.Item) return undefined;
  return {
    ...toUser(out.Item),
    tenant_id: tenantId,
    password_hash: (out.Item.password_hash as string | undefined) ?? null,
    password_set_at: (out.Item.password_set_at as string | undefined) ?? null,
    email_verified_at: (out.Item.email_verified_at as string | undefined) ?? null,
  };
}

/** The tenant user this email signs in as, if any. */
export async function findLogin(email: string): Promise<{ tenant_id: string; user_id: string } | undefined> {
  const out = await db().send(new GetCommand({ TableName: tableName(), Key: platformKeys.loginEmail(emailHash(email)), ConsistentRead: true }));
  const item = out.Item as { tenant_id?: string; user_id?: string } | undefined;
  return item?.tenant_id && item.user_id ? { tenant_id: item.tenant_id, user_id: item.user_id } : undefined;
}

export class LoginEmailTaken extends Error {}

/**
 * Give the user a password (`passwordHash`) or a verified email (`emailVerifiedAt`), and bind
 * its email to it for sign-in, in one transaction. The email may already sign in as this
 * user, not as anyone else (LoginEmailTaken).
 */
export async function enableSignIn(
  tenantId: string,
  userId: string,
  change: { passwordHash?: string; emailVerifiedAt?: string },
  at: Date,
): Promise<SignInUser> {
  const user = await getSignInUser(tenantId, userId);
  if (!user) throw new Error(`user ${userId} does not exist in tenant ${tenantId}`);
  const sets = ['updated_at = :at'];
  const values: Record<string, unknown> = { ':at': at.toISOString() };
  if (change.passwordHash) {
    sets.push('password_hash = :h', 'password_set_at = :at');
    values[':h'] = change.passwordHash;
  }
  if (change.emailVerifiedAt) {
    sets.push('email_verified_at = :v');
    values[':v'] = change.emailVerifiedAt;
  }
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: keys.user(tenantId, userId),
              UpdateExpression: `SET ${sets.join(', ')}`,
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: values,
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: { ...platformKeys.loginEmail(emailHash(user.email)), type: 'login_email', tenant_id: tenantId, user_id: userId },
              ConditionExpression: 'attribute_not_exists(pk) OR (tenant_id = :t AND user_id = :u)',
              ExpressionAttributeValues: { ':t': tenantId, ':u': userId },
            },
          },
        ],
      }),
    );
  } catch (err) {
    if (err instanceof TransactionCanceledException && err.CancellationReasons?.[1]?.Code === 'ConditionalCheckFailed') throw new LoginEmailTaken(user.email);
    throw err;
  }
  // A new password ends every session the user had (sessions opened before password_set_at
  // are refused anyway, so a sign-in racing this delete cannot outlive the change).
  if (change.passwordHash) await revokeSessions(tenantId, userId);
  return {
    ...user,
    password_hash: change.passwordHash ?? user.password_hash,
    password_set_at: change.passwordHash ? at.toISOString() : user.password_set_at,
    email_verified_at: change.emailVerifiedAt ?? user.email_verified_at,
  };
}
