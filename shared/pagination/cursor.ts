/**
 * Opaque, tamper-proof cursors. A cursor carries the last returned item's key, bound to
 * the tenant and to the query (route + filters) it was minted for, and is signed with
 * HMAC-SHA256. A forged, altered, foreign or mismatched cursor is rejected. Pure module.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type CursorKey = Record<string, string | number>;

interface Payload {
  t: string; // tenant
  s: string; // scope: route + canonical query
  k: CursorKey;
}

const sign = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('base64url');

export function encodeCursor(secret: string, tenantId: string, scope: string, key: CursorKey): string {
  const body = Buffer.from(JSON.stringify({ t: tenantId, s: scope, k: key } satisfies Payload)).toString('base64url');
  return `${body}.${sign(secret, body)}`;
}

export class InvalidCursor extends Error {}

export function decodeCursor(secret: string, tenantId: string, scope: string, cursor: string): CursorKey {
  const [body, mac, ...rest] = cursor.split('.');
  if (!body || !mac || rest.length > 0) throw new InvalidCursor('malformed');
  const expected = Buffer.from(sign(secret, body));
  const actual = Buffer.from(mac);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) throw new InvalidCursor('bad signature');
  let payload: Payload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
  } catch {
    throw new InvalidCursor('malformed');
  }
  if (payload.t !== tenantId || payload.s !== scope || typeof payload.k !== 'object' || payload.k === null) {
    throw new InvalidCursor('cursor belongs to another query');
  }
  return payload.k;
}
