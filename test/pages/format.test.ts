// The pages' one price and money format (src/web/assets/js/format.js), as plain functions.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
// @ts-expect-error: a browser module in plain JavaScript, without type declarations
import * as fmt from '../../src/web/assets/js/format.js';

const { price, priceText, usd } = fmt as { price(v: unknown): string; priceText(v: unknown): string; usd(v: unknown): string };
const SUB = '₀₁₂₃₄₅₆₇₈₉';

describe('price format', () => {
  it.each([
    [0.000014, '$0.0₄14'],
    [0.00001234, '$0.0₄1234'],
    [0.0000012345, '$0.0₅1235'],
    [1e-9, '$0.0₈1'],
    [2.5e-13, '$0.0₁₂25'],
    [0.0000999999, '$0.0001'],
    [0.000123, '$0.000123'],
    [0.0799, '$0.0799'],
    [0.5, '$0.5'],
    [0.99999, '$1'],
    [0.099999, '$0.1'],
    [1.23456, '$1.2346'],
    [12345.678, '$12,345.68'],
    [0, '$0'],
    [null, '–'],
    [Number.NaN, '–'],
  ])('writes %s as %s', (v, want) => {
    expect(price(v)).toBe(want);
  });

  it('reads back within half a unit of the fourth significant digit, for any price from 1e-15 to 1', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-15, max: 0.9999, noNaN: true }), (v) => {
        const text = priceText(v);
        const plain = text.replace(/^0\.0([₀-₉]+)/, (_m, count: string) => '0.' + '0'.repeat(Number([...count].map((c) => SUB.indexOf(c)).join(''))));
        const back = Number(plain);
        expect(Math.abs(back - v) / v).toBeLessThanOrEqual(0.0005 + 1e-12);
      }),
    );
  });
});

describe('money format', () => {
  it.each([
    [0, '$0.00'],
    [0.004, '$0.004'],
    [5.5, '$5.50'],
    [812.4, '$812.40'],
    [9999, '$9,999.00'],
    [12345, '$12.35K'],
    [70866281, '$70.87M'],
    [2.1e9, '$2.10B'],
  ])('writes %s as %s', (v, want) => {
    expect(usd(v)).toBe(want);
  });
});
