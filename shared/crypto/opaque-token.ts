/**
 * One-use and session credentials (see docs/decisions/auth-and-sessions.md), pure: `<prefix>_<scope ids…>.<secret>` where the
 * secret is 32 random bytes (256 bits, base64url). The scope ids (tenant, user) say where the
 * record lives, as an API key's do; only SHA-256 of the secret is stored, so a leaked table
 * holds nothing that signs anyone in. The secret is compared by looking its hash up (a
 * conditional write or a key read), never by a string compare.
 */
import { createHash, randomBytes } from 'node:crypto';
import { isId } from '../ids.js';

const TOKEN_SECRET_BYTES = 32;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

export interface MintedToken {
  token: string;
  /** SHA-256 (hex) of the secret: what is stored. */
  hash: string;
}

export function mintToken(prefix: string, scope: readonly string[]): MintedToken {
  const secret = randomBytes(TOKEN_SECRET_BYTES).toString('base64url');
  return { token: `${prefix}_${[...scope, secret].join('.')}`, hash: hashSecret(secret) };
}

export interface ParsedToken {
  scope: string[];
  hash: string;
}

/** The token's scope ids and secret hash, or undefined when it is not a well-formed `prefix` token with `scopeParts` ids. */
export function parseToken(prefix: string, token: unknown, scopeParts: number): ParsedToken | undefined {
  if (typeof token !== 'string' || token.length > 300 || !token.startsWith(`${prefix}_`)) return undefined;
  const parts = token.slice(prefix.length + 1).split('.');
  if (parts.length !== scopeParts + 1) return undefined;
  const secret = parts.pop()!;
  if (!SECRET.test(secret) || !parts.every(isId)) return undefined;
  return { scope: parts, hash: hashSecret(secret) };
}
