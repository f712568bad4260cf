/**
 * Canonical JSON and content hashes, as a pure module.
 *
 * Canonical form: compact JSON (no whitespace) with object keys sorted by UTF-16 code
 * unit order at every level; arrays keep their order. A client can recompute a
 * `content_hash` with any JSON library that sorts keys (Python:
 * `json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`).
 */
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

/** Lowercase hex SHA-256 of the canonical JSON of `value`. */
export const contentHash = (value: unknown): string => createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');

/** The hash over exactly `fields` of `record` (absent fields are left out). */
export const contentHashOf = <T extends Record<string, unknown>>(record: T, fields: readonly (keyof T & string)[]): string =>
  contentHash(Object.fromEntries(fields.filter((f) => record[f] !== undefined).map((f) => [f, record[f]])));
