/**
 * A list route: defineRoute plus the list filter grammar (shared/pagination/filters.ts) as its
 * query plug-in. The route declares its filterable fields; the handler receives the parsed
 * conditions as `filters`, and any other query name besides `limit` and `cursor` is a 422.
 * Only list routes import this, so no other bundle carries the grammar.
 */
import { type FilterCondition, type FilterSpec, parseFilters } from '../pagination/filters.js';
import type { RouteId } from '../routes.js';
import { defineRoute, type HttpHandler, type RouteImpl, type RouteOptions, type RouteSchemas } from './route.js';
import type { RouteAuth } from './route-auth.js';

export interface ListRouteSchemas extends RouteSchemas {
  /** Declared list filters (the API conventions); undeclared query names are refused. */
  filters: FilterSpec;
}

export function defineListRoute<S extends ListRouteSchemas, P extends object, E = undefined>(
  id: RouteId,
  auth: RouteAuth<P>,
  schemas: S,
  impl: RouteImpl<S, P, E, { filters: FilterCondition[] }>,
  options: Omit<RouteOptions<E>, 'query'> = {},
): HttpHandler {
  return defineRoute(id, auth, schemas, impl, {
    ...options,
    query: ({ limit, cursor, ...rest }) => {
      const parsed = parseFilters(rest, schemas.filters);
      return { query: { limit, cursor }, issues: parsed.issues, fields: { filters: parsed.conditions } };
    },
  });
}
