/** What a route answers: a handler's result, a JSON response, and any thrown value as the contract's error body. */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DomainError, type ErrorKind, ValidationError } from '../errors.js';
import { logger } from '../observability.js';

/** What a handler returns: a status and a JSON body (and rarely extra headers). */
export interface RouteResult<B = unknown> {
  status: number;
  body: B;
  headers?: Record<string, string>;
  /** Set when the handler already recorded the idempotent result in its own transaction. */
  idempotencyCommitted?: boolean;
}

export const ok = <B>(body: B): RouteResult<B> => ({ status: 200, body });
export const created = <B>(body: B): RouteResult<B> => ({ status: 201, body });
export const accepted = <B>(body: B): RouteResult<B> => ({ status: 202, body });

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

/** The one place a domain error kind becomes an HTTP status. */
const STATUS_OF: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  upstream_failed: 502,
  unavailable: 503,
};

const headersOf = ({ hints }: DomainError): Record<string, string> => ({
  ...(hints.challenge ? { 'www-authenticate': hints.challenge } : {}),
  ...(hints.retryAfterSeconds !== undefined ? { 'retry-after': String(hints.retryAfterSeconds) } : {}),
});

/** Any thrown value → the JSON error body and status the contract promises. */
export function errorResponse(err: unknown, requestId: string): APIGatewayProxyStructuredResultV2 {
  if (err instanceof ValidationError) return jsonResponse(422, { detail: err.issues });
  if (err instanceof DomainError) {
    return jsonResponse(STATUS_OF[err.kind], { detail: err.detail, code: err.code, ...err.extra }, headersOf(err));
  }
  // Unexpected: log the whole error server-side, return nothing internal.
  logger.error('unhandled error', err as Error);
  return jsonResponse(500, { detail: 'Internal Server Error', code: 'internal_error', request_id: requestId });
}
