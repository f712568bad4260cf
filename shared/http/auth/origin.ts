/**
 * `dashboard_origin` / `portal_origin`: no credential yet (signing in, the emailed deletion
 * proof), but a cookie-side route: no Authorization header, and a state-changing request
 * must come from the dashboard's (or the portal's) Origin.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RouteDefinition } from '../../routes.js';
import { bearerOnCookieRoute, dashboardOrigin, portalOrigin, requireOrigin } from '../../sessions/origin.js';
import type { RouteAuth } from '../route-auth.js';

/** Every cookie-side route (session ones too): no API key (a stolen key cannot reach them), and the Origin check. */
export function cookieRouteChecks(route: RouteDefinition, event: APIGatewayProxyEventV2): void {
  const headers = event.headers ?? {};
  if (headers.authorization !== undefined) throw bearerOnCookieRoute();
  const method = event.requestContext?.http?.method ?? route.method;
  if (route.auth === 'portal_origin') requireOrigin(method, headers.origin, portalOrigin(), 'the portal');
  else requireOrigin(method, headers.origin, dashboardOrigin(), 'the dashboard');
}

export const originOnly: RouteAuth<Record<never, never>> = {
  modes: ['dashboard_origin', 'portal_origin'],
  async prove(route, event) {
    cookieRouteChecks(route, event);
    return { fields: {} };
  },
};
