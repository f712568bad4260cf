/**
 * A dashboard session from the cookie's side: mint the secret (only its hash is stored),
 * and turn a cookie value back into a live session, sliding its idle expiry. The record
 * itself is the sessions store's.
 */
import { mintToken, parseToken } from '../crypto/opaque-token.js';
import { absoluteExpiry, needsTouch, SESSION_TOKEN_PREFIX, sessionActive } from '../policy/auth/session-rules.js';
import { getSession, putSession, type SessionRecord, sessionItem, touchSession } from '../repositories/sessions.js';

const ttlOf = (s: SessionRecord) => Math.ceil(absoluteExpiry(s) / 1000) + 3600;

/** The item a new session writes (alone, or in a link-spending transaction). */
export function newSession(tenantId: string, userId: string, at: Date): { cookieValue: string; record: SessionRecord; item: Record<string, unknown> } {
  const { token, hash } = mintToken(SESSION_TOKEN_PREFIX, []);
  const record: SessionRecord = { tenant_id: tenantId, user_id: userId, secret_hash: hash, created_at: at.toISOString(), last_used_at: at.toISOString() };
  return { cookieValue: token, record, item: sessionItem(record, ttlOf(record)) };
}

export async function createSession(tenantId: string, userId: string, at: Date): Promise<{ cookieValue: string; record: SessionRecord }> {
  const s = newSession(tenantId, userId, at);
  await putSession(s.item);
  return s;
}

/** The live session a cookie value names (and slides its idle expiry), or undefined. */
export async function useSession(cookieValue: string, at: Date): Promise<SessionRecord | undefined> {
  const parsed = parseToken(SESSION_TOKEN_PREFIX, cookieValue, 0);
  if (!parsed) return undefined;
  const record = await getSession(parsed.hash);
  if (!record || !sessionActive(record, at)) return undefined;
  if (needsTouch(record, at)) {
    await touchSession(parsed.hash, at);
    record.last_used_at = at.toISOString();
  }
  return record;
}
