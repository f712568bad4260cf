/**
 * The part of the route factory every handler shares, whatever its caller proves: the middy
 * stack in this order
 *   logging + metrics → error mapping → [authorization] → body parsing (JSON or form) →
 *   zod validation of path/query/headers/body ([+ declared list filters]) → [idempotency] → work
 * The bracketed steps are supplied by `defineRoute` (shared/http/route.ts), which knows every
 * auth mode, filters and idempotency. A public route (`auth: 'none'`, no idempotency) is built
 * here directly (`definePublicRoute`), so its bundle carries none of those modules.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { DomainError, ValidationError, type ValidationIssue } from '../errors.js';
import { logger, serviceName } from '../observability.js';
import { type RouteDefinition, type RouteId, routeById } from '../routes.js';
import { jsonTooDeep, unholdableJson } from '../schemas/json-limits.js';
import { formPairs, isFormMediaType, isJsonMediaType, rawBody } from './body.js';
import { errorResponse, jsonResponse, type RouteResult } from './responses.js';
import { toValidationIssues } from './validation.js';

/**
 * Each answer counted by class, one instance per container. Only routes emit metrics, so the
 * instance lives here rather than beside the logger: workers and jobs bundle no Metrics.
 */
const metrics = new Metrics({ serviceName, namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'VoiceControl' });

type AnyObject = z.ZodType<Record<string, unknown>>;

