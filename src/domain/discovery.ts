/**
 * The rules of discovery and search (docs/api.md, Discovery and Search): which tokens a ranking
 * holds and in what order, what a list item shows, and how a token matches a search query. The
 * window boards and the search walk (src/http/v1/) apply them to what the store reads.
 */
import { product, type WindowFigures } from './windows.js';

/** What the rules need of a token (the store's discovery summary adds its id and last trade time). */
export type TokenSummaryLike = {
  address: string;
  symbol: string;
  name: string;
  priceUsd: number | null;
  circulatingSupply: number | null;
  createdAt: number;
  /** Sum over the token's markets (0 without markets). */
  liquidityUsd: number;
};

/** A token with its figures over a window. */
export type Ranked = { t: TokenSummaryLike; f: WindowFigures };
export type RankingKind = 'trending' | 'gainers' | 'losers';

/** Tokens need this many trades in the window to be gainers or losers. */
export const MIN_MOVER_TRADES = 10;

/** Address order, the tie-break of every ranking (addresses are unique, so orders are total). */
export const byAddress = (a: { address: string }, b: { address: string }): number => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0);

const moved = (e: Ranked) => e.f.trades >= MIN_MOVER_TRADES && e.f.priceChangePct !== null;

/**
 * Which tokens a ranking holds, and its order (best first, ties by address): trending by volume
 * (tokens without volume left out); gainers and losers by price change among tokens with at
 * least MIN_MOVER_TRADES trades and a change.
 */
export const RANKINGS: Record<RankingKind, { holds: (e: Ranked) => boolean; order: (a: Ranked, b: Ranked) => number }> = {
  trending: { holds: (e) => e.f.volumeUsd > 0, order: (a, b) => b.f.volumeUsd - a.f.volumeUsd || byAddress(a.t, b.t) },
  gainers: { holds: moved, order: (a, b) => b.f.priceChangePct! - a.f.priceChangePct! || byAddress(a.t, b.t) },
  losers: { holds: moved, order: (a, b) => a.f.priceChangePct! - b.f.priceChangePct! || byAddress(a.t, b.t) },
};

/** Inserts `e` into `list`, which is sorted by `order`, at its place (binary search). */
export function insertSorted<T>(list: T[], e: T, order: (a: T, b: T) => number): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (order(list[mid]!, e) < 0) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, e);
}

/** An item of a discovery list (the shape of docs/api.md, Discovery). */
export type DiscoveryItem = {
  rank: number;
  address: string;
  symbol: string;
  name: string;
  priceUsd: number | null;
  priceChangePct: number | null;
  volumeUsd: number;
  trades: number;
  liquidityUsd: number;
  marketCapUsd: number | null;
  createdAt: number;
};

/** The list item of a token at `rank`; market cap is price x circulating supply. */
export function discoveryItem(rank: number, t: TokenSummaryLike, f: Pick<WindowFigures, 'priceChangePct' | 'volumeUsd' | 'trades'>): DiscoveryItem {
  return {
    rank,
    address: t.address,
    symbol: t.symbol,
    name: t.name,
    priceUsd: t.priceUsd,
    priceChangePct: f.priceChangePct,
    volumeUsd: f.volumeUsd,
    trades: f.trades,
    liquidityUsd: t.liquidityUsd,
    marketCapUsd: product(t.priceUsd, t.circulatingSupply),
    createdAt: t.createdAt,
  };
}

/** The first `limit` of a ranking (best first) with at least `minLiquidityUsd`, ranked from 1. */
export function topWithLiquidity(ranking: Iterable<Ranked>, minLiquidityUsd: number, limit: number): DiscoveryItem[] {
  const out: DiscoveryItem[] = [];
  for (const e of ranking) {
    if (out.length >= limit) break;
    if (e.t.liquidityUsd >= minLiquidityUsd) out.push(discoveryItem(out.length + 1, e.t, e.f));
  }
  return out;
}

/**
 * How a token matches a search query, as an index into the match kinds in search order: 0 exact
 * address, 1 exact symbol, 2 symbol prefix, 3 name contains; -1 no match. `sym` and `name` are
 * folded like `q` (the search index's folding); `address` is the query read as an address, or null.
 */
export function matchKind(x: { address: string; sym: string; name: string }, q: string, address: string | null): number {
  return x.address === address ? 0 : x.sym === q ? 1 : x.sym.startsWith(q) ? 2 : x.name.includes(q) ? 3 : -1;
}
