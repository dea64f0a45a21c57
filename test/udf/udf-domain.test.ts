/** Pure UDF shaping: the price scale rule and its exponent arithmetic. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decimalExponent, nameHasPhrase, nameWords, pricescale, queryWords, quoteValues, splitSearchQuery, symbolInfo } from '../../src/domain/udf.js';

describe('decimalExponent', () => {
  it('is floor(log10 x) exactly, at powers of ten and just below them', () => {
    for (let e = -15; e <= 15; e++) {
      const p = Number(`1e${e}`);
      expect(decimalExponent(p)).toBe(e);
      expect(decimalExponent(p * (1 - Number.EPSILON))).toBe(e - 1);
    }
  });

  it('brackets every positive price between 10^e and 10^(e+1)', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-300, max: 1e300, noNaN: true }), (x) => {
        const e = decimalExponent(x);
        expect(Number(`1e${e}`)).toBeLessThanOrEqual(x);
        expect(Number(`1e${e + 1}`)).toBeGreaterThan(x);
      }),
    );
  });
});

describe('pricescale', () => {
  it('shows four significant digits and at least cents', () => {
    expect(pricescale(0.0000213)).toBe(1e8);
    expect(pricescale(0.5)).toBe(1e4);
    expect(pricescale(1)).toBe(1000);
    expect(pricescale(9.999)).toBe(1000);
    expect(pricescale(10)).toBe(100);
    expect(pricescale(65_000)).toBe(100);
  });

  it('uses 10^10 without a price, follows the rule for tiny prices, and stays finite for subnormal ones', () => {
    expect(pricescale(null)).toBe(1e10);
    expect(pricescale(0)).toBe(1e10);
    expect(pricescale(1e-13)).toBe(1e16);
    expect(pricescale(1e-20)).toBe(1e23);
    expect(pricescale(5e-324)).toBe(1e308);
  });

  it('always keeps at least four significant digits of the price', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-300, max: 1e12, noNaN: true }), (price) => {
        const scale = pricescale(price);
        expect(Number.isInteger(Math.log10(scale))).toBe(true);
        expect(price * scale).toBeGreaterThanOrEqual(1000 * (1 - 1e-12));
      }),
    );
  });
});

describe('symbol shapes', () => {
  const token = { address: 'A'.repeat(32), symbol: 'SYM', name: 'Symbol', priceUsd: 2, topDex: 'orca' };

  it('never puts an s field in symbol info', () => {
    expect(symbolInfo(token, 'orca')).not.toHaveProperty('s');
  });

  it('measures quote change against the base price and leaves it null without one', () => {
    const f = { last: 3, base: 2, volume: 1, open: 2, high: 3, low: 2 };
    expect(quoteValues(token, 'orca', f)).toMatchObject({ ch: 1, chp: 50, prev_close_price: 2 });
    expect(quoteValues(token, 'orca', { ...f, base: null })).toMatchObject({ ch: null, chp: null, prev_close_price: null });
  });
});

describe('search query rules', () => {
  it('reads EXCHANGE:TEXT as TEXT on that exchange, as /udf/symbols reads it', () => {
    expect(splitSearchQuery('ORCA:GIGA', null)).toEqual({ text: 'GIGA', exchange: 'ORCA' });
    expect(splitSearchQuery('orca: giga ', null)).toEqual({ text: 'giga', exchange: 'orca' });
    expect(splitSearchQuery(':GIGA', null)).toEqual({ text: 'GIGA', exchange: null });
    expect(splitSearchQuery(':GIGA', 'raydium')).toEqual({ text: 'GIGA', exchange: 'raydium' });
    expect(splitSearchQuery('ORCA:', null)).toEqual({ text: '', exchange: 'ORCA' });
    expect(splitSearchQuery('GIGA', 'orca')).toEqual({ text: 'GIGA', exchange: 'orca' });
    expect(splitSearchQuery('ORCA:GIGA', 'orca')).toEqual({ text: 'GIGA', exchange: 'ORCA' });
    expect(splitSearchQuery('ORCA:GIGA', 'raydium')).toBeNull();
  });

  it('splits names into lower-cased words on anything but letters and digits', () => {
    expect(nameWords('Super Bonk-AI (v2)')).toEqual(['super', 'bonk', 'ai', 'v2']);
    expect(nameWords('dogwifhat')).toEqual(['dogwifhat']);
    expect(nameWords('  ')).toEqual([]);
    expect(nameWords('Émile Ünïcode')).toEqual(['émile', 'ünïcode']);
  });

  it('searches names only for queries of letters, digits and blanks', () => {
    expect(queryWords('super B')).toEqual(['super', 'b']);
    expect(queryWords('100')).toEqual(['100']);
    expect(queryWords('100%')).toBeNull();
    expect(queryWords('A_')).toBeNull();
    expect(queryWords('   ')).toBeNull();
  });

  it('finds the words in a row, the last as a word prefix', () => {
    expect(nameHasPhrase('Super Bonk', ['bonk'])).toBe(true);
    expect(nameHasPhrase('Super Bonk', ['super', 'b'])).toBe(true);
    expect(nameHasPhrase('Super Bonk', ['super'])).toBe(true);
    expect(nameHasPhrase('Super Bonk', ['onk'])).toBe(false);
    expect(nameHasPhrase('Super Bonk', ['bonk', 'super'])).toBe(false);
    expect(nameHasPhrase('Super Great Bonk', ['super', 'bonk'])).toBe(false);
    expect(nameHasPhrase('Super', ['super', 'b'])).toBe(false);
    expect(nameHasPhrase('Super Super Bonk', ['super', 'bo'])).toBe(true);
  });
});