/** What a handler declares: its schemas (validated by the factory) and its responses. */
export interface CoreSchemas {
  path?: AnyObject;
  query?: AnyObject;
  headers?: AnyObject;
  body?: z.ZodType;
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

/** The request every handler receives; defineRoute adds the caller and the filters. */
export interface CoreRequest<S extends CoreSchemas> {
  path: Out<S['path']>;
  query: Out<S['query']>;
  headers: Out<S['headers']>;
  body: Out<S['body']>;
  /** Form routes: every posted name/value pair as sent (a carrier signs exactly these). */
  form: [string, string][];
  requestId: string;
  sourceIp: string | undefined;
  event: APIGatewayProxyEventV2;
}

type Query = Record<string, string | undefined>;

/** The steps a route adds to the shared stack (shared/http/route.ts supplies them). */
export interface RouteSteps<R> {
  /** Proves the caller before the body is read; what it returns joins the request's fields. */
  authorize?: (event: APIGatewayProxyEventV2) => Promise<Record<string, unknown> | undefined>;
  /** Takes the declared list filters off the query before the query schema reads the rest. */
  splitQuery?: (query: Query) => { query: Query; issues: ValidationIssue[]; fields: Record<string, unknown> };
  /** The handler's request from the shared part and the fields the steps above produced. */
  request: (base: CoreRequest<CoreSchemas>, fields: Record<string, unknown>) => R;
  /** Runs the work (idempotency wraps it); `fields` are what the steps above produced. */
  run?: (request: R, work: () => Promise<RouteResult>, fields: Record<string, unknown>) => Promise<RouteResult>;
}

export type RouteHandler<S> = ((event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>) & {
  route: RouteDefinition;
  schemas: S;
};

interface State {
  parsed: { path?: unknown; query?: unknown; headers?: unknown; body?: unknown };
  form: [string, string][];
  /** Body values no store could hold exactly (reported with the schema's issues). */
  bodyIssues: ValidationIssue[];
  fields: Record<string, unknown>;
}

type Request = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context & { state?: State }>;

const requestIdOf = (req: Request) => req.event.requestContext?.requestId ?? req.context.awsRequestId;

/**
 * The route's manifest entry. In a function bundle the bundler has put this route's own entry
 * in `VC_BUNDLED_ROUTE` (infra/bundling.ts), and the manifest lookup below is dead code esbuild
 * drops with the manifest itself; unbundled it is undefined and the manifest answers.
 */
export function manifestEntry(id: RouteId): RouteDefinition {
  return (globalThis as { VC_BUNDLED_ROUTE?: string }).VC_BUNDLED_ROUTE === undefined
    ? routeById(id)
    : (JSON.parse((globalThis as { VC_BUNDLED_ROUTE?: string }).VC_BUNDLED_ROUTE!) as RouteDefinition);
}

/** Builds the middy handler: the shared stack around the route's own steps and work. */
export function buildRoute<S extends CoreSchemas, R>(
  route: RouteDefinition,
  schemas: S,
  steps: RouteSteps<R>,
  impl: (req: R) => Promise<RouteResult>,
): RouteHandler<S> {
  const run = steps.run ?? ((_request: R, work: () => Promise<RouteResult>) => work());
  const core = async (event: APIGatewayProxyEventV2, context: Context & { state?: State }) => {
    const state = context.state!;
    const base = {
      ...state.parsed,
      form: state.form,
      requestId: event.requestContext?.requestId ?? context.awsRequestId,
      sourceIp: event.requestContext?.http?.sourceIp,
      event,
    } as CoreRequest<CoreSchemas>;
    const request = steps.request(base, state.fields);
    const result = await run(request, () => impl(request), state.fields);
    return jsonResponse(result.status, result.body, result.headers);
  };

  let handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context & { state?: State }>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .use(contextAndErrors(route));
  if (steps.authorize) handler = handler.use(authorization(steps.authorize));
  const built = handler
    .use(route.bodyFormat === 'form' ? formBody(schemas) : jsonBody(schemas))
    .use(validation(schemas, steps.splitQuery))
    .handler(core);

  return Object.assign(built as unknown as RouteHandler<S>, { route, schemas });
}

/**
 * A route that proves nothing and stores nothing (`auth: 'none'`, `idempotency: 'none'`):
 * liveness, the interface document. Any other manifest entry is refused when the module
 * loads, so a route that gains a credential or an idempotency mode cannot skip them here.
 */
export function definePublicRoute<S extends CoreSchemas>(id: RouteId, schemas: S, impl: (req: CoreRequest<S>) => Promise<RouteResult>): RouteHandler<S> {
  const route = manifestEntry(id);
  if (route.auth !== 'none' || route.idempotency !== 'none')
    throw new Error(`route ${id} is not public (auth ${route.auth}, idempotency ${route.idempotency}): use defineRoute`);
  return buildRoute(route, schemas, { request: (base) => base as CoreRequest<S> }, impl);
}

/** Seeds per-request state, tags logs, and maps every thrown error to the contract's JSON. */
function contextAndErrors(route: RouteDefinition): MiddlewareObj {
  return {
    before: async (request) => {
      const req = request as unknown as Request;
      req.context.state = { parsed: {}, form: [], bodyIssues: [], fields: {} };
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

function authorization(authorize: NonNullable<RouteSteps<unknown>['authorize']>): MiddlewareObj {
  return {
    before: async (request) => {
      const req = request as unknown as Request;
      Object.assign(req.context.state!.fields, await authorize(req.event));
    },
  };
}

/**
 * Routes with a body: the body must be declared JSON (415 otherwise), is parsed with
 * @middy/http-json-body-parser (malformed or too deeply nested JSON → 422 on ["body"]), and is then checked for
 * what no store could hold exactly (json-limits.ts); those issues join the schema's.
 */
function jsonBody(schemas: CoreSchemas): MiddlewareObj {
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
        throw new DomainError(
          'unsupported_media_type',
          'unsupported_media_type',
          `The request body must be JSON: Content-Type application/json (charset utf-8 if given) or a +json type${contentType ? `, not '${contentType.slice(0, 100)}'` : ''}`,
        );
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
function formBody(schemas: CoreSchemas): MiddlewareObj {
  return {
    before: async (request) => {
      if (!schemas.body) return;
      const req = request as unknown as Request;
      const raw = rawBody(req.event);
      const contentType = req.event.headers?.['content-type'];
      if (raw !== '' && !isFormMediaType(contentType)) {
        throw new DomainError(
          'unsupported_media_type',
          'unsupported_media_type',
          `The request body must be a form: Content-Type application/x-www-form-urlencoded${contentType ? `, not '${contentType.slice(0, 100)}'` : ''}`,
        );
      }
      const pairs = formPairs(raw);
      req.context.state!.form = pairs;
      (req.event as { body?: unknown }).body = Object.fromEntries(pairs);
    },
  };
}

function validation(schemas: CoreSchemas, splitQuery: RouteSteps<unknown>['splitQuery']): MiddlewareObj {
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
      let query: Query = req.event.queryStringParameters ?? {};
      state.parsed.path = check('path', schemas.path, req.event.pathParameters ?? {});
      state.parsed.headers = check('header', schemas.headers, req.event.headers ?? {});
      if (splitQuery) {
        const split = splitQuery(query);
        issues.push(...split.issues);
        Object.assign(state.fields, split.fields);
        query = split.query;
      }
      state.parsed.query = check('query', schemas.query, query);
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
