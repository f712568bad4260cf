/** Request fingerprint for idempotency: what "the same request" means. Pure module. */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonical-json.js';

/** SHA-256 of the canonical JSON (keys sorted at every depth), so key order never changes the hash. */
export function requestFingerprint(parts: { method: string; path: string; query: unknown; body: unknown }): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}
