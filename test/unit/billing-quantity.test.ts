import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { addQuantities, quantityString } from '../../shared/policy/billing/quantity.js';
import { D, decimalString } from '../../shared/policy/billing/rating.js';

/**
 * Non-negative decimals as the ledger meets them: JSON numbers, plain decimal strings, DynamoDB's
 * exponent forms. (Past decimal.js's 60 significant digits, which no meter reaches, the sums here
 * are exact where decimal.js rounds: hence no doubles below 1e-6 beside 1e12.)
 */
const quantity = fc.oneof(
  fc.double({ min: 1e-6, max: 1e12, noNaN: true, noDefaultInfinity: true }),
  fc.nat({ max: 10_000_000 }),
  fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.nat({ max: 20 })).map(([d, s]) => {
    const t = d.toString().padStart(s + 1, '0');
    return s ? `${t.slice(0, t.length - s)}.${t.slice(t.length - s)}` : t;
  }),
  fc.tuple(fc.nat({ max: 99_999 }), fc.integer({ min: -12, max: 12 })).map(([m, e]) => `${m}e${e}`),
);

describe('ledger quantities without decimal.js', () => {
  test.prop([quantity])('normalize exactly as decimal.js prints them', (q) => {
    expect(quantityString(q)).toBe(decimalString(new D(q)));
  });

  test.prop([fc.array(quantity, { maxLength: 30 })])('add exactly, as decimal.js does', (qs) => {
    expect(addQuantities(...qs)).toBe(decimalString(qs.reduce((sum: InstanceType<typeof D>, q) => sum.plus(q), new D(0))));
  });

  it('refuse what is not a finite non-negative decimal', () => {
    for (const bad of ['-1', '', '.', 'abc', '1.2.3', 'NaN', '1e', Number.NaN, Number.POSITIVE_INFINITY, -0.5]) expect(quantityString(bad)).toBeNull();
    expect(() => addQuantities('1', '-2')).toThrow();
    expect(quantityString('000.500')).toBe('0.5');
    expect(quantityString(0)).toBe('0');
  });
});
