/** The JSON form of a trade, from a stored row of either engine. */
import { describe, expect, it } from 'vitest';
import { toTradeJson } from '../../src/domain/trade-json.js';

const row = { id: 9, signature: 's', index: 2, blockTime: 100, priceUsd: 1.5, amount: 4, quoteAmount: 0.1, volumeUsd: 6, wallet: 'w', market: 'm', dex: null };

describe('toTradeJson', () => {
  it("names the side from isBuy (1/0 or boolean) and keeps the contract's field order", () => {
    const buy = toTradeJson({ ...row, isBuy: 1 });
    expect(buy).toEqual({ ...row, side: 'buy' });
    expect(Object.keys(buy)).toEqual([
      'id',
      'signature',
      'index',
      'blockTime',
      'side',
      'priceUsd',
      'amount',
      'quoteAmount',
      'volumeUsd',
      'wallet',
      'market',
      'dex',
    ]);
    expect(toTradeJson({ ...row, isBuy: true }).side).toBe('buy');
    expect(toTradeJson({ ...row, isBuy: 0 }).side).toBe('sell');
    expect(toTradeJson({ ...row, isBuy: false }).side).toBe('sell');
  });
});
