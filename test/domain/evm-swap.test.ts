/**
 * Swap rules (src/domain/evm-swap.ts) against docs/indexer.md's formulas, and fast-check
 * properties against a naive recomputation through decimal strings.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chooseQuote, swapTrade, toUnits, usdFigures, v2Flow, v3Flow } from '../../src/domain/evm-swap.js';

/** raw / 10^d through its decimal string: JavaScript's parse is correctly rounded. */
const naiveUnits = (raw: bigint, d: number): number => {
  const s = raw.toString().padStart(d + 1, '0');
  return Number(`${s.slice(0, s.length - d)}.${s.slice(s.length - d) || '0'}`);
};
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));

describe('chooseQuote', () => {
  const pool = { token0: '0xa', token1: '0xb' };
  it('takes the token listed first in quotes as the quote', () => {
    expect(chooseQuote(pool, ['0xb', '0xa'])).toEqual({ base: '0xa', quote: '0xb', baseIs0: true });
    expect(chooseQuote(pool, ['0xa', '0xb'])).toEqual({ base: '0xb', quote: '0xa', baseIs0: false });
    expect(chooseQuote(pool, ['0xc', '0xb'])).toEqual({ base: '0xa', quote: '0xb', baseIs0: true });
    expect(chooseQuote(pool, ['0xa'])).toEqual({ base: '0xb', quote: '0xa', baseIs0: false });
  });
  it('answers null for a pool without a quote token', () => {
    expect(chooseQuote(pool, ['0xc'])).toBeNull();
  });
});

describe('swap flows', () => {
  it('V2: baseNet = baseOut - baseIn, quoteNet = quoteIn - quoteOut', () => {
    const s = { amount0In: 0n, amount1In: 500n, amount0Out: 20n, amount1Out: 0n };
    expect(v2Flow(s, true)).toEqual({ baseNet: 20n, quoteNet: 500n });
    expect(v2Flow(s, false)).toEqual({ baseNet: -500n, quoteNet: -20n });
  });
  it('V3: baseNet = -amountBase, quoteNet = amountQuote', () => {
    const s = { amount0: -20n, amount1: 500n };
    expect(v3Flow(s, true)).toEqual({ baseNet: 20n, quoteNet: 500n });
    expect(v3Flow(s, false)).toEqual({ baseNet: -500n, quoteNet: -20n });
  });
});

describe('swapTrade', () => {
  it('a buy of 1.5 tokens of 18 decimals for 3000 of a 6-decimal quote', () => {
    const t = swapTrade({ baseNet: 1_500_000_000_000_000_000n, quoteNet: 3_000_000_000n }, 18, 6)!;
    expect(t).toEqual({ side: 'buy', amount: 1.5, quoteAmount: 3000 });
    expect(usdFigures(t, 1)).toEqual({ priceUsd: 2000, volumeUsd: 3000 });
    expect(usdFigures(t, 2)).toEqual({ priceUsd: 4000, volumeUsd: 6000 });
  });
  it('a sell when baseNet < 0', () => {
    expect(swapTrade({ baseNet: -5n, quoteNet: -7n }, 0, 0)).toEqual({ side: 'sell', amount: 5, quoteAmount: 7 });
  });
  it('no trade when either side is zero', () => {
    expect(swapTrade({ baseNet: 0n, quoteNet: 7n }, 0, 0)).toBeNull();
    expect(swapTrade({ baseNet: 3n, quoteNet: 0n }, 0, 0)).toBeNull();
  });

  it('matches a naive recomputation for any amounts and decimals', () => {
    const raw = fc.bigInt({ min: -(2n ** 255n), max: 2n ** 255n - 1n });
    fc.assert(
      fc.property(
        raw,
        raw,
        fc.integer({ min: 0, max: 36 }),
        fc.integer({ min: 0, max: 36 }),
        fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
        (b, q, bd, qd, usd) => {
          const t = swapTrade({ baseNet: b, quoteNet: q }, bd, qd);
          if (b === 0n || q === 0n) return t === null;
          const amount = naiveUnits(b < 0n ? -b : b, bd);
          const quoteAmount = naiveUnits(q < 0n ? -q : q, qd);
          expect(t).not.toBeNull();
          expect(t!.side).toBe(b > 0n ? 'buy' : 'sell');
          expect(close(t!.amount, amount) && close(t!.quoteAmount, quoteAmount)).toBe(true);
          const f = usdFigures(t!, usd);
          return close(f.priceUsd, (quoteAmount / amount) * usd) && close(f.volumeUsd, quoteAmount * usd);
        },
      ),
    );
  });

  it('toUnits is within one rounding of the exact quotient', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), fc.integer({ min: 0, max: 36 }), (raw, d) => close(toUnits(raw, d), naiveUnits(raw, d))),
    );
  });
});
