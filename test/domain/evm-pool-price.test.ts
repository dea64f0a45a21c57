/**
 * Pool prices (src/domain/evm-pool-price.ts): V2 reserves and V3 sqrtPriceX96 against
 * docs/indexer.md's formulas, with a naive recomputation in exact rationals.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { liquidityUsd, price0In1, referenceUsd } from '../../src/domain/evm-pool-price.js';

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
/** An exact rational num/den as a double, through an integer quotient of at least 25 digits. */
const ratio = (num: bigint, den: bigint): number => {
  const k = Math.max(0, 25 + den.toString().length - num.toString().length);
  return Number((num * 10n ** BigInt(k)) / den) / 10 ** k;
};

describe('price0In1', () => {
  it('V2: WETH (18) at 3000 USDC (6)', () => {
    const p = price0In1({ kind: 'v2', reserve0: 10n * 10n ** 18n, reserve1: 30_000n * 10n ** 6n }, 18, 6)!;
    expect(p).toBe(3000);
  });
  it('V3: sqrtPriceX96 = 2^96 is a price of 1 between tokens of equal decimals, scaled by 10^(d0-d1)', () => {
    expect(price0In1({ kind: 'v3', sqrtPriceX96: 2n ** 96n }, 18, 18)).toBe(1);
    expect(price0In1({ kind: 'v3', sqrtPriceX96: 2n ** 96n }, 18, 6)).toBe(1e12);
    expect(price0In1({ kind: 'v3', sqrtPriceX96: 2n * 2n ** 96n }, 6, 6)).toBe(4);
  });
  it('answers null for an empty pool', () => {
    expect(price0In1({ kind: 'v2', reserve0: 0n, reserve1: 5n }, 18, 6)).toBeNull();
    expect(price0In1({ kind: 'v3', sqrtPriceX96: 0n }, 18, 6)).toBeNull();
  });

  it('V3 matches sqrtPriceX96^2 / 2^192 x 10^(d0-d1) computed exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 2n ** 40n, max: 2n ** 150n }), fc.integer({ min: 0, max: 18 }), fc.integer({ min: 0, max: 18 }), (s, d0, d1) => {
        const exact = d0 >= d1 ? ratio(s * s * 10n ** BigInt(d0 - d1), 2n ** 192n) : ratio(s * s, 2n ** 192n * 10n ** BigInt(d1 - d0));
        return Math.abs(price0In1({ kind: 'v3', sqrtPriceX96: s }, d0, d1)! - exact) <= 1e-12 * exact;
      }),
    );
  });

  it('V2 matches (r1 / 10^d1) / (r0 / 10^d0) computed exactly', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1000n, max: 2n ** 112n - 1n }),
        fc.bigInt({ min: 1000n, max: 2n ** 112n - 1n }),
        fc.integer({ min: 0, max: 18 }),
        fc.integer({ min: 0, max: 18 }),
        (r0, r1, d0, d1) => {
          const exact = d0 >= d1 ? ratio(r1 * 10n ** BigInt(d0 - d1), r0) : ratio(r1, r0 * 10n ** BigInt(d1 - d0));
          return close(price0In1({ kind: 'v2', reserve0: r0, reserve1: r1 }, d0, d1)!, exact);
        },
      ),
    );
  });
});

describe('referenceUsd', () => {
  const pool = { kind: 'v2' as const, reserve0: 10n * 10n ** 18n, reserve1: 30_000n * 10n ** 6n };
  it('prices token0 in the other side USD, and token1 by the inverse', () => {
    expect(referenceUsd(pool, true, 18, 6, 1)).toBe(3000);
    expect(referenceUsd(pool, false, 18, 6, 3000)).toBe(1);
  });
});

describe('liquidityUsd', () => {
  it('adds both sides at their USD prices', () => {
    expect(liquidityUsd(10, 3000, 30_000, 1)).toBe(60_000);
  });
  it('is 0 when nothing is worth anything or a figure is not finite', () => {
    expect(liquidityUsd(0, 3000, 0, 1)).toBe(0);
    expect(liquidityUsd(Infinity, 1, 1, 1)).toBe(0);
  });
});
