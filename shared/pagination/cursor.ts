/**
 * Opaque, tamper-proof cursors. A cursor carries the last returned item's key, encrypted
 * and authenticated with AES-256-GCM so a client can neither read it (keys hold phone
 * numbers, emails, ids of other collections) nor alter it. It is bound to the tenant and
 * to the query (route + filters) it was minted for: both are the cipher's additional
 * authenticated data, so a foreign or mismatched cursor fails authentication exactly like
 * a forged one. The AES key is derived (HKDF-SHA256) from the cursor signing secret, so no
 * new secret has to be provisioned. Pure module (the nonce is random).
 *
 * Layout, base64url: version (1 byte) ‖ nonce (12) ‖ ciphertext ‖ tag (16).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export type CursorKey = Record<string, string | number>;

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HKDF_INFO = 'pagination-cursor/aes-256-gcm/v1';

const derived = new Map<string, Buffer>();
function aesKey(secret: string): Buffer {
  let key = derived.get(secret);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), HKDF_INFO, 32));
    derived.set(secret, key);
  }
  return key;
}

/** What the cursor is bound to, unambiguously (a tenant id never decides where the scope starts). */
const boundTo = (tenantId: string, scope: string) => Buffer.from(JSON.stringify([tenantId, scope]), 'utf8');

export function encodeCursor(secret: string, tenantId: string, scope: string, key: CursorKey): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', aesKey(secret), nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(boundTo(tenantId, scope));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(key), 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), nonce, sealed, cipher.getAuthTag()]).toString('base64url');
}

export class InvalidCursor extends Error {}

const isCursorKey = (v: unknown): v is CursorKey =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string' || typeof x === 'number');

export function decodeCursor(secret: string, tenantId: string, scope: string, cursor: string): CursorKey {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new InvalidCursor('malformed');
  const raw = Buffer.from(cursor, 'base64url');
  if (raw.length < 1 + NONCE_BYTES + 1 + TAG_BYTES || raw[0] !== VERSION) throw new InvalidCursor('malformed');
  const nonce = raw.subarray(1, 1 + NONCE_BYTES);
  const tag = raw.subarray(raw.length - TAG_BYTES);
  const sealed = raw.subarray(1 + NONCE_BYTES, raw.length - TAG_BYTES);
  let plain: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', aesKey(secret), nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(boundTo(tenantId, scope));
    decipher.setAuthTag(tag);
    plain = Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
  } catch {
    // Altered, forged, minted under another secret, or for another tenant or query.
    throw new InvalidCursor('not issued for this query');
  }
  let key: unknown;
  try {
    key = JSON.parse(plain);
  } catch {
    throw new InvalidCursor('malformed');
  }
  if (!isCursorKey(key)) throw new InvalidCursor('malformed');
  return key;
}
