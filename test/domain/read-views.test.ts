/**
 * The read views' rows of a batch (src/domain/read-views.ts), computed once for both engines:
 * each wallet's newest time, each market's sums per bucket of each width, and its newest trade.
 */
import { describe, expect, it } from 'vitest';
import { readViewRows, type ViewTrade } from '../../src/domain/read-views.js';

const trade = (id: number, tokenId: number, blockTime: number, over: Partial<ViewTrade> = {}): ViewTrade => ({
  id,
  tokenId,
  blockTime,
  wallet: 'w1',
  market: 'm1',
  isBuy: true,
  volumeUsd: 10,
  priceUsd: 1,
  ...over,
});

describe('readViewRows', () => {
  it('folds a batch to one row per wallet, per market bucket of each width and per market, in first-seen order', () => {
    const rows = readViewRows([
      trade(7, 1, 7_260, { priceUsd: 2 }),
      trade(5, 1, 7_230, { wallet: 'w2', isBuy: false, volumeUsd: 4 }),
      trade(9, 1, 3_599, { market: 'm2', volumeUsd: 1.5, priceUsd: 3 }),
      trade(8, 1, 7_260, { isBuy: false, volumeUsd: 0.25, priceUsd: 5 }),
      trade(6, 2, 7_200, { priceUsd: 4 }),
    ]);
    expect(rows.walletLast).toEqual([
      { tokenId: 1, wallet: 'w1', last: 7_260 },
      { tokenId: 1, wallet: 'w2', last: 7_230 },
      { tokenId: 2, wallet: 'w1', last: 7_200 },
    ]);
    expect(rows.marketRollups).toEqual([
      { tokenId: 1, res: 3600, t: 7_200, market: 'm1', v: 14.25, n: 3 },
      { tokenId: 1, res: 60, t: 7_260, market: 'm1', v: 10.25, n: 2 },
      { tokenId: 1, res: 60, t: 7_200, market: 'm1', v: 4, n: 1 },
      { tokenId: 1, res: 3600, t: 0, market: 'm2', v: 1.5, n: 1 },
      { tokenId: 1, res: 60, t: 3_540, market: 'm2', v: 1.5, n: 1 },
      { tokenId: 2, res: 3600, t: 7_200, market: 'm1', v: 10, n: 1 },
      { tokenId: 2, res: 60, t: 7_200, market: 'm1', v: 10, n: 1 },
    ]);
    // Trade order: the later block time, then the higher id at the same time (8 over 7).
    expect(rows.marketLast).toEqual([
      { tokenId: 1, market: 'm1', blockTime: 7_260, tradeId: 8, priceUsd: 5 },
      { tokenId: 1, market: 'm2', blockTime: 3_599, tradeId: 9, priceUsd: 3 },
      { tokenId: 2, market: 'm1', blockTime: 7_200, tradeId: 6, priceUsd: 4 },
    ]);
  });

  it('adds buys and then sells, as the stored sums always have', () => {
    const { marketRollups } = readViewRows([
      trade(1, 1, 60, { isBuy: false, volumeUsd: 0.1 }),
      trade(2, 1, 61, { volumeUsd: 0.2 }),
      trade(3, 1, 62, { volumeUsd: 0.3 }),
    ]);
    // (0.2 + 0.3) + 0.1, not (0.1 + 0.2) + 0.3 = 0.6000000000000001
    expect(marketRollups[0]).toEqual({ tokenId: 1, res: 3600, t: 0, market: 'm1', v: 0.6, n: 3 });
  });

  it('gives no rows for no trades', () => {
    expect(readViewRows([])).toEqual({ walletLast: [], marketRollups: [], marketLast: [] });
  });
});
