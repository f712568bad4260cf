/**
 * The one factory that builds every HTTP handler (the design).
 *
 * A handler file declares its schemas and its work; this factory wraps it in the middy
 * stack every route shares (shared/http/route-core.ts), in this order:
 *   logging + metrics → error mapping → auth + role check (the manifest's mode) → body
 *   parsing → zod validation of path/query/headers/body (+ declared list filters) → idempotency
 * so an unauthenticated caller learns nothing about the schema, and nothing read is used
 * before the credential is proven (a route may start its first reads alongside the
 * credential's: `early`). The manifest entry (shared/routes.ts) supplies the route's auth,
 * role and idempotency modes.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { authenticate, type Principal } from '../auth/authenticate.js';
import { authenticateStreamToken, type StreamPrincipal } from '../auth/stream-token.js';
import { type ItemKey, type ItemsByKey, itemAt, pickItems } from '../db/batch-get.js';
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
import { rawBody } from './form.js';
import { type IdempotencyHandle, prefetchKey, requestKey, runIdempotent } from './idempotency.js';
import { isJsonMediaType } from './media-type.js';
import type { RouteResult } from './responses.js';
import { buildRoute, type CoreRequest, type CoreSchemas, manifestEntry, type RouteHandler } from './route-core.js';

export interface RouteSchemas extends CoreSchemas {
  /** Declared list filters (the API conventions); undeclared query names are refused. */
  filters?: FilterSpec;
}

interface RouteRequest<S extends RouteSchemas, E = undefined> extends CoreRequest<S> {
  filters: FilterCondition[];
  /** The authenticated caller. Only bearer routes may read it. */
  principal: Principal;
  /** The signed-in dashboard user (session routes only). */
  session: SessionPrincipal;
  /** The voice runtime's verified call token (stream_token routes only): tenant, call, agent version. */
  stream: StreamPrincipal;
  /** Present when the request carries an Idempotency-Key on a route that honours it. */
  idempotency?: IdempotencyHandle;
  /** What the route's `early` option started with the credential's read (bearer routes), once the credential is proven. */
  early: Early<E> | undefined;
}

/** A route's `early` reads once the credential is proven: its handle and the items it asked of the credential's read (see itemAt). */
interface Early<E> {
  handle: E;
  items: ItemsByKey;
}

export type RouteImpl<S extends RouteSchemas, E = undefined> = (req: RouteRequest<S, E>) => Promise<RouteResult>;

export type HttpHandler = RouteHandler<RouteSchemas>;

/** What the auth step proves (at most one of these) and the filters, as the core carries them. */
type Fields = {
  principal?: Principal;
  session?: SessionPrincipal;
  stream?: StreamPrincipal;
  filters?: FilterCondition[];
  /** The idempotency record read with the credential (in_transaction routes that sent a key). */
  idempotencyRecord?: { item: Record<string, unknown> | undefined };
  early?: Early<unknown>;
};

/** Bodies larger than this start no early reads (they are parsed once more before the credential is proven). */
const EARLY_BODY_LIMIT = 32 * 1024;

export interface RouteOptions<E = undefined> {
  /**
   * `in_transaction`: the work's ONLY write is one transaction that carries
   * `idempotency.commitItem`, so the key is taken there rather than by a claim first (its
   * record is read with the credential: one call fewer, one write fewer).
   */
  idempotency?: 'in_transaction';
  /**
   * Bearer routes: reads the work will make whatever it finds, started with the
   * credential's read so their round trips overlap (a dependent round trip fewer): items
   * to read in the credential's own BatchGetItem (`keys`), and any reads of its own (in
   * `handle`). Given the tenant the token names and the JSON body as sent (unvalidated:
   * undefined when it does not parse); the work gets the handle and the items as `early`
   * only once the credential is proven, and must check they match what it validated. It
   * must not throw, and must catch its own promises (a refused caller's are never
   * awaited). The cost: a refused request has read for nothing.
   */
  early?: (tenantId: string, body: unknown) => { handle: E; keys?: readonly ItemKey[] } | undefined;
}

export function defineRoute<S extends RouteSchemas, E = undefined>(id: RouteId, schemas: S, impl: RouteImpl<S, E>, options: RouteOptions<E> = {}): HttpHandler {
  const route = manifestEntry(id);
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
          early: fields.early as Early<E> | undefined,
        }) as RouteRequest<S, E>,
      run: (request, work, fields: Fields) => {
        const inTransaction = options.idempotency === 'in_transaction';
        return runIdempotent(route, request, work, { inTransaction, prefetched: inTransaction ? fields.idempotencyRecord : undefined });
      },
    },
    impl,
  );
}

/** The manifest's auth mode, proven before the body is read: what it proved joins the request. */
async function authorize<E>(route: RouteDefinition, event: APIGatewayProxyEventV2, options: RouteOptions<E>): Promise<Fields | undefined> {
  if (route.auth === 'stream_token') {
    const stream = await authenticateStreamToken(event.headers?.authorization, event.pathParameters?.call_id);
    logger.appendKeys({ tenant_id: stream.tenant_id, call_id: stream.call_id });
    return { stream };
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
  let started: { handle: E; keys?: readonly ItemKey[] } | undefined;
  let record: ItemKey | undefined;
  const { principal, also } = await authenticate(event.headers?.authorization, (tenantId) => {
    started = startEarly(options, tenantId, event);
    record = key === undefined ? undefined : prefetchKey(route, tenantId, key);
    return [...(record ? [record] : []), ...(started?.keys ?? [])];
  });
  logger.appendKeys({ tenant_id: principal.tenantId, api_key_id: principal.keyId });
  requireRole(route, principal.role);
  return {
    principal,
    ...(record ? { idempotencyRecord: { item: itemAt(also, record) } } : {}),
    ...(started ? { early: { handle: started.handle, items: pickItems(also, started.keys ?? []) } } : {}),
  };
}

/** The route's early reads; one that fails to start is simply not started (the work reads as it would without). */
function startEarly<E>(options: RouteOptions<E>, tenantId: string, event: APIGatewayProxyEventV2) {
  try {
    return options.early?.(tenantId, earlyBody(event));
  } catch (err) {
    logger.warn('early reads not started', { error: (err as Error).message });
    return undefined;
  }
}

/** The JSON body as sent, for `early` (the body step parses and validates it properly later). */
function earlyBody(event: APIGatewayProxyEventV2): unknown {
  const raw = rawBody(event);
  if (raw === '' || raw.length > EARLY_BODY_LIMIT || !isJsonMediaType(event.headers?.['content-type'])) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
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
