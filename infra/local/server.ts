/**
 * The local API Gateway: a node:http server that routes each request through the
 * manifest, invokes the route's handler module with a genuine API Gateway v2 event and
 * Lambda context, and writes the result back the way API Gateway does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { createRouter } from '../../shared/http/route-matcher.js';
import { buildApiGatewayEvent, newApiGatewayRequestId, requestFromIncomingMessage, splitUrl } from './apigw-event.js';
import { API_KEEP_ALIVE_MS, EDGE_RECEIVED_AT, EDGE_TOKEN } from './carrier-edge.js';
import type { HandlerLoader } from './handlers.js';
import { createLambdaContext } from './lambda-context.js';

export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2>;

export interface ServedRoute {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly handler: string;
  readonly timeoutSeconds?: number;
  readonly memoryMb?: number;
}

export interface HttpServerOptions {
  routes: readonly ServedRoute[];
  loader: HandlerLoader<HttpHandler>;
  log?: (line: string) => void;
  /** Lambda timeout for routes without their own (seconds). */
  defaultTimeoutSeconds?: number;
  /** Invoked for requests no route matches (API Gateway's $default); else a built-in 404/405. */
  fallback?: ServedRoute;
  /** Largest request body accepted (API Gateway + Lambda allow 6 MB). */
  maxBodyBytes?: number;
  /** The carrier edge's token (carrier-edge.ts): a request carrying it arrived at the edge's instant. */
  edgeToken?: string;
}

/**
 * When the request arrived: at the carrier edge, when it forwarded it with this process's token,
 * else now. The edge's headers are removed either way (no handler sees them, nor can a client set them).
 */
function arrivedAt(req: IncomingMessage, edgeToken: string | undefined): number {
  const at = Number(req.headers[EDGE_RECEIVED_AT]);
  const trusted = edgeToken !== undefined && req.headers[EDGE_TOKEN] === edgeToken && Number.isFinite(at) && at > 0;
  delete req.headers[EDGE_RECEIVED_AT];
  delete req.headers[EDGE_TOKEN];
  const raw: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase();
    if (name !== EDGE_RECEIVED_AT && name !== EDGE_TOKEN) raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  req.rawHeaders = raw;
  return trusted ? Math.min(at, Date.now()) : Date.now();
}

export const DEFAULT_ROUTE_TIMEOUT_SECONDS = 10;
const MAX_BODY_BYTES = 6 * 1024 * 1024;

export function createHttpServer(opts: HttpServerOptions): Server {
  const router = createRouter(opts.routes);
  const log = opts.log ?? (() => {});
  const maxBody = opts.maxBodyBytes ?? MAX_BODY_BYTES;

  const server = createServer((req, res) => {
    const started = arrivedAt(req, opts.edgeToken);
    const requestId = newApiGatewayRequestId();
    res.setHeader('apigw-requestid', requestId);
    // The path only, as API Gateway's access log ($context.path): a query string can carry
    // one-use credentials (the OAuth callback's code and state) and is never logged.
    res.on('finish', () => log(`${req.method} ${splitUrl(req.url ?? '/').rawPath} ${res.statusCode} ${Date.now() - started}ms`));

    void (async () => {
      const method = (req.method ?? 'GET').toUpperCase();
      let match = router.match(method, splitUrl(req.url ?? '/').rawPath);
      // As API Gateway's $default route: the manifest's fallback function answers.
      if (match.kind !== 'route' && opts.fallback) match = { kind: 'route', route: opts.fallback, routeKey: '$default', pathParameters: {} };
      if (match.kind === 'not_found') {
        await drain(req);
        return sendJson(res, 404, { detail: 'Not Found', code: 'not_found' });
      }
      if (match.kind === 'method_not_allowed') {
        await drain(req);
        res.setHeader('allow', match.allow.join(', '));
        return sendJson(res, 405, { detail: 'Method Not Allowed', code: 'method_not_allowed' });
      }

      const body = await readBody(req, maxBody);
      if (body === 'too_large') {
        return sendJson(res, 413, { detail: 'Request Entity Too Large', code: 'payload_too_large' });
      }
      const route = match.route;
      const event = buildApiGatewayEvent(requestFromIncomingMessage(req, body), match, { requestId, now: started });
      const timeoutSeconds = route.timeoutSeconds ?? opts.defaultTimeoutSeconds ?? DEFAULT_ROUTE_TIMEOUT_SECONDS;
      const context = createLambdaContext({ functionName: route.id, timeoutSeconds, memoryMb: route.memoryMb, startedAt: started });

      let result: APIGatewayProxyResultV2;
      try {
        const handler = await opts.loader.load(route.id, route.handler);
        result = await handler(event, context);
      } catch (err) {
        log(`${route.id}: handler failed (request ${requestId}): ${(err as Error)?.stack ?? err}`);
        return sendInternalError(res, requestId);
      }
      const elapsed = Date.now() - started;
      if (elapsed > timeoutSeconds * 1000) {
        log(`${route.id}: took ${elapsed} ms, longer than its ${timeoutSeconds} s Lambda timeout (AWS would have cut it off)`);
      }

      let out: NormalizedResponse;
      try {
        out = normalizeResult(result);
      } catch (err) {
        log(`${route.id}: malformed handler result (request ${requestId}): ${(err as Error).message}`);
        return sendInternalError(res, requestId);
      }
      res.statusCode = out.statusCode;
      for (const [name, value] of Object.entries(out.headers)) res.setHeader(name, value);
      if (out.cookies.length) res.setHeader('set-cookie', out.cookies);
      res.end(method === 'HEAD' ? undefined : out.body);
    })().catch((err) => {
      log(`local server: unexpected failure: ${(err as Error)?.stack ?? err}`);
      if (!res.headersSent) sendInternalError(res, requestId);
      else res.destroy();
    });
  });
  // The carrier edge keeps its connections here and drops them idle well before this.
  server.keepAliveTimeout = API_KEEP_ALIVE_MS;
  return server;
}

