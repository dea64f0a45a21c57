/**
 * The port's trades area (docs/architecture.md, The store port): a token's trades in pages, the
 * live stream's reads and the top-traders board's reads, as every engine answers them, and the
 * one mapping from a stored trade to its JSON form T (docs/api.md, Token reads), shared with the
 * webhook events and the stream. Repos are written in their synchronous shape; callers see them
 * as `Async<R>` (src/store/port/repos.ts).
 */

// A trade's JSON form T and its mapping are engine-free rules (src/domain/trade-json.ts).
import type { TradeJson, TradeRowLike } from '../../domain/trade-json.js';
export { toTradeJson, type TradeJson, type TradeRowLike } from '../../domain/trade-json.js';

/** A trade's price and where it stands in trade order: the answer of GET /v1/prices/at. */
export type PricePoint = { priceUsd: number; blockTime: number; tradeId: number };

/**
 * Which trades a page may return: a side, a wallet, and a time range `after <= blockTime < before`
 * (null: unbounded).
 */
export type TradeFilter = { side: 'buy' | 'sell' | null; wallet: string | null; after?: number | null; before?: number | null };

/** A keyset position: only trades strictly before it in trade order are returned. */
export type TradePosition = { blockTime: number; id: number };

export type TradesRepo = {
  /** The highest trade id in the store (0 when there is none): the snapshot bound of a new walk. */
  maxId: () => number;
  /**
   * Up to `limit` trades of the token matching `filter`, newest first, strictly before `after`
   * (from the newest when null) and with id <= `bound`.
   */
  page(tokenId: number, filter: TradeFilter, after: TradePosition | null, bound: number, limit: number): TradeRowLike[];
  /** The last trade of the token at or before `time` in trade order (one index seek), or null. */
  lastAtOrBefore: (tokenId: number, time: number) => PricePoint | null;
  /** The dex of the market with this address, or null when the market is unknown. */
  dexOf: (market: string) => string | null;
};

/** The reads of the live stream (docs/api.md, Live stream). */
export type StreamRepo = {
  /** Trades of the token with afterId < id <= upTo, ascending by id, at most `limit`. */
  tradesAfter(tokenId: number, afterId: number, upTo: number, limit: number): TradeJson[];
  /**
   * The ends of the transactions that end at or after trade `from` and before trade `to`: the
   * trades from..to split after each (ends pruned away, or of trades written before migration
   * 012, are not known: those trades read as one transaction).
   */
  commitEnds: (from: number, to: number) => number[];
  /** The highest trade id of the token (0 when it has none). */
  maxTradeId: (tokenId: number) => number;
};

/** One trade as the board reads it: [id, blockTime, wallet, isBuy (1 or 0), volumeUsd]. */
export type BoardTrade = [number, number, string, number, number];
/** A removed trade of the removal log (migration 017): [seq, ...the trade as the board read it]. */
export type RemovedBoardTrade = [number, number, number, string, number, number];

/** The reads behind the top-traders board (src/read/trader-board.ts). */
export type TraderBoardRepo = {
  /** The newest trade id the store ever handed out (0 when none). */
  maxId: () => number;
  /** The newest entry of the removal log (0 when it is empty). */
  lastRemovalSeq: () => number;
  /** Up to `limit` trades of the token removed after the removal log entry `afterSeq`, in log order. */
  removedAfter: (tokenId: number, afterSeq: number, limit: number) => RemovedBoardTrade[];
  /**
   * Up to `limit` trades of the token with blockTime in (from, to] and id <= maxId, in trade
   * order, after the position (afterTime, afterId); start with (from, +Infinity).
   */
  pageByTime: (tokenId: number, afterTime: number, afterId: number, to: number, maxId: number, limit: number) => BoardTrade[];
  /** Up to `limit` trades of the token with afterId < id <= maxId, by id. */
  pageById: (tokenId: number, afterId: number, maxId: number, limit: number) => BoardTrade[];
  /** The query plans, for the test that pins each page to an index range. */
  plans: () => string[];
};
