import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { jsonResponse } from '../../shared/http/responses.js';
import { createRouter } from '../../shared/http/route-matcher.js';
import { routes } from '../../shared/routes.js';

const router = createRouter(routes);

/**
 * The fallback for requests no manifest route matches (API Gateway `$default`): 404, or
 * 405 with Allow when the path exists under other methods. Touches no data.
 */
export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const requestId = event.requestContext?.requestId ?? '';
  const match = router.match(event.requestContext?.http?.method ?? 'GET', event.rawPath ?? '/');
  if (match.kind === 'method_not_allowed') {
    return jsonResponse(405, { detail: 'Method Not Allowed', code: 'method_not_allowed' }, { allow: match.allow.join(', '), 'x-request-id': requestId });
  }
  return jsonResponse(404, { detail: 'Not Found', code: 'not_found' }, { 'x-request-id': requestId });
};
