import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, InvalidCursor } from '../../shared/pagination/cursor.js';

const secret = 'c'.repeat(64);
const key = { pk: 'TENANT#ten_A', sk: 'USER#usr_1' };

describe('cursors', () => {
  it('round-trip for the same tenant and query', () => {
    const c = encodeCursor(secret, 'ten_A', 'users?', key);
    expect(decodeCursor(secret, 'ten_A', 'users?', c)).toEqual(key);
  });

  it('are refused for another tenant, another query, another key or when altered', () => {
    const c = encodeCursor(secret, 'ten_A', 'users?', key);
    expect(() => decodeCursor(secret, 'ten_B', 'users?', c)).toThrow(InvalidCursor);
    expect(() => decodeCursor(secret, 'ten_A', 'users?status=x', c)).toThrow(InvalidCursor);
    expect(() => decodeCursor('d'.repeat(64), 'ten_A', 'users?', c)).toThrow(InvalidCursor);
    const [body, mac] = c.split('.');
    const forged = Buffer.from(JSON.stringify({ t: 'ten_A', s: 'users?', k: { pk: 'TENANT#ten_B', sk: 'x' } })).toString('base64url');
    expect(() => decodeCursor(secret, 'ten_A', 'users?', `${forged}.${mac}`)).toThrow(InvalidCursor);
    expect(() => decodeCursor(secret, 'ten_A', 'users?', `${body}`)).toThrow(InvalidCursor);
    expect(() => decodeCursor(secret, 'ten_A', 'users?', 'garbage')).toThrow(InvalidCursor);
  });
});
