/**
 * The one factory that builds every HTTP handler (the design).
 *
 * A handler file declares its schemas and its work; this factory wraps it in the middy
 * stack every route shares, in this order:
 *   logging + metrics → error mapping → bearer auth + role check → JSON body parsing →
 *   zod validation of path/query/headers/body (+ declared list filters) → idempotency
 * so an unauthenticated caller learns nothing about the schema, and nothing touches
 * data before the credential is proven. The manifest entry (shared/routes.ts) supplies
 * the route's auth, role and idempotency modes.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { routeById, type RouteDefinition, type RouteId } from '../routes.js';
import { authenticate, type Principal } from '../auth/authenticate.js';
import { authenticateStreamToken, type StreamPrincipal } from '../auth/stream-token.js';
import { authenticateSession, bearerOnCookieRoute, dashboardOrigin, portalOrigin, requireOrigin, type SessionPrincipal } from '../auth/authenticate-session.js';
import { logger, metrics } from '../observability.js';
import { parseFilters, type FilterCondition, type FilterSpec } from '../pagination/filters.js';
import { errorResponse } from './error-response.js';
import { forbidden, HttpError, ValidationError, type ValidationIssue } from './errors.js';
import { formPairs, rawBody } from './form.js';
import { isFormMediaType, isJsonMediaType } from './media-type.js';
import { jsonTooDeep, unholdableJson } from './json-limits.js';
import { prefetchKey, requestKey, runIdempotent, type IdempotencyHandle } from './idempotency.js';
import { jsonResponse, type RouteResult } from './responses.js';
import { toValidationIssues } from './validation.js';

type AnyObject = z.ZodType<Record<string, unknown>>;

export interface RouteSchemas {
  path?: AnyObject;
  query?: AnyObject;
  headers?: AnyObject;
  body?: z.ZodType;
  /** Declared list filters (the API conventions); undeclared query names are refused. */
  filters?: FilterSpec;
  /** Response schemas by status, for the OpenAPI document and response tests. */
  responses: Record<number, z.ZodType>;
  /**
   * Query parameters the handler reads itself from the raw query (carrier callbacks: our
   * signed state, covered by the carrier's signature). Documented only: the factory does not
   * validate them, because a tampered query is the handler's 403, not a 422.
   */
  callbackQuery?: AnyObject;
  /** Media type of the 2xx bodies when not JSON (TwiML answers are text/xml). */
  successMediaType?: string;
  description?: string;
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

interface RouteRequest<S extends RouteSchemas> {
  path: Out<S['path']>;
  query: Out<S['query']>;
  headers: Out<S['headers']>;
  body: Out<S['body']>;
  filters: FilterCondition[];
  /** Form routes: every posted name/value pair as sent (a carrier signs exactly these). */
  form: [string, string][];
  /** The authenticated caller. Only bearer routes may read it. */
  principal: Principal;
  /** The signed-in dashboard user (session routes only). */
  session: SessionPrincipal;
  /** The voice runtime's verified call token (stream_token routes only): tenant, call, agent version. */
  stream: StreamPrincipal;
  requestId: string;
  /** Present when the request carries an Idempotency-Key on a route that honours it. */
  idempotency?: IdempotencyHandle;
  sourceIp: string | undefined;
  event: APIGatewayProxyEventV2;
}

export type RouteImpl<S extends RouteSchemas> = (req: RouteRequest<S>) => Promise<RouteResult>;

export interface RouteOptions {
  /**
   * `in_transaction`: the work's ONLY write is one transaction that carries
   * `idempotency.commitItem`, so the key is taken there rather than by a claim first (its
   * record is read with the credential: one call fewer, one write fewer).
   */
  idempotency?: 'in_transaction';
}

