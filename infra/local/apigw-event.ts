/**
 * Turns a Node HTTP request into the event API Gateway HTTP APIs (payload format 2.0)
 * hand to a Lambda integration, field for field:
 *  - headers lowercased, duplicate headers joined with ","; the Cookie header is moved
 *    to `cookies` (one entry per cookie) and does not appear in `headers`;
 *  - `rawQueryString` verbatim; `queryStringParameters` decoded, duplicates joined with ",";
 *  - `pathParameters` URL-decoded; fields API Gateway omits when empty are omitted;
 *  - text bodies (text/*, JSON, XML, JavaScript) as strings, anything else — including
 *    application/x-www-form-urlencoded, as on AWS — base64 with `isBase64Encoded: true`.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { LOCAL_ACCOUNT_ID } from './lambda-context.js';

export interface HttpRequestLike {
  method: string;
  /** Path and query as received, e.g. "/v1/users?limit=5". */
  url: string;
  /** Alternating names and values as received (Node's `rawHeaders`), duplicates kept. */
  rawHeaders: readonly string[];
  body?: Buffer;
  sourceIp?: string;
  /** e.g. "HTTP/1.1". */
  protocol?: string;
}

export interface MatchedRoute {
  /** "METHOD /path/{template}" */
  routeKey: string;
  pathParameters?: Record<string, string>;
}

export interface EventOptions {
  requestId?: string;
  now?: number;
  apiId?: string;
  stage?: string;
}

export function requestFromIncomingMessage(req: IncomingMessage, body?: Buffer): HttpRequestLike {
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    url: req.url ?? '/',
    rawHeaders: req.rawHeaders,
    body,
    sourceIp: normalizeIp(req.socket.remoteAddress),
    protocol: `HTTP/${req.httpVersion}`,
  };
}

export function buildApiGatewayEvent(req: HttpRequestLike, route: MatchedRoute, opts: EventOptions = {}): APIGatewayProxyEventV2 {
  const now = opts.now ?? Date.now();
  const { rawPath, rawQueryString } = splitUrl(req.url);
  const { headers, cookies } = collectHeaders(req.rawHeaders);
  const query = parseQuery(rawQueryString);
  const host = headers.host ?? 'localhost';
  const domainName = host.replace(/:\d+$/, '');
  const method = req.method.toUpperCase();
  const body = req.body && req.body.length > 0 ? req.body : undefined;
  const isText = body ? isTextContentType(headers['content-type']) : false;

  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length ? { cookies } : {}),
    headers,
    ...(query ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: opts.apiId ?? 'local',
      domainName,
      domainPrefix: domainName.split('.')[0] ?? domainName,
      http: {
        method,
        path: rawPath,
        protocol: req.protocol ?? 'HTTP/1.1',
        sourceIp: req.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: opts.requestId ?? newApiGatewayRequestId(),
      routeKey: route.routeKey,
      stage: opts.stage ?? '$default',
      time: formatRequestTime(now),
      timeEpoch: now,
    },
    ...(route.pathParameters && Object.keys(route.pathParameters).length ? { pathParameters: route.pathParameters } : {}),
    ...(body ? { body: isText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: Boolean(body) && !isText,
  };
  return event;
}

/** API Gateway's request ids look like "JKJaXmPLvHcESHA=" (unique per request). */
export function newApiGatewayRequestId(): string {
  return randomBytes(11).toString('base64').replaceAll('+', 'A').replaceAll('/', 'B');
}

export function splitUrl(url: string): { rawPath: string; rawQueryString: string } {
  const hash = url.indexOf('#');
  const clean = hash >= 0 ? url.slice(0, hash) : url;
  const q = clean.indexOf('?');
  return q >= 0 ? { rawPath: clean.slice(0, q) || '/', rawQueryString: clean.slice(q + 1) } : { rawPath: clean || '/', rawQueryString: '' };
}

function collectHeaders(rawHeaders: readonly string[]): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    if (name === 'cookie') {
      cookies.push(
        ...value
          .split(';')
          .map((c) => c.trim())
          .filter(Boolean),
      );
      continue;
    }
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  return { headers, cookies };
}

function parseQuery(raw: string): Record<string, string> | undefined {
  if (!raw) return undefined;
  // A Map, then fromEntries: every name (even `__proto__`) becomes an own property, as
  // when Lambda parses the event JSON.
  const out = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(raw)) {
    const seen = out.get(key);
    out.set(key, seen === undefined ? value : `${seen},${value}`);
  }
  return out.size ? Object.fromEntries(out) : undefined;
}

const textTypes = [/^text\//, /^application\/(.+\+)?json\b/, /^application\/(.+\+)?xml\b/, /^application\/(x-)?javascript\b/];

export function isTextContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.toLowerCase().trim();
  return textTypes.some((re) => re.test(type));
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "12/Mar/2020:19:03:58 +0000", API Gateway's requestContext.time format. */
export function formatRequestTime(epochMs: number): string {
  const d = new Date(epochMs);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${months[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

function normalizeIp(ip: string | undefined): string | undefined {
  if (!ip) return undefined;
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}
