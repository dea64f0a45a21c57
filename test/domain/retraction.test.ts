/**
 * The plan of a retraction (src/domain/retraction.ts): the buckets, wallets, markets and tokens
 * the removed trades touched, each once, finest width first, deleted tokens left out.
 */
import { describe, expect, it } from 'vitest';
import { finerWidth, retractPlan } from '../../src/domain/retraction.js';
import { ROLLUP_SECONDS } from '../../src/domain/resolution.js';

describe('retractPlan', () => {
  const trade = (tokenId: number, blockTime: number, wallet = 'w', market = 'm') => ({ tokenId, blockTime, wallet, market });

  it('names each touched bucket of every width once, finest first, and each wallet, market and token once', () => {
    const plan = retractPlan([trade(1, 86_400 + 61, 'a', 'm1'), trade(1, 86_400 + 62, 'b', 'm1'), trade(2, 86_400 + 3_600, 'a', 'm2')]);
    expect(plan.candles.map((b) => [b.res, b.tokenId, b.t])).toEqual([
      [1, 1, 86_461],
      [1, 1, 86_462],
      [1, 2, 90_000],
      [15, 1, 86_460],
      [15, 2, 90_000],
      [60, 1, 86_460],
      [60, 2, 90_000],
      [900, 1, 86_400],
      [900, 2, 90_000],
      [3600, 1, 86_400],
      [3600, 2, 90_000],
      [86_400, 1, 86_400],
      [86_400, 2, 86_400],
    ]);
    expect(plan.marketCandles).toHaveLength(13);
    expect(plan.marketCandles.every((b) => b.market === (b.tokenId === 1 ? 'm1' : 'm2'))).toBe(true);
    expect(plan.marketRollups.map((b) => [b.res, b.tokenId, b.t, b.market])).toEqual([
      [60, 1, 86_460, 'm1'],
      [60, 2, 90_000, 'm2'],
      [3600, 1, 86_400, 'm1'],
      [3600, 2, 90_000, 'm2'],
    ]);
    expect(plan.wallets).toEqual([
      { tokenId: 1, wallet: 'a' },
      { tokenId: 1, wallet: 'b' },
      { tokenId: 2, wallet: 'a' },
    ]);
    expect(plan.markets).toEqual([
      { tokenId: 1, market: 'm1' },
      { tokenId: 2, market: 'm2' },
    ]);
    expect(plan.tokens).toEqual([1, 2]);
  });

  it('leaves out the tokens deleted whole, and plans nothing for no trades', () => {
    const plan = retractPlan([trade(1, 100), trade(2, 100)], new Set([2]));
    expect(plan.tokens).toEqual([1]);
    expect(plan.candles.every((b) => b.tokenId === 1)).toBe(true);
    expect(retractPlan([])).toEqual({ candles: [], marketCandles: [], marketRollups: [], wallets: [], markets: [], tokens: [] });
  });

  it('folds each width from the one below it, the finest from the trades', () => {
    expect(ROLLUP_SECONDS.map((w) => finerWidth(ROLLUP_SECONDS, w))).toEqual([null, 1, 15, 60, 900, 3600]);
    // Each width divides the next: a wider bucket is exactly its finer buckets.
    for (let i = 1; i < ROLLUP_SECONDS.length; i++) expect(ROLLUP_SECONDS[i]! % ROLLUP_SECONDS[i - 1]!).toBe(0);
    expect(() => finerWidth(ROLLUP_SECONDS, 5)).toThrow(RangeError);
  });
});
