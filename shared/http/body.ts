/**
 * A request's body as sent: its raw text, its form pairs in the order sent (carriers sign
 * these), and whether its Content-Type is JSON or a form. Pure.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** The body as the client sent it (API Gateway base64-encodes bodies it considers binary). */
export function rawBody(event: Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'>): string {
  const body = typeof event.body === 'string' ? event.body : '';
  return event.isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
}

/** Every name/value pair of a URL-encoded form, repeated names included. */
export const formPairs = (raw: string): [string, string][] => [...new URLSearchParams(raw)];

/**
 * Is a Content-Type header JSON? `application/json` or any `application/…+json` (RFC 6839),
 * case-insensitive, with no charset or charset utf-8 (RFC 8259 §8.1: JSON exchanged between
 * systems is UTF-8). `utf8`, a spelling many clients send, counts as utf-8.
 */
export function isJsonMediaType(header: string | undefined): boolean {
  const parsed = parseMediaType(header);
  return parsed !== undefined && /^application\/([a-z0-9!#$&^_.-]+\+)?json$/.test(parsed.type) && parsed.utf8;
}

/** Is a Content-Type header a URL-encoded form (what carriers post)? Charset utf-8 (or utf8) if given. */
export function isFormMediaType(header: string | undefined): boolean {
  const parsed = parseMediaType(header);
  return parsed !== undefined && parsed.type === 'application/x-www-form-urlencoded' && parsed.utf8;
}

/** The lowercased type/subtype, and whether every charset parameter names UTF-8. */
function parseMediaType(header: string | undefined): { type: string; utf8: boolean } | undefined {
  if (!header) return undefined;
  const [type, ...params] = header.split(';').map((p) => p.trim().toLowerCase());
  if (!type) return undefined;
  const utf8 = params.every((param) => {
    const [name, value] = param.split('=').map((p) => p?.trim());
    return name !== 'charset' || isUtf8Name(value?.replace(/^"|"$/g, ''));
  });
  return { type, utf8 };
}

const isUtf8Name = (charset: string | undefined): boolean => charset === 'utf-8' || charset === 'utf8';
