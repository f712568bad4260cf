import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, contentHash, contentHashOf } from '../../shared/canonical-json.js';

describe('canonical JSON', () => {
  it('sorts keys at every level, keeps array order, and is compact', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('does not depend on the order keys were written in', () => {
    expect(canonicalJson({ x: 1, y: { p: true, q: null } })).toBe(canonicalJson({ y: { q: null, p: true }, x: 1 }));
  });

  it('leaves out undefined members and keeps unicode as is', () => {
    expect(canonicalJson({ a: undefined, b: 'é✓' })).toBe('{"b":"é✓"}');
  });

  it('hashes as lowercase hex SHA-256 of the canonical text', () => {
    const expected = createHash('sha256').update('{"a":1,"b":[2,1]}').digest('hex');
    expect(contentHash({ b: [2, 1], a: 1 })).toBe(expected);
    expect(contentHash({ b: [2, 1], a: 1 })).toMatch(/^[0-9a-f]{64}$/);
    expect(contentHash({ b: [1, 2], a: 1 })).not.toBe(expected);
  });

  it('hashes only the named fields', () => {
    expect(contentHashOf({ a: 1, b: 2, c: 3 }, ['a', 'c'])).toBe(contentHash({ c: 3, a: 1 }));
  });
});