export type HttpHandler = ((event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>) & {
  route: RouteDefinition;
  schemas: RouteSchemas;
};

interface State {
  principal?: Principal;
  stream?: StreamPrincipal;
  session?: SessionPrincipal;
  parsed: { path?: unknown; query?: unknown; headers?: unknown; body?: unknown };
  filters: FilterCondition[];
  form: [string, string][];
  /** Body values no store could hold exactly (reported with the schema's issues). */
  bodyIssues: ValidationIssue[];
  /** The idempotency record read with the credential (in_transaction routes sent a key). */
  idempotencyRecord?: { item: Record<string, unknown> | undefined };
}

type Request = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context & { state?: State }>;

const requestIdOf = (req: Request) => req.event.requestContext?.requestId ?? req.context.awsRequestId;

export function defineRoute<S extends RouteSchemas>(id: RouteId, schemas: S, impl: RouteImpl<S>, options: RouteOptions = {}): HttpHandler {
  const route = routeById(id);

  const core = async (event: APIGatewayProxyEventV2, context: Context & { state?: State }) => {
    const state = context.state!;
    const requestId = event.requestContext?.requestId ?? context.awsRequestId;
    const principal = state.principal;
    const stream = state.stream;
    const session = state.session;
    const request = {
      ...state.parsed,
      filters: state.filters,
      form: state.form,
      get principal(): Principal {
        if (!principal) throw new Error(`route ${id} is public and has no principal`);
        return principal;
      },
      get session(): SessionPrincipal {
        if (!session) throw new Error(`route ${id} is not a session route`);
        return session;
      },
      get stream(): StreamPrincipal {
        if (!stream) throw new Error(`route ${id} is not a stream_token route`);
        return stream;
      },
      requestId,
      sourceIp: event.requestContext?.http?.sourceIp,
      event,
    } as RouteRequest<S>;
    const inTransaction = options.idempotency === 'in_transaction';
    const result = await runIdempotent(route, request, () => impl(request), { inTransaction, prefetched: inTransaction ? state.idempotencyRecord : undefined });
    return jsonResponse(result.status, result.body, result.headers);
  };

  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context & { state?: State }>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .use(contextAndErrors(route))
    .use(authorization(route, options))
    .use(route.bodyFormat === 'form' ? formBody(schemas) : jsonBody(schemas))
    .use(validation(schemas))
    .handler(core);

  return Object.assign(handler as unknown as HttpHandler, { route, schemas });
}

/** Seeds per-request state, tags logs, and maps every thrown error to the contract's JSON. */
function contextAndErrors(route: RouteDefinition): MiddlewareObj {
  return {
    before: async (request) => {
      const req = request as unknown as Request;
      req.context.state = { parsed: {}, filters: [], form: [], bodyIssues: [] };
      logger.appendKeys({ request_id: requestIdOf(req), route: route.id });
    },
    after: async (request) => {
      const req = request as unknown as Request;
      req.response = withRequestId(req.response!, requestIdOf(req));
      record(route, req);
    },
    onError: async (request) => {
      const req = request as unknown as Request;
      req.response = withRequestId(errorResponse(req.error, requestIdOf(req)), requestIdOf(req));
      record(route, req);
      // Returning nothing lets the Powertools middlewares' own onError still run.
    },
  };
}

/** One access-log line and one outcome metric per request (never headers or bodies). */
function record(route: RouteDefinition, req: Request): void {
  const status = req.response!.statusCode ?? 200;
  logger.info('request', { method: route.method, path: req.event.rawPath, status });
  metrics.addMetric(status >= 500 ? 'ServerError' : status >= 400 ? 'ClientError' : 'Success', MetricUnit.Count, 1);
}

const withRequestId = (res: APIGatewayProxyStructuredResultV2, requestId: string) => ({
  ...res,
  headers: { ...res.headers, 'x-request-id': requestId },
});

function authorization(route: RouteDefinition, options: RouteOptions): MiddlewareObj {
  return {
    before: async (request) => {
      if (route.auth === 'stream_token') {
        const req = request as unknown as Request;
        const claims = await authenticateStreamToken(req.event.headers?.authorization, req.event.pathParameters?.call_id);
        req.context.state!.stream = claims;
        logger.appendKeys({ tenant_id: claims.tenant_id, call_id: claims.call_id });
        return;
      }
      if (route.auth === 'session' || route.auth === 'dashboard_origin' || route.auth === 'portal_origin') {
        const req = request as unknown as Request;
        const headers = req.event.headers ?? {};
        // Cookie-side routes never take an API key (a stolen key cannot reach them).
        if (headers.authorization !== undefined) throw bearerOnCookieRoute();
        const method = req.event.requestContext?.http?.method ?? route.method;
        if (route.auth === 'portal_origin') requireOrigin(method, headers.origin, portalOrigin(), 'the portal');
        else requireOrigin(method, headers.origin, dashboardOrigin(), 'the dashboard');
        if (route.auth !== 'session') return;
        const session = await authenticateSession(req.event.cookies, headers.cookie);
        req.context.state!.session = session;
        logger.appendKeys({ tenant_id: session.tenantId, user_id: session.userId });
        requireRole(route, session.role);
        return;
      }
      if (route.auth !== 'bearer') return;
      const req = request as unknown as Request;
      // An in_transaction route's idempotency record is read with the credential (used only once the key is proven).
      const key = options.idempotency === 'in_transaction' ? requestKey(route, req.event.headers) : undefined;
      const { principal, also } = await authenticate(req.event.headers?.authorization, key === undefined ? undefined : (tenantId) => prefetchKey(route, tenantId, key));
      req.context.state!.principal = principal;
      if (key !== undefined) req.context.state!.idempotencyRecord = { item: also };
      logger.appendKeys({ tenant_id: principal.tenantId, api_key_id: principal.keyId });
      requireRole(route, principal.role);
    },
  };
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

/**
 * Routes with a body: the body must be declared JSON (415 otherwise), is parsed with
 * @middy/http-json-body-parser (malformed or too deeply nested JSON → 422 on ["body"]), and is then checked for
 * what no store could hold exactly (json-limits.ts); those issues join the schema's.
 */
function jsonBody(schemas: RouteSchemas): MiddlewareObj {
  // The content type is checked below, with the contract's error shape.
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0]);
  return {
    before: async (request) => {
      if (!schemas.body) return;
      const req = request as unknown as Request;
      const raw = req.event.body;
      if (raw === undefined || raw === null || raw === '') {
        (req.event as { body?: unknown }).body = undefined;
        return;
      }
      const contentType = req.event.headers?.['content-type'];
      if (!isJsonMediaType(contentType)) {
        throw new HttpError(415, 'unsupported_media_type', `The request body must be JSON: Content-Type application/json (charset utf-8 if given) or a +json type${contentType ? `, not '${contentType.slice(0, 100)}'` : ''}`);
      }
      // Before parsing: a body nested too deep is refused in one pass, never parsed.
      const tooDeep = jsonTooDeep(rawBody(req.event));
      if (tooDeep) throw new ValidationError([tooDeep]);
      try {
        await parser.before!(request as Parameters<NonNullable<typeof parser.before>>[0]);
      } catch {
        throw new ValidationError([{ loc: ['body'], msg: 'Request body is not valid JSON', type: 'json_invalid' }]);
      }
      req.context.state!.bodyIssues = unholdableJson((req.event as { body?: unknown }).body);
    },
  };
}

