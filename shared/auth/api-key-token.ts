/**
 * API key tokens: `vak_<tenant_id>.<key_id>.<secret>`.
 *
 * The recognisable prefix lets secret scanners find leaked keys. Carrying the tenant and
 * key ids lets authentication be one strongly consistent GetItem on a tenant-prefixed
 * key; the secret (256 random bits) is stored only as HMAC-SHA256 under a server-side
 * pepper and compared in constant time. Pure module: no I/O.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ID_PATTERN } from '../ids.js';

export const TOKEN_PREFIX = 'vak_';
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface ParsedToken {
  tenantId: string;
  keyId: string;
  secret: string;
}

export function mintSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function formatToken(tenantId: string, keyId: string, secret: string): string {
  return `${TOKEN_PREFIX}${tenantId}.${keyId}.${secret}`;
}

export function parseToken(token: string): ParsedToken | undefined {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return undefined;
  const parts = token.slice(TOKEN_PREFIX.length).split('.');
  if (parts.length !== 3) return undefined;
  const [tenantId, keyId, secret] = parts as [string, string, string];
  if (!ID_PATTERN.test(tenantId) || !tenantId.startsWith('ten_')) return undefined;
  if (!ID_PATTERN.test(keyId) || !keyId.startsWith('key_')) return undefined;
  if (!SECRET_PATTERN.test(secret)) return undefined;
  return { tenantId, keyId, secret };
}

/** Keyed hash of a secret, bound to its key id so hashes cannot be swapped between keys. */
export function hashSecret(pepper: string, keyId: string, secret: string): string {
  return createHmac('sha256', pepper).update(`${keyId}.${secret}`).digest('hex');
}

export function secretMatches(pepper: string, keyId: string, secret: string, storedHash: string): boolean {
  const actual = Buffer.from(hashSecret(pepper, keyId, secret), 'hex');
  const expected = Buffer.from(storedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Extract the bearer token from an Authorization header value. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  return match?.[1];
}
