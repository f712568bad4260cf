/** `session`: the dashboard session cookie (shared/sessions/authenticate-session.ts), after the cookie-route checks. */
import { logger } from '../../observability.js';
import { authenticateSession, type SessionPrincipal } from '../../sessions/authenticate-session.js';
import type { RouteAuth } from '../route-auth.js';
import { cookieRouteChecks } from './origin.js';

export const session: RouteAuth<{ session: SessionPrincipal }> = {
  modes: ['session'],
  async prove(route, event) {
    cookieRouteChecks(route, event);
    const session = await authenticateSession(event.cookies, event.headers?.cookie);
    logger.appendKeys({ tenant_id: session.tenantId, user_id: session.userId });
    return { fields: { session }, role: session.role };
  },
};
