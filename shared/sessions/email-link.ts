/**
 * Dashboard sign-in with a one-use emailed link (see docs/decisions/auth-and-sessions.md): the link's token (256 bits, stored
 * hashed, 15 minutes, replaced by a newer one) is spent by a conditional write in the same
 * transaction that opens the session.
 */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { mintToken, parseToken } from '../crypto/opaque-token.js';
import { putNew, transactWrite } from '../db/transact-write.js';
import { invalid } from '../errors.js';
import { sendMail } from '../mail/mailer.js';
import { signInLinkMail } from '../mail/messages.js';
import { logger } from '../observability.js';
import { SIGNIN_LINK_PREFIX, SIGNIN_LINK_TTL_MS } from '../policy/accounts/deletion-rules.js';
import type { SessionRecord } from '../repositories/sessions.js';
import { putSignInLink, spendSignInLinkItem } from '../repositories/sign-in-links.js';
import { getTenant, tenantUsable } from '../repositories/tenants.js';
import { getSignInUser } from '../repositories/users.js';
import { newSession } from './session-cookie.js';
import { reserveAll, signInUser } from './throttle.js';

/**
 * Email a sign-in link when the email belongs to a user with a verified mailbox; nothing
 * otherwise. The caller answers the same 202 either way. The newest link replaces the last.
 */
export async function requestEmailLink(input: { email: string; sourceIp: string; at: Date; dashboardOrigin: string }): Promise<void> {
  const started = performance.now();
  const email = input.email.trim().toLowerCase();
  await reserveAll(
    [
      ['link_account', email],
      ['link_source', input.sourceIp],
    ],
    input.at,
  );
  const user = await signInUser(email);
  const sendsLink = Boolean(user?.email_verified_at);
  const { token, hash } = mintToken(SIGNIN_LINK_PREFIX, sendsLink ? [user!.tenant_id, user!.id] : []);
  const expiresAt = new Date(input.at.getTime() + SIGNIN_LINK_TTL_MS);
  const ttl = Math.ceil(expiresAt.getTime() / 1000) + 86_400;
  // The same write either way: the link, or a decoy of the same size under one platform key.
  await putSignInLink({
    owner: sendsLink ? { tenant_id: user!.tenant_id, user_id: user!.id } : null,
    token_hash: hash,
    created_at: input.at.toISOString(),
    expires_at: expiresAt.toISOString(),
    ttl,
  });
  if (sendsLink) await sendMail(signInLinkMail(user!.email, input.dashboardOrigin, token, SIGNIN_LINK_TTL_MS / 60_000), input.at);
  // Only the mail is left to differ: every answer waits until the same floor after the request began.
  await answerNoSoonerThan(started, EMAIL_LINK_MIN_MS);
}

/** Every email-link request answers no sooner than this after it began (longer than a mail send takes). */
const EMAIL_LINK_MIN_MS = 250;

async function answerNoSoonerThan(started: number, floorMs: number): Promise<void> {
  const left = started + floorMs - performance.now();
  if (left > 0) await new Promise((r) => setTimeout(r, left));
  else logger.warn('email-link request took longer than its timing floor', { elapsed_ms: Math.round(floorMs - left), floor_ms: floorMs });
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
    await transactWrite([spendSignInLinkItem(tenantId, userId, parsed.hash, input.at), putNew(session.item)]);
  } catch (err) {
    if (err instanceof TransactionCanceledException || err instanceof ConditionalCheckFailedException) throw badLinkToken();
    throw err;
  }
  return { ...session.record, cookieValue: session.cookieValue };
}
