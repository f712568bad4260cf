import { describe, expect, it } from 'vitest';
import { bearerToken, formatToken, hashSecret, mintSecret, parseToken, secretMatches } from '../../shared/auth/api-key-token.js';
import { newId } from '../../shared/ids.js';

describe('API key tokens', () => {
  const tenant = newId('ten');
  const key = newId('key');
  const secret = mintSecret();
  const pepper = 'p'.repeat(64);

  it('carry a recognisable prefix, the tenant, the key id and a 256-bit secret', () => {
    const token = formatToken(tenant, key, secret);
    expect(token.startsWith('vak_ten_')).toBe(true);
    expect(parseToken(token)).toEqual({ tenantId: tenant, keyId: key, secret });
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(mintSecret()).not.toBe(secret);
  });

  it('reject malformed or tampered tokens', () => {
    const token = formatToken(tenant, key, secret);
    for (const bad of [
      '',
      'vak_',
      token.replace('vak_', 'sk_'),
      `${token}.x`,
      token.slice(0, -1),
      token.replace(tenant, 'ten_#x'),
      token.replace(key, 'usr_' + key.slice(4)),
    ]) {
      expect(parseToken(bad)).toBeUndefined();
    }
  });

  it('match only the right secret for the right key id, in constant time', () => {
    const stored = hashSecret(pepper, key, secret);
    expect(stored).not.toContain(secret);
    expect(secretMatches(pepper, key, secret, stored)).toBe(true);
    expect(secretMatches(pepper, key, mintSecret(), stored)).toBe(false);
    expect(secretMatches(pepper, newId('key'), secret, stored)).toBe(false);
    expect(secretMatches('q'.repeat(64), key, secret, stored)).toBe(false);
  });

  it('read only well-formed Bearer headers', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
