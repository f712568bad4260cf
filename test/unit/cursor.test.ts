import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, InvalidCursor } from '../../shared/pagination/cursor.js';

const secret = 'c'.repeat(64);
const key = { pk: 'TENANT#ten_A', sk: 'SUPPRESSION#+14155550123' };

/** Every way a cursor's content could show through: raw bytes, base64, base64url, hex. */
function readable(cursor: string, needle: string): boolean {
  const bytes = Buffer.from(cursor, 'base64url');
  const views = [cursor, bytes.toString('utf8'), bytes.toString('latin1'), bytes.toString('hex'), Buffer.from(cursor, 'base64').toString('latin1')];
  return views.some((v) => v.includes(needle) || v.includes(Buffer.from(needle).toString('hex')));
}

describe('cursors', () => {
  it('round-trip for the same tenant and query', () => {
    const c = encodeCursor(secret, 'ten_A', 'users?', key);
    expect(decodeCursor(secret, 'ten_A', 'users?', c)).toEqual(key);
  });

  it('are opaque: neither the key, the phone number, the tenant nor the query can be read out of one', () => {
    const c = encodeCursor(secret, 'ten_A', 'suppressions?', key);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    for (const needle of ['+14155550123', '4155550123', 'SUPPRESSION', 'TENANT', 'ten_A', 'suppressions', '"pk"']) expect(readable(c, needle)).toBe(false);
    // The same key never gives the same cursor twice (a fresh nonce each time).
    expect(encodeCursor(secret, 'ten_A', 'suppressions?', key)).not.toBe(c);
  });

  it('are refused for another tenant, another query, another key or when altered', () => {
    const c = encodeCursor(secret, 'ten_A', 'users?', key);
    expect(() => decodeCursor(secret, 'ten_B', 'users?', c)).toThrow(InvalidCursor);
    expect(() => decodeCursor(secret, 'ten_A', 'users?status=x', c)).toThrow(InvalidCursor);
    expect(() => decodeCursor('d'.repeat(64), 'ten_A', 'users?', c)).toThrow(InvalidCursor);
    // The tenant/scope split cannot be shifted to forge a binding.
    expect(() => decodeCursor(secret, 'ten_Au', 'sers?', c)).toThrow(InvalidCursor);
    const raw = Buffer.from(c, 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const flipped = Buffer.from(raw);
      flipped[i] = (flipped[i] ?? 0) ^ 0x01;
      expect(() => decodeCursor(secret, 'ten_A', 'users?', flipped.toString('base64url'))).toThrow(InvalidCursor);
    }
    expect(() => decodeCursor(secret, 'ten_A', 'users?', c.slice(0, -2))).toThrow(InvalidCursor);
    expect(() => decodeCursor(secret, 'ten_A', 'users?', `${c}.x`)).toThrow(InvalidCursor);
    expect(() => decodeCursor(secret, 'ten_A', 'users?', 'garbage')).toThrow(InvalidCursor);
    expect(() => decodeCursor(secret, 'ten_A', 'users?', '')).toThrow(InvalidCursor);
  });

  it('refuses a cursor in the old signed-JSON form', () => {
    const body = Buffer.from(JSON.stringify({ t: 'ten_A', s: 'users?', k: key })).toString('base64url');
    const mac = createHmac('sha256', secret).update(body).digest('base64url');
    expect(() => decodeCursor(secret, 'ten_A', 'users?', `${body}.${mac}`)).toThrow(InvalidCursor);
  });
});
