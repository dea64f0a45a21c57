/**
 * The JSON form T of a trade (docs/api.md, Token reads): what the trades pages, the stream and the
 * webhook events show, mapped from a stored trade row by one function on every engine.
 */
import { keyParts, showsChains, type Chains } from './chains.js';

/** A trade as the API shows it. */
export type TradeJson = {
  id: number;
  signature: string;
  index: number;
  blockTime: number;
  side: 'buy' | 'sell';
  priceUsd: number;
  amount: number;
  quoteAmount: number;
  volumeUsd: number;
  wallet: string;
  market: string;
  dex: string | null;
};

/**
 * What toTradeJson needs: a stored trade (isBuy as 0/1 or boolean instead of side) and its
 * market's dex (null when the market is not in the store).
 */
export type TradeRowLike = Omit<TradeJson, 'side'> & { isBuy: number | boolean };

/** The JSON form T of a trade, fields in the contract's order. */
export function toTradeJson(r: TradeRowLike): TradeJson {
  return {
    id: r.id,
    signature: r.signature,
    index: r.index,
    blockTime: r.blockTime,
    side: r.isBuy === true || r.isBuy === 1 ? 'buy' : 'sell',
    priceUsd: r.priceUsd,
    amount: r.amount,
    quoteAmount: r.quoteAmount,
    volumeUsd: r.volumeUsd,
    wallet: r.wallet,
    market: r.market,
    dex: r.dex,
  };
}

/**
 * A trade as a deployment of several chains shows it (docs/chains.md, Answers): its `market` the
 * market's plain address and `chain` after the contract's fields; on one chain the trade itself,
 * byte for byte as before chains.
 */
export function tradeOnChain(t: TradeJson, chains: Chains): TradeJson & { chain?: string } {
  if (!showsChains(chains)) return t;
  const ref = keyParts(t.market, chains);
  return { ...t, market: ref.address, chain: ref.chain };
}
