/**
 * Dashboard sign-in with a one-use emailed link (issue 16): the link's token (256 bits, stored
 * hashed, 15 minutes, replaced by a newer one) is spent by a conditional write in the same
 * transaction that opens the session.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.js';
import { keys } from '../db/keys.js';
import { invalid } from '../http/errors.js';
import { mintToken, parseToken } from '../auth/opaque-token.js';
import { SIGNIN_LINK_PREFIX, SIGNIN_LINK_TTL_MS } from '../accounts/deletion-rules.js';
import { newSession, type SessionRecord } from '../repositories/sessions.js';
import { getSignInUser } from '../repositories/users.js';
import { getTenant, tenantUsable } from '../repositories/tenants.js';
import { sendMail } from '../mail/mailer.js';
import { signInLinkMail } from '../mail/messages.js';
import { reserveAll, signInUser } from './throttle.js';

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
  if (!user || user.status !== 'active' || !user.email_verified_at || !tenantUsable(tenant)) throw badLinkToken();
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
