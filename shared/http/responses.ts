import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

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