/**
 * Carrier routes (manifest `bodyFormat: 'form'`): the body must be
 * application/x-www-form-urlencoded (415 otherwise) and becomes an object of its fields
 * (a repeated name keeps its last value; the signature check reads the raw pairs).
 */
function formBody(schemas: RouteSchemas): MiddlewareObj {
  return {
    before: async (request) => {
      if (!schemas.body) return;
      const req = request as unknown as Request;
      const raw = rawBody(req.event);
      const contentType = req.event.headers?.['content-type'];
      if (raw !== '' && !isFormMediaType(contentType)) {
        throw new HttpError(415, 'unsupported_media_type', `The request body must be a form: Content-Type application/x-www-form-urlencoded${contentType ? `, not '${contentType.slice(0, 100)}'` : ''}`);
      }
      const pairs = formPairs(raw);
      req.context.state!.form = pairs;
      (req.event as { body?: unknown }).body = Object.fromEntries(pairs);
    },
  };
}

function validation(schemas: RouteSchemas): MiddlewareObj {
  return {
    before: async (request) => {
      const req = request as unknown as Request;
      const state = req.context.state!;
      const issues: ValidationIssue[] = [];
      const check = (part: 'path' | 'query' | 'header' | 'body', schema: z.ZodType | undefined, input: unknown) => {
        if (!schema) return undefined;
        const result = schema.safeParse(input, { reportInput: true });
        if (result.success) return result.data;
        issues.push(...toValidationIssues(part, result.error.issues));
        return undefined;
      };
      const query = req.event.queryStringParameters ?? {};
      state.parsed.path = check('path', schemas.path, req.event.pathParameters ?? {});
      state.parsed.headers = check('header', schemas.headers, req.event.headers ?? {});
      if (schemas.filters) {
        const { limit, cursor, ...rest } = query;
        const filters = parseFilters(rest, schemas.filters);
        issues.push(...filters.issues);
        state.filters = filters.conditions;
        state.parsed.query = check('query', schemas.query, { limit, cursor });
      } else {
        state.parsed.query = check('query', schemas.query, query);
      }
      state.parsed.body = check('body', schemas.body, (req.event as { body?: unknown }).body);
      if (state.bodyIssues.length) issues.unshift(...state.bodyIssues);
      if (issues.length) throw new ValidationError(uniqueIssues(issues));
    },
  };
}

/** One issue per (loc, type): the body check and a schema may name the same problem. */
function uniqueIssues(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${JSON.stringify(i.loc)}|${i.type}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
