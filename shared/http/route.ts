/**
 * The one factory that builds every HTTP handler (the design).
 *
 * A handler file declares its schemas and its work; this factory wraps it in the middy
 * stack every route shares (shared/http/route-core.ts), in this order:
 *   logging + metrics → error mapping → auth + role check (the manifest's mode) → body
 *   parsing → zod validation of path/query/headers/body (+ declared list filters) → idempotency
 * so an unauthenticated caller learns nothing about the schema, and nothing touches
 * data before the credential is proven. The manifest entry (shared/routes.ts) supplies
 * the route's auth, role and idempotency modes.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { authenticate, type Principal } from '../auth/authenticate.js';
import { authenticateStreamToken, type StreamPrincipal } from '../auth/stream-token.js';
import { forbidden } from '../errors.js';
import { logger } from '../observability.js';
import { type FilterCondition, type FilterSpec, parseFilters } from '../pagination/filters.js';
import type { RouteDefinition, RouteId } from '../routes.js';
import {
  authenticateSession,
  bearerOnCookieRoute,
  dashboardOrigin,
  portalOrigin,
  requireOrigin,
  type SessionPrincipal,
} from '../sessions/authenticate-session.js';
import { type IdempotencyHandle, prefetchKey, requestKey, runIdempotent } from './idempotency.js';
import type { RouteResult } from './responses.js';
import { buildRoute, type CoreRequest, type CoreSchemas, manifestEntry, type RouteHandler } from './route-core.js';

export interface RouteSchemas extends CoreSchemas {
  /** Declared list filters (the API conventions); undeclared query names are refused. */
  filters?: FilterSpec;
}

interface RouteRequest<S extends RouteSchemas, A = undefined> extends CoreRequest<S> {
  filters: FilterCondition[];
  /** The authenticated caller. Only bearer routes may read it. */
  principal: Principal;
  /** The signed-in dashboard user (session routes only). */
  session: SessionPrincipal;
  /** The voice runtime's verified call token (stream_token routes only): tenant, call, agent version. */
  stream: StreamPrincipal;
  /** Present when the request carries an Idempotency-Key on a route that honours it. */
  idempotency?: IdempotencyHandle;
  /** What the route's `alongside` read found (stream_token routes that declare one). */
  alongside: A;
}

export type RouteImpl<S extends RouteSchemas, A = undefined> = (req: RouteRequest<S, A>) => Promise<RouteResult>;

export type HttpHandler = RouteHandler<RouteSchemas>;

/** What the auth step proves (at most one of these) and the filters, as the core carries them. */
type Fields = {
  principal?: Principal;
  session?: SessionPrincipal;
  stream?: StreamPrincipal;
  filters?: FilterCondition[];
  /** The idempotency record read with the credential (in_transaction routes that sent a key). */
  idempotencyRecord?: { item: Record<string, unknown> | undefined };
  /** The route's own read, made beside the stream token's call check. */
  alongside?: unknown;
};

export interface RouteOptions<A = undefined> {
  /**
   * `in_transaction`: the work's ONLY write is one transaction that carries
   * `idempotency.commitItem`, so the key is taken there rather than by a claim first (its
   * record is read with the credential: one call fewer, one write fewer).
   */
  idempotency?: 'in_transaction';
  /**
   * stream_token routes: one read of the token's tenant made beside the call's window check
   * (one round trip instead of two in a row), given to the work as `alongside` once the token
   * is accepted. A read only: a refused token must have written nothing.
   */
  alongside?: (stream: StreamPrincipal) => Promise<A>;
}

