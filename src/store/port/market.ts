/**
 * The port's market-data area (docs/architecture.md, The store port): candle rollups of tokens
 * and of markets, window statistics, and a token's ranked lists (markets, holders, wallets), as
 * every engine answers them. Repos are written in their synchronous shape; callers see them as
 * `Async<R>` (src/store/port/repos.ts).
 */
import type { Bar, RollupDelta } from '../../domain/candles.js';
import type { BarQuery } from '../../domain/history-range.js';
import type { MarketRollupDelta } from '../../domain/market-candles.js';
import type { Resolution } from '../../domain/resolution.js';
import type { WindowStats } from '../../domain/window-cover.js';

export type { BarQuery, WindowStats };

export type CandlesRepo = {
  /** Merges deltas into the stored rollups (call inside the ingest transaction). */
  applyDeltas(deltas: Iterable<RollupDelta>): void;
  /**
   * Bars ascending, each t in the query's window, at most MAX_BARS (the newest kept). `stats`,
   * when given, receives the number of rollup rows read.
   */
  readBars(tokenId: number, res: Resolution, q: BarQuery, stats?: { rows: number }): Bar[];
  /** The start of the newest bar before `before`, or null when there is none. */
  newestBarBefore(tokenId: number, res: Resolution, before: number): number | null;
};

export type Currency = 'usd' | 'native';

export type MarketCandlesRepo = {
  /** Merges deltas into the stored rollups (call inside the ingest transaction). */
  applyDeltas(deltas: Iterable<MarketRollupDelta>): void;
  /** Bars of one market of a token, ascending, by the rules of CandlesRepo readBars. */
  readBars(tokenId: number, market: string, currency: Currency, res: Resolution, q: BarQuery, stats?: { rows: number }): Bar[];
  /** The market's last trade price in that currency (the close of its newest day), or null without trades. */
  lastPrice(tokenId: number, market: string, currency: Currency): number | null;
  /** The id of the token a market (by address) belongs to, or null for an unknown market. */
  marketToken(market: string): number | null;
  /** The start of the market's newest bar before `before`, or null when there is none. */
  newestBarBefore(tokenId: number, market: string, res: Resolution, before: number): number | null;
};

export type WindowRepo = {
  between: (tokenId: number, from: number, to: number, lastTradeAt: number | null) => WindowStats;
  /** Statistics of the window (now - seconds, now] of a token whose newest trade is at `lastTradeAt`. */
  window: (tokenId: number, now: number, seconds: number, lastTradeAt: number | null) => WindowStats;
  /** The price of the last trade at or before `t` (the base price of a window), or null. */
  priceAt: (tokenId: number, t: number) => number | null;
};

export type HolderRow = { owner: string; amount: number };

export type MarketRow = {
  address: string;
  dex: string;
  quoteAddress: string;
  quoteSymbol: string;
  liquidityUsd: number;
  createdAt: number;
};

export type MarketStats = { volumeUsd: number; trades: number };

export type RankingRepo = {
  /**
   * Wallets that traded in (now - seconds, now]. From each wallet's last trade time, which is
   * exact unless the token has trades after `now` (`lastTradeAt`); then counted from the trades.
   */
  uniqueWallets(tokenId: number, now: number, seconds: number, lastTradeAt: number | null): number;
  /**
   * Volume and trade count per market address in (now - seconds, now]; `lastTradeAt` is the
   * token's newest trade time (a window past it reads no raw edge).
   */
  marketStats(tokenId: number, now: number, seconds: number, lastTradeAt: number | null): Map<string, MarketStats>;
  /** The last trade's price in each market address of the token (trade order). */
  marketPrices(tokenId: number): Map<string, number>;
  /** The token's markets, most liquid first, ties by address. */
  markets: (tokenId: number, limit: number) => MarketRow[];
  /** How many markets the token has, and their summed liquidity. */
  marketSummary(tokenId: number): { count: number; liquidityUsd: number };
  /** The largest holders, ties by owner. */
  holders: (tokenId: number, limit: number) => HolderRow[];
  holderCount: (tokenId: number) => number;
};
