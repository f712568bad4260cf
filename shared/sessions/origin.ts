/**
 * The checks every cookie-side route makes before anything else (see
 * docs/decisions/auth-and-sessions.md): an Authorization header is refused outright (a bearer
 * key never works there), and a state-changing request needs `Origin` = the dashboard's (or
 * the portal's) origin (403). No store: the sign-in routes check these with no session yet.
 */
import { DomainError } from '../errors.js';
import { originAllowed, STATE_CHANGING_METHODS } from '../policy/auth/session-rules.js';

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
