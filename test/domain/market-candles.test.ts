/** The per-market rollup fold: the USD bar and the quote-token bar open and close with the same trade. */
import { describe, expect, it } from 'vitest';
import { marketRollupDeltas, nativePrice, priceIn, type TradeForMarketRollup } from '../../src/domain/market-candles.js';

const trade = (id: number, blockTime: number, priceUsd: number, amount: number, quoteAmount: number, market = 'M1'): TradeForMarketRollup => ({
  id,
  tokenId: 1,
  market,
  blockTime,
  priceUsd,
  volumeUsd: priceUsd * amount,
  amount,
  quoteAmount,
});

describe('marketRollupDeltas', () => {
  it('opens and closes both bars with the first and last trade in trade order, whatever order they come in', () => {
    // (120, id 5) opens the minute, (179, id 2) closes it; quote prices 0.5, 2, 0.25 and 4.
    const deltas = marketRollupDeltas([trade(9, 150, 4, 1, 2), trade(2, 179, 3, 2, 8), trade(5, 120, 5, 4, 2), trade(6, 120, 1, 4, 1)]);
    expect(deltas.find((d) => d.res === 60)).toEqual({
      tokenId: 1,
      market: 'M1',
      res: 60,
      t: 120,
      o: 5,
      h: 5,
      l: 1,
      c: 3,
      v: 34,
      qo: 0.5,
      qh: 4,
      ql: 0.25,
      qc: 4,
      qv: 13,
      n: 4,
      oTime: 120,
      oId: 5,
      cTime: 179,
      cId: 2,
    });
  });

  it('keeps markets apart and gives a trade of amount 0 the quote price 0', () => {
    const deltas = marketRollupDeltas([trade(1, 60, 2, 3, 6, 'M1'), trade(2, 60, 9, 0, 5, 'M2')]).filter((d) => d.res === 60);
    expect(deltas.map((d) => [d.market, d.o, d.qo, d.qv, d.n])).toEqual([
      ['M1', 2, 2, 6, 1],
      ['M2', 9, 0, 5, 1],
    ]);
    expect(nativePrice(0, 5)).toBe(0);
  });

  it('gives nothing for no trades', () => {
    expect(marketRollupDeltas([])).toEqual([]);
  });
});

describe('priceIn', () => {
  it('reads the USD close or the quote close, and null without a rollup', () => {
    expect(priceIn('usd', { c: 2.5, qc: 0.01 })).toBe(2.5);
    expect(priceIn('native', { c: 2.5, qc: 0.01 })).toBe(0.01);
    expect(priceIn('usd', undefined)).toBeNull();
  });
});
