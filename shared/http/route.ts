/**
 * The one factory that builds every HTTP handler (the design).
 *
 * A handler file declares its schemas and its work; this factory wraps it in the middy
 * stack every route shares (shared/http/route-core.ts), in this order:
 *   logging + metrics → error mapping → auth + role check (the manifest's mode) → body
 *   parsing → zod validation of path/query/headers/body (+ a query plug-in's own parameters) → idempotency
 * so an unauthenticated caller learns nothing about the schema, and nothing touches
 * data before the credential is proven. The manifest entry (shared/routes.ts) supplies
 * the route's auth, role and idempotency modes; the handler hands over the module of its auth
 * mode (shared/http/auth/), so a bundle carries only the credential check its route uses. A
 * route may start its first reads alongside the credential's (`early`); nothing they read is
 * used before the credential is proven. List routes add their filters as such a plug-in
 * (shared/http/list-route.ts), so no other route carries the filter grammar.
 */
import { forbidden, type ValidationIssue } from '../errors.js';
import type { RouteDefinition, RouteId } from '../routes.js';
import { type IdempotencyHandle, type IdempotentRequest, runIdempotent } from './idempotency.js';
import type { RouteResult } from './responses.js';
import type { Early, EarlyStart, Proof, RouteAuth } from './route-auth.js';
import { buildRoute, type CoreRequest, type CoreSchemas, manifestEntry, type RouteHandler } from './route-core.js';

export type RouteSchemas = CoreSchemas;

/** The request a handler receives: the shared part, what its auth mode proved (`principal`, `session`, `stream`) and what its query plug-in took (`Q`). */
type RouteRequest<S extends RouteSchemas, P extends object = Record<never, never>, E = undefined, Q extends object = Record<never, never>> = CoreRequest<S> &
  P &
  Q & {
    /** Present when the request carries an Idempotency-Key on a route that honours it. */
    idempotency?: IdempotencyHandle;
    /** What the route's `early` option started with the credential's read, once the credential is proven. */
    early: Early<E> | undefined;
  };

export type RouteImpl<S extends RouteSchemas, P extends object = Record<never, never>, E = undefined, Q extends object = Record<never, never>> = (
  req: RouteRequest<S, P, E, Q>,
) => Promise<RouteResult>;

export type HttpHandler = RouteHandler<RouteSchemas>;

/** Takes the plug-in's own parameters off the query before the query schema reads the rest; its `fields` join the request. */
type QueryPlugin<Q extends object> = (query: Query) => { query: Query; issues: ValidationIssue[]; fields: Q };

type Query = Record<string, string | undefined>;

/** What the auth step proved and what the query plug-in took, as the core carries them. */
type Fields = { proof?: Proof<object>; plugged?: object };

export interface RouteOptions<E = undefined, Q extends object = Record<never, never>> {
  /**
   * `in_transaction`: the work's ONLY write is one transaction that carries
   * `idempotency.commitItem`, so the key is taken there rather than by a claim first (its
   * record is read with the credential: one call fewer, one write fewer).
   */
  idempotency?: 'in_transaction';
  /**
   * Reads the work will make whatever it finds, started with the credential's (see
   * EarlyStart): a dependent round trip fewer. The work gets them as `early` only once the
   * credential is proven, and must check they match what it validated. The cost: a refused
   * request has read for nothing.
   */
  early?: EarlyStart<E>;
  /** Parameters of the query this route reads by a grammar of its own (list filters). */
  query?: QueryPlugin<Q>;
}

/**
 * `auth` is the module of the mode the route's manifest entry names (shared/http/auth/); a
 * handler that hands over another refuses to load, so the manifest stays the one source.
 */
export function defineRoute<S extends RouteSchemas, P extends object, E = undefined, Q extends object = Record<never, never>>(
  id: RouteId,
  auth: RouteAuth<P>,
  schemas: S,
  impl: RouteImpl<S, P, E, Q>,
  options: RouteOptions<E, Q> = {},
): HttpHandler {
  const route = manifestEntry(id);
  if (!auth.modes.includes(route.auth)) throw new Error(`route ${id} has auth ${route.auth} in the manifest; its handler proves ${auth.modes.join(', ')}`);
  const plugin = options.query;
  const inTransaction = options.idempotency === 'in_transaction';
  return buildRoute(
    route,
    schemas,
    {
      authorize: async (event) => {
        const proof = await auth.prove(route, event, { inTransaction, ...(options.early ? { early: options.early } : {}) });
        if (proof.role !== undefined) requireRole(route, proof.role);
        return { proof };
      },
      ...(plugin
        ? {
            splitQuery: (query) => {
              const taken = plugin(query);
              return { query: taken.query, issues: taken.issues, fields: { plugged: taken.fields } };
            },
          }
        : {}),
      request: (base, fields: Fields) =>
        ({ ...base, ...fields.proof?.fields, ...fields.plugged, early: fields.proof?.early }) as unknown as RouteRequest<S, P, E, Q>,
      // Only bearer routes honour an Idempotency-Key (its scope is the principal's tenant); every other route's mode is `none`.
      run: (request, work, fields: Fields) =>
        runIdempotent(route, request as unknown as IdempotentRequest, work, {
          inTransaction,
          prefetched: inTransaction ? fields.proof?.idempotencyRecord : undefined,
        }),
    },
    impl,
  );
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