export function defineRoute<S extends RouteSchemas, A = undefined>(
  id: RouteId,
  schemas: S,
  impl: RouteImpl<S, NoInfer<A>>,
  options: RouteOptions<A> = {},
): HttpHandler {
  const route = manifestEntry(id);
  if (options.alongside && route.auth !== 'stream_token') throw new Error(`route ${id}: an alongside read is for stream_token routes`);
  const filters = schemas.filters;
  return buildRoute(
    route,
    schemas,
    {
      authorize: (event) => authorize(route, event, options),
      ...(filters
        ? {
            splitQuery: ({ limit, cursor, ...rest }) => {
              const parsed = parseFilters(rest, filters);
              return { query: { limit, cursor }, issues: parsed.issues, fields: { filters: parsed.conditions } };
            },
          }
        : {}),
      request: (base, fields: Fields) =>
        ({
          ...base,
          filters: fields.filters ?? [],
          alongside: fields.alongside,
          get principal(): Principal {
            if (!fields.principal) throw new Error(`route ${id} is public and has no principal`);
            return fields.principal;
          },
          get session(): SessionPrincipal {
            if (!fields.session) throw new Error(`route ${id} is not a session route`);
            return fields.session;
          },
          get stream(): StreamPrincipal {
            if (!fields.stream) throw new Error(`route ${id} is not a stream_token route`);
            return fields.stream;
          },
        }) as RouteRequest<S, A>,
      run: (request, work, fields: Fields) => {
        const inTransaction = options.idempotency === 'in_transaction';
        return runIdempotent(route, request, work, { inTransaction, prefetched: inTransaction ? fields.idempotencyRecord : undefined });
      },
    },
    impl,
  );
}

/** The manifest's auth mode, proven before the body is read: what it proved joins the request. */
async function authorize<A>(route: RouteDefinition, event: APIGatewayProxyEventV2, options: RouteOptions<A>): Promise<Fields | undefined> {
  if (route.auth === 'stream_token') {
    const { claims: stream, alongside } = await authenticateStreamToken(
      event.headers?.authorization,
      event.pathParameters?.call_id,
      undefined,
      options.alongside,
    );
    logger.appendKeys({ tenant_id: stream.tenant_id, call_id: stream.call_id });
    return { stream, alongside };
  }
  if (route.auth === 'session' || route.auth === 'dashboard_origin' || route.auth === 'portal_origin') {
    const headers = event.headers ?? {};
    // Cookie-side routes never take an API key (a stolen key cannot reach them).
    if (headers.authorization !== undefined) throw bearerOnCookieRoute();
    const method = event.requestContext?.http?.method ?? route.method;
    if (route.auth === 'portal_origin') requireOrigin(method, headers.origin, portalOrigin(), 'the portal');
    else requireOrigin(method, headers.origin, dashboardOrigin(), 'the dashboard');
    if (route.auth !== 'session') return undefined;
    const session = await authenticateSession(event.cookies, headers.cookie);
    logger.appendKeys({ tenant_id: session.tenantId, user_id: session.userId });
    requireRole(route, session.role);
    return { session };
  }
  if (route.auth !== 'bearer') return undefined;
  // An in_transaction route's idempotency record is read with the credential (used only once the key is proven).
  const key = options.idempotency === 'in_transaction' ? requestKey(route, event.headers) : undefined;
  const { principal, also } = await authenticate(event.headers?.authorization, key === undefined ? undefined : (tenantId) => prefetchKey(route, tenantId, key));
  logger.appendKeys({ tenant_id: principal.tenantId, api_key_id: principal.keyId });
  requireRole(route, principal.role);
  return key === undefined ? { principal } : { principal, idempotencyRecord: { item: also } };
}

/**
 * The role matrix: a caller whose role the route does not name is 403 before its body is
 * parsed or anything of the tenant's is read. A role-bearing route without `roles` cannot
 * typecheck; should one slip through anyway it admits nobody rather than everybody.
 */
function requireRole(route: RouteDefinition, role: string): void {
  const allowed: readonly string[] = route.roles ?? [];
  if (!allowed.includes(role)) throw forbidden(`This operation requires the ${allowed.join(' or ') || 'a declared'} role`);
}
