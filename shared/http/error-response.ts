/** Any thrown value → the JSON error body and status the contract promises. */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { logger } from '../observability.js';
import { HttpError, ValidationError } from './errors.js';
import { jsonResponse } from './responses.js';

export function errorResponse(err: unknown, requestId: string): APIGatewayProxyStructuredResultV2 {
  if (err instanceof ValidationError) return jsonResponse(422, { detail: err.issues });
  if (err instanceof HttpError) {
    return jsonResponse(err.status, { detail: err.detail, code: err.code, ...err.extra }, err.headers);
  }
  // Unexpected: log the whole error server-side, return nothing internal.
  logger.error('unhandled error', err as Error);
  return jsonResponse(500, { detail: 'Internal Server Error', code: 'internal_error', request_id: requestId });
}
