/** addsToConsents (shared/policy/compliance/consent.ts): a contact keeps a consent's facts only when they can change a judgement. */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { addsToConsents, consentReasons, hasCoveringPewc } from '../../shared/policy/compliance/consent.js';
import type { ConsentFacts, ProfileFacts } from '../../shared/policy/compliance/types.js';

const base = Date.parse('2030-01-01T00:00:00Z');
const day = (d: number) => new Date(base + d * 86_400_000).toISOString();
const fact: fc.Arbitrary<ConsentFacts> = fc.record({
  basis: fc.constantFrom('pewc', 'pec', 'ebr', 'transactional') as fc.Arbitrary<ConsentFacts['basis']>,
  scope: fc.constantFrom(
    { purposes: ['solar'] },
    { purposes: ['solar'], channels: ['voice'] },
    { purposes: ['roofing'] },
    { channels: ['sms'], purposes: ['solar'] },
  ),
  captured_at: fc.integer({ min: -20, max: 20 }).map(day),
  expires_at: fc.option(fc.integer({ min: -20, max: 40 }).map(day), { nil: null }),
});
const profiles: ProfileFacts[] = (['marketing', 'informational'] as const).map((call_purpose) => ({
  call_purpose,
  subject: 'solar',
  seller_name: 'Acme',
  calling_window: null,
}));

/** The facts a contact item keeps when these consents are added in turn. */
const kept = (facts: readonly ConsentFacts[]) => facts.reduce<ConsentFacts[]>((list, f) => (addsToConsents(list, f) ? [...list, f] : list), []);

describe('the consent facts a contact keeps', () => {
  test.prop([fc.array(fact, { maxLength: 30 }), fc.integer({ min: -25, max: 45 })])(
    'judge every instant, purpose and channel as all the consents do',
    (facts, d) => {
      const keep = kept(facts);
      const at = base + d * 86_400_000 + 1;
      for (const profile of [null, ...profiles])
        for (const channel of ['voice', 'sms'] as const) {
          expect(consentReasons(keep, profile, at, channel)).toEqual(consentReasons(facts, profile, at, channel));
          if (profile) expect(hasCoveringPewc(keep, profile, at, channel)).toBe(hasCoveringPewc(facts, profile, at, channel));
        }
    },
  );

  it('the same consent again, or a later capture of it, adds nothing; an earlier capture, a longer life or another scope does', () => {
    const first: ConsentFacts = { basis: 'pewc', scope: { purposes: ['solar'] }, captured_at: day(0), expires_at: day(10) };
    expect(addsToConsents([first], { ...first })).toBe(false);
    expect(addsToConsents([first], { ...first, captured_at: day(1), expires_at: day(9) })).toBe(false);
    expect(addsToConsents([first], { ...first, captured_at: day(-1) })).toBe(true);
    expect(addsToConsents([first], { ...first, expires_at: null })).toBe(true);
    expect(addsToConsents([first], { ...first, scope: { purposes: ['solar'], channels: ['voice'] } })).toBe(true);
    expect(addsToConsents([first], { ...first, basis: 'pec' })).toBe(true);
  });
});
