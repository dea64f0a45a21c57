/**
 * The computed answers behind /v1/market/*, /v1/search and /v1/prices (DESIGN.md section 6).
 * Window figures come from the per-token cache of TokenViews; whole lists are cached for any-token
 * scope (dropped when any token changes) and keyed by the current second.
 */
import type { ResponseCache } from '../response-cache.js';
import type { TokenViews, WindowFigures } from './token-views.js';
import { createDiscoveryRepo, MATCH_KINDS, type MatchKind, type TokenSummary } from '../../store/discovery-repo.js';
import type { TokensRepo } from '../../store/tokens-repo.js';
import type { Db } from '../../store/db.js';
import { WINDOW_SECONDS, product, type WindowKey } from '../../domain/windows.js';
import { normalizeAddress } from '../../domain/address.js';

export type DiscoveryKind = 'trending' | 'gainers' | 'losers';

/** Longest discovery list and search answer. */
export const MAX_DISCOVERY = 100;
/** Tokens need this many trades in the window to be gainers or losers. */
export const MIN_MOVER_TRADES = 10;
const TIMED_TTL = 3;

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

const byAddress = (a: { address: string }, b: { address: string }) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0);

function item(rank: number, t: TokenSummary, f: WindowFigures): DiscoveryItem {
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

export function createDiscoveryViews(db: Db, tokens: TokensRepo, views: TokenViews, cache: ResponseCache) {
  const repo = createDiscoveryRepo(db);

  /** Whether the token can have trades in (now - w, now]: its last trade is after now - w. */
  const tradedIn = (t: { lastTradeAt: number | null }, window: WindowKey, now: number) =>
    t.lastTradeAt !== null && t.lastTradeAt > now - WINDOW_SECONDS[window];

  function ranked(kind: DiscoveryKind, window: WindowKey, minLiquidityUsd: number, limit: number, now: number): DiscoveryItem[] {
    const all = cache.through(
      'tokens',
      `${kind}:${window}:${minLiquidityUsd}:${now}`,
      () => {
        // Only tokens traded after now - w can have volume or trades in the window.
        const rows = repo
          .tradedSince(now - WINDOW_SECONDS[window] + 1, minLiquidityUsd)
          .map((t) => ({ t, f: views.figures(t, window, now) }));
        let picked: typeof rows;
        if (kind === 'trending') {
          picked = rows.filter((r) => r.f.volumeUsd > 0).sort((a, b) => b.f.volumeUsd - a.f.volumeUsd || byAddress(a.t, b.t));
        } else {
          // gainers: largest change first; losers: smallest (most negative) first
          const dir = kind === 'gainers' ? 1 : -1;
          picked = rows
            .filter((r) => r.f.trades >= MIN_MOVER_TRADES && r.f.priceChangePct !== null)
            .sort((a, b) => dir * (b.f.priceChangePct! - a.f.priceChangePct!) || byAddress(a.t, b.t));
        }
        return picked.slice(0, MAX_DISCOVERY).map((r, i) => item(i + 1, r.t, r.f));
      },
      TIMED_TTL,
    );
    return all.slice(0, limit);
  }

  /** The newest tokens by createdAt; their figures are those of the last 24 h. */
  function newest(limit: number, now: number): DiscoveryItem[] {
    const all = cache.through(
      'tokens',
      `new:${now}`,
      () => repo.newest(MAX_DISCOVERY).map((t, i) => item(i + 1, t, views.figures(t, '24h', now))),
      TIMED_TTL,
    );
    return all.slice(0, limit);
  }

  type SearchResult = {
    address: string;
    symbol: string;
    name: string;
    priceUsd: number | null;
    liquidityUsd: number;
    volume24hUsd: number;
    matchedBy: MatchKind;
  };

  function search(q: string, limit: number, now: number): SearchResult[] {
    const all = cache.through(
      'tokens',
      `search:${now}:${q}`,
      () => {
        const matches = repo.search(q, normalizeAddress(q)).map((t) => ({
          t,
          rank: MATCH_KINDS.indexOf(t.matchedBy),
          volume: tradedIn(t, '24h', now) ? views.figures(t, '24h', now).volumeUsd : 0,
        }));
        matches.sort((a, b) => a.rank - b.rank || b.volume - a.volume || byAddress(a.t, b.t));
        return matches.slice(0, MAX_DISCOVERY).map(({ t, volume }) => ({
          address: t.address,
          symbol: t.symbol,
          name: t.name,
          priceUsd: t.priceUsd,
          liquidityUsd: t.liquidityUsd,
          volume24hUsd: volume,
          matchedBy: t.matchedBy,
        }));
      },
      TIMED_TTL,
    );
    return all.slice(0, limit);
  }

  type Price = { priceUsd: number | null; priceChangePct24h: number | null; updatedAt: number | null } | null;

  /**
   * Prices keyed by each address as asked; an unknown token is null. `updatedAt` is the time of
   * the trade that set the price (null before any trade), not of the last ingest: a quiet token's
   * price is as old as its last trade. README, Discovery.
   */
  function prices(asked: readonly { asked: string; address: string }[], now: number): Record<string, Price> {
    const out: Record<string, Price> = {};
    for (const { asked: key, address } of asked) {
      const t = tokens.byAddress(address);
      out[key] =
        t === undefined
          ? null
          : { priceUsd: t.priceUsd, priceChangePct24h: views.figures(t, '24h', now).priceChangePct, updatedAt: t.lastTradeAt };
    }
    return out;
  }

  return { ranked, newest, search, prices };
}

export type DiscoveryViews = ReturnType<typeof createDiscoveryViews>;
