/** A request's raw body text and its form pairs, in the order sent (carriers sign these). */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** The body as the client sent it (API Gateway base64-encodes bodies it considers binary). */
export function rawBody(event: Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'>): string {
  const body = typeof event.body === 'string' ? event.body : '';
  return event.isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
}

/** Every name/value pair of a URL-encoded form, repeated names included. */
export const formPairs = (raw: string): [string, string][] => [...new URLSearchParams(raw)];
