/** The candle folds: rollup deltas at ingest and the newest-first bar builder of history reads. */
import { describe, expect, it } from 'vitest';
import { DescendingBarBuilder, rollupDeltas, type TradeForRollup } from '../../src/domain/candles.js';

const trade = (id: number, blockTime: number, priceUsd: number, volumeUsd: number, isBuy = true, tokenId = 1): TradeForRollup => ({
  id,
  tokenId,
  blockTime,
  isBuy,
  priceUsd,
  volumeUsd,
});

describe('rollupDeltas', () => {
  it('makes one delta per width for a single trade, each at its bucket start', () => {
    const deltas = rollupDeltas([trade(7, 90_061, 2, 10)]);
    expect(deltas.map((d) => [d.res, d.t])).toEqual([
      [1, 90_061],
      [15, 90_060],
      [60, 90_060],
      [900, 90_000],
      [3600, 90_000],
      [86400, 86_400],
    ]);
    expect(deltas[0]).toEqual({
      tokenId: 1,
      res: 1,
      t: 90_061,
      o: 2,
      h: 2,
      l: 2,
      c: 2,
      v: 10,
      vb: 10,
      n: 1,
      nb: 1,
      oTime: 90_061,
      oId: 7,
      cTime: 90_061,
      cId: 7,
    });
  });

  it('opens with the first trade and closes with the last in trade order, whatever order they come in', () => {
    // Given out of order: (time 120, id 5) is the first trade of the minute, (time 179, id 2) the last.
    const deltas = rollupDeltas([trade(9, 150, 4, 1, false), trade(2, 179, 3, 2), trade(5, 120, 5, 3, false), trade(6, 120, 1, 4)]);
    const minute = deltas.find((d) => d.res === 60)!;
    expect(minute).toEqual({ tokenId: 1, res: 60, t: 120, o: 5, h: 5, l: 1, c: 3, v: 10, vb: 6, n: 4, nb: 2, oTime: 120, oId: 5, cTime: 179, cId: 2 });
    // The 15 s buckets 120 and 165 hold two trades and one; 150 holds one.
    expect(deltas.filter((d) => d.res === 15).map((d) => [d.t, d.n, d.o, d.c])).toEqual([
      [150, 1, 4, 4],
      [165, 1, 3, 3],
      [120, 2, 5, 1],
    ]);
  });

  it('keeps tokens apart', () => {
    const deltas = rollupDeltas([trade(1, 60, 1, 1, true, 1), trade(2, 60, 9, 5, false, 2)]).filter((d) => d.res === 60);
    expect(deltas.map((d) => [d.tokenId, d.o, d.v, d.vb, d.nb])).toEqual([
      [1, 1, 1, 1, 1],
      [2, 9, 5, 0, 0],
    ]);
  });

  it('gives nothing for no trades', () => {
    expect(rollupDeltas([])).toEqual([]);
  });
});

describe('DescendingBarBuilder', () => {
  it('folds newest-first rows into bars, the oldest row giving the open, and returns them oldest first', () => {
    const b = new DescendingBarBuilder();
    // Rows of 60 s folded into 300 s buckets, newest first.
    b.add(600, 5, 6, 4, 5.5, 1);
    expect(b.currentBucket).toBe(600);
    b.add(300, 3, 3.5, 2.5, 3.25, 2);
    b.add(300, 2, 4, 1.5, 3, 3);
    expect(b.completed).toBe(1);
    b.add(0, 1, 1, 1, 1, 4);
    expect(b.completed).toBe(2);
    expect(b.finish()).toEqual([
      { t: 0, o: 1, h: 1, l: 1, c: 1, v: 4 },
      { t: 300, o: 2, h: 4, l: 1.5, c: 3.25, v: 5 },
      { t: 600, o: 5, h: 6, l: 4, c: 5.5, v: 1 },
    ]);
  });

  it('has no bucket and no bars before the first row', () => {
    const b = new DescendingBarBuilder();
    expect(b.currentBucket).toBeNull();
    expect(b.completed).toBe(0);
    expect(b.finish()).toEqual([]);
  });
});
