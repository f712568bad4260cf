import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { bestConsentClass, type ConsentGrant, compactGrants } from '../../shared/policy/consent-strength.js';

const base = Date.parse('2030-01-01T00:00:00Z');
const grant = fc.record({
  basis: fc.constantFrom('pewc', 'pec', 'ebr', 'transactional') as fc.Arbitrary<ConsentGrant['basis']>,
  expires_at: fc.option(
    fc.integer({ min: -50, max: 50 }).map((d) => new Date(base + d * 86_400_000).toISOString()),
    { nil: null },
  ),
});

describe('compactGrants', () => {
  test.prop([fc.array(grant, { maxLength: 40 }), fc.integer({ min: -60, max: 60 })])(
    'gives the same best class at every instant, with at most one grant per basis',
    (grants, day) => {
      const compact = compactGrants(grants);
      expect(compact.length).toBeLessThanOrEqual(4);
      expect(new Set(compact.map((g) => g.basis)).size).toBe(compact.length);
      const now = new Date(base + day * 86_400_000 + 1);
      expect(bestConsentClass(compact, now)).toBe(bestConsentClass(grants, now));
    },
  );

  it('an expiring grant never hides a lasting one of the same basis, in either order', () => {
    const lasting = { basis: 'pewc', expires_at: null } as const;
    const expiring = { basis: 'pewc', expires_at: '2020-01-01T00:00:00.000Z' } as const;
    expect(compactGrants([expiring, lasting])).toEqual([lasting]);
    expect(compactGrants([lasting, expiring])).toEqual([lasting]);
    expect(compactGrants([expiring, { ...expiring, expires_at: '2021-01-01T00:00:00.000Z' }])).toEqual([
      { ...expiring, expires_at: '2021-01-01T00:00:00.000Z' },
    ]);
  });
});
