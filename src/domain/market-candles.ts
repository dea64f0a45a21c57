/**
 * Per-market candle rollups (README, Pairs and native prices): the bars of one market, in USD
 * (priceUsd, volumeUsd) and in the quote token (price = quoteAmount / amount, volume =
 * quoteAmount). Same buckets and open / close rule as the token's rollups: open is the first
 * trade of the bucket in trade order (blockTime, id), close the last.
 */
import { foldRollups, type RollupBar, type RollupKind, type RollupTrade } from './candles.js';

/** A partial market rollup bucket: the common bar in USD, and the same bar in the quote token (q*). */
export type MarketRollupDelta = RollupBar & { tokenId: number; market: string; qo: number; qh: number; ql: number; qc: number; qv: number };

export type TradeForMarketRollup = RollupTrade & { tokenId: number; market: string; amount: number; quoteAmount: number };

/**
 * The price of a trade in its quote token. A trade of amount 0 has no such price: it takes the
 * USD-free ratio 0, as the backfill in SQL does (a division by zero there is NULL, coalesced to 0).
 */
export const nativePrice = (amount: number, quoteAmount: number): number => (amount > 0 ? quoteAmount / amount : 0);

const marketRollup: RollupKind<TradeForMarketRollup, MarketRollupDelta> = {
  series: (tr) => `${tr.tokenId}|${tr.market}`,
  open(bar, tr) {
    const q = nativePrice(tr.amount, tr.quoteAmount);
    const d = bar as MarketRollupDelta;
    d.tokenId = tr.tokenId;
    d.market = tr.market;
    d.qo = d.qh = d.ql = d.qc = q;
    d.qv = tr.quoteAmount;
    return d;
  },
  // The quote bar opens and closes with the USD bar: the same trade, by the same trade order.
  add(d, tr, opened, closed) {
    const q = nativePrice(tr.amount, tr.quoteAmount);
    if (opened) d.qo = q;
    if (closed) d.qc = q;
    if (q > d.qh) d.qh = q;
    if (q < d.ql) d.ql = q;
    d.qv += tr.quoteAmount;
  },
};

/** Folds new trades into one delta per (token, market, rollup width, bucket). */
export const marketRollupDeltas = (trades: Iterable<TradeForMarketRollup>): MarketRollupDelta[] => foldRollups(trades, marketRollup);

/**
 * A market's last price in a currency from its newest rollup's closes (`c` in USD, `qc` in its
 * quote token), or null when it has no rollup: the rule of lastPrice on every engine.
 */
export const priceIn = (currency: 'usd' | 'native', close: { c: number; qc: number } | undefined): number | null =>
  close === undefined ? null : currency === 'usd' ? close.c : close.qc;
