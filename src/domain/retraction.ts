/**
 * What a retraction must recompute (docs/indexer.md, Reorgs: what a retraction removes): from the
 * trades it removes, the few rollup buckets, wallets and markets whose stored figures held them.
 * Pure: the store recomputes exactly these from the trades that remain, never a token's whole
 * history (a reorg removes a few blocks, so a few seconds of each token's trades).
 */
import { ROLLUP_SECONDS } from './resolution.js';

/** What the plan needs of a removed trade. */
export type RemovedForPlan = { tokenId: number; blockTime: number; wallet: string; market: string };

/** One bucket of one width of a token (and, for per-market rollups, of one of its markets). */
export type Bucket = { tokenId: number; res: number; t: number };
export type MarketBucket = Bucket & { market: string };

/** Bucket widths of market_rollups (src/store/sqlite/read-views-repo.ts MARKET_ROLLUP_SECONDS), finest first. */
export const MARKET_ROLLUP_WIDTHS = [60, 3600] as const;

export type RetractPlan = {
  /** Token candle buckets, finest width first: each width is folded from the one before it. */
  candles: Bucket[];
  /** Per-market candle buckets, finest width first. */
  marketCandles: MarketBucket[];
  /** Per-market volume rollups, finest width first. */
  marketRollups: MarketBucket[];
  /** (token, wallet) pairs whose newest trade time may have changed. */
  wallets: { tokenId: number; wallet: string }[];
  /** (token, market) pairs whose last trade may have changed. */
  markets: { tokenId: number; market: string }[];
  /** Tokens whose last trade (price, time) may have changed. */
  tokens: number[];
};

const bucketOf = (t: number, res: number): number => Math.floor(t / res) * res;

/**
 * The buckets and keys the removed trades touched, each once, in an order the store can
 * recompute them in: widths ascending, so a wider bucket folds finer ones already recomputed.
 * Tokens in `skip` (deleted whole) are left out.
 */
export function retractPlan(trades: readonly RemovedForPlan[], skip: ReadonlySet<number> = new Set()): RetractPlan {
  const candles = new Map<string, Bucket>();
  const marketCandles = new Map<string, MarketBucket>();
  const marketRollups = new Map<string, MarketBucket>();
  const wallets = new Map<string, { tokenId: number; wallet: string }>();
  const markets = new Map<string, { tokenId: number; market: string }>();
  const tokens = new Set<number>();
  for (const tr of trades) {
    if (skip.has(tr.tokenId)) continue;
    tokens.add(tr.tokenId);
    wallets.set(`${tr.tokenId} ${tr.wallet}`, { tokenId: tr.tokenId, wallet: tr.wallet });
    markets.set(`${tr.tokenId} ${tr.market}`, { tokenId: tr.tokenId, market: tr.market });
    for (const res of ROLLUP_SECONDS) {
      const t = bucketOf(tr.blockTime, res);
      candles.set(`${res} ${tr.tokenId} ${t}`, { tokenId: tr.tokenId, res, t });
      marketCandles.set(`${res} ${tr.tokenId} ${t} ${tr.market}`, { tokenId: tr.tokenId, res, t, market: tr.market });
    }
    for (const res of MARKET_ROLLUP_WIDTHS) {
      const t = bucketOf(tr.blockTime, res);
      marketRollups.set(`${res} ${tr.tokenId} ${t} ${tr.market}`, { tokenId: tr.tokenId, res, t, market: tr.market });
    }
  }
  const byWidth = <B extends Bucket>(m: Map<string, B>): B[] => [...m.values()].sort((a, b) => a.res - b.res || a.tokenId - b.tokenId || a.t - b.t);
  return {
    candles: byWidth(candles),
    marketCandles: byWidth(marketCandles),
    marketRollups: byWidth(marketRollups),
    wallets: [...wallets.values()],
    markets: [...markets.values()],
    tokens: [...tokens],
  };
}

/** The width a bucket of `res` is folded from (the next finer stored width), or null for the finest (from trades). */
export function finerWidth(widths: readonly number[], res: number): number | null {
  const i = widths.indexOf(res);
  if (i < 0) throw new RangeError(`${res} is not a stored width`);
  return i === 0 ? null : widths[i - 1]!;
}