/** Listens on host:port (0 = a free port) and resolves with the bound port. */
export function listen(server: Server, port: number, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.removeListener('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Stops accepting, lets in-flight requests finish (up to graceMs), then closes everything. */
export function closeServer(server: Server, graceMs = 2_000): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

export interface NormalizedResponse {
  statusCode: number;
  headers: Record<string, string | string[]>;
  cookies: string[];
  body: Buffer;
}

/**
 * API Gateway's reading of a payload-2.0 Lambda result: an object with `statusCode` is a
 * structured response; anything else is a 200 JSON body.
 */
export function normalizeResult(result: unknown): NormalizedResponse {
  if (result === null || typeof result !== 'object' || !('statusCode' in result)) {
    const body = typeof result === 'string' ? result : (JSON.stringify(result) ?? '');
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, cookies: [], body: Buffer.from(body) };
  }
  const r = result as {
    statusCode: unknown;
    headers?: Record<string, unknown>;
    multiValueHeaders?: Record<string, unknown[]>;
    cookies?: unknown[];
    body?: unknown;
    isBase64Encoded?: boolean;
  };
  if (typeof r.statusCode !== 'number' || !Number.isInteger(r.statusCode) || r.statusCode < 100 || r.statusCode > 599) {
    throw new Error(`statusCode must be an integer HTTP status, got ${JSON.stringify(r.statusCode)}`);
  }
  if (r.body !== undefined && r.body !== null && typeof r.body !== 'string') {
    throw new Error(`body must be a string, got ${typeof r.body}`);
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(r.headers ?? {})) {
    if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
  }
  for (const [name, values] of Object.entries(r.multiValueHeaders ?? {})) {
    const key = name.toLowerCase();
    const prior = headers[key];
    headers[key] = [...(prior === undefined ? [] : Array.isArray(prior) ? prior : [prior]), ...values.map(String)];
  }
  const body = typeof r.body === 'string' ? Buffer.from(r.body, r.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  return { statusCode: r.statusCode, headers, cookies: (r.cookies ?? []).map(String), body };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

function sendInternalError(res: ServerResponse, requestId: string): void {
  res.setHeader('x-request-id', requestId);
  sendJson(res, 500, { detail: 'Internal Server Error', code: 'internal_error', request_id: requestId });
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit)
      tooLarge = true; // keep draining so the client sees the 413
    else chunks.push(chunk);
  }
  return tooLarge ? 'too_large' : Buffer.concat(chunks);
}

async function drain(req: IncomingMessage): Promise<void> {
  for await (const _ of req as AsyncIterable<Buffer>) {
    /* discard */
  }
}
