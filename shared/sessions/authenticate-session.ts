/**
 * Session cookie → dashboard principal (see docs/decisions/auth-and-sessions.md). The cookie names a live session record;
 * its user must still be active and its tenant not deleted. Every failure is the same 401.
 * The checks every cookie route makes first (no Authorization header, the Origin) are in
 * ./origin.ts.
 */

import { now } from '../clock.js';
import { DomainError } from '../errors.js';
import type { Role } from '../policy/auth/roles.js';
import { readSessionCookie } from '../policy/auth/session-rules.js';
import { getTenant, tenantUsable } from '../repositories/tenants.js';
import { getSignInUser } from '../repositories/users.js';
import { useSession } from './session-cookie.js';

export interface SessionPrincipal {
  tenantId: string;
  type: 'session';
  userId: string;
  email: string;
  role: Role;
  /** True for a password account (deletion is confirmed with the password), false for a passwordless one (emailed proof). */
  hasPassword: boolean;
  sessionHash: string;
  sessionCreatedAt: string;
  sessionLastUsedAt: string;
}

const sessionUnauthorized = () => new DomainError('unauthorized', 'unauthorized', 'Missing or invalid session');
export async function authenticateSession(cookies: readonly string[] | undefined, cookieHeader: string | undefined): Promise<SessionPrincipal> {
  const value = readSessionCookie(cookies, cookieHeader);
  if (!value) throw sessionUnauthorized();
  const session = await useSession(value, now());
  if (!session) throw sessionUnauthorized();
  const [user, tenant] = await Promise.all([getSignInUser(session.tenant_id, session.user_id), getTenant(session.tenant_id)]);
  if (!user || user.status !== 'active' || !tenantUsable(tenant)) throw sessionUnauthorized();
  // A password set after the session opened ends it.
  if (user.password_set_at && Date.parse(session.created_at) < Date.parse(user.password_set_at)) throw sessionUnauthorized();
  return {
    tenantId: session.tenant_id,
    type: 'session',
    userId: user.id,
    email: user.email,
    role: user.role,
    hasPassword: Boolean(user.password_hash),
    sessionHash: session.secret_hash,
    sessionCreatedAt: session.created_at,
    sessionLastUsedAt: session.last_used_at,
  };
}
