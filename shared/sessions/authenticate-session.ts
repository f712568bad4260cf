/**
 * Session cookie → dashboard principal (see docs/decisions/auth-and-sessions.md). The cookie names a live session record;
 * its user must still be active and its tenant not deleted. Every failure is the same 401.
 * Cookie routes refuse an Authorization header outright (a bearer key never works there),
 * and a state-changing cookie route also needs `Origin` = the dashboard's origin (403).
 */

import { now } from '../clock.js';
import { DomainError } from '../errors.js';
import type { Role } from '../policy/auth/roles.js';
import { originAllowed, readSessionCookie, STATE_CHANGING_METHODS } from '../policy/auth/session-rules.js';
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
export const bearerOnCookieRoute = () =>
  new DomainError('unauthorized', 'unauthorized', 'This operation takes the dashboard session cookie, not an Authorization header');
const originRefused = (what: string) => new DomainError('forbidden', 'origin_refused', `The request's Origin is not ${what}`);

/** The dashboard's origin (DASHBOARD_ORIGIN) and the portal's (PORTAL_ORIGIN, defaulting to the dashboard's). */
export const dashboardOrigin = (): string | undefined => process.env.DASHBOARD_ORIGIN || undefined;
export const portalOrigin = (): string | undefined => process.env.PORTAL_ORIGIN || process.env.DASHBOARD_ORIGIN || undefined;

export function requireOrigin(method: string, origin: string | undefined, expected: string | undefined, what: string): void {
  if (!STATE_CHANGING_METHODS.includes(method.toUpperCase())) return;
  if (!originAllowed(origin, expected)) throw originRefused(what);
}

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
