/**
 * The computed answers behind /v1/market/*, /v1/search and /v1/prices (docs/api.md, Discovery and
 * Search). Trending, gainers and losers read the window boards (window-board.ts), which keep
 * every traded token's figures current; search reads the search index and the 24 h board. Both
 * answer for the second the board was brought to. New and prices read a bounded set of tokens.
 */
import type { CacheStamp, ResponseCache } from './response-cache.js';
import type { TokenViews } from './token-views.js';
import type { StoreHandle } from '../store/port/handle.js';
import type { MatchKind, Repos } from '../store/port/repos.js';
import { DISCOVERY_WINDOWS } from '../domain/windows.js';
import { discoveryItem, topWithLiquidity, type DiscoveryItem } from '../domain/discovery.js';
import { addressFields, chainKeyRange, keyChain, parseChainAddress, showsChains, storeKey, type Chains } from '../domain/chains.js';
import type { ChainCounts, ChainKeys } from '../store/port/tokens.js';
import { createWindowBoard, type BoardKind, type BoardView, type WindowBoard } from './window-board.js';
import { SEARCH_PAGE, searchTokens } from './search-views.js';
import { pauseForReads } from './pause-for-reads.js';

export type DiscoveryKind = BoardKind;

/** Longest discovery list and search answer. */
export const MAX_DISCOVERY = 100;
const TIMED_TTL = 3;

export type { DiscoveryItem } from '../domain/discovery.js';

/** The repos discovery reads (src/store/port/repos.ts). */
export type DiscoveryRepos = Pick<Repos, 'tokens' | 'discovery' | 'searchIndex' | 'window' | 'tokenChanges'>;

/** A token of a list as a deployment of several chains shows it: `chain` after its plain address (docs/chains.md, Answers). */
export type ChainItem = DiscoveryItem & { chain?: string };

/**
 * The store keys a search's text names exactly (docs/chains.md): `chain:address` one key; a plain
 * address the same address on every chain of the deployment; anything else none.
 */
export function exactKeys(q: string, chains: Chains): string[] {
  const ref = parseChainAddress(q, chains);
  if ('error' in ref) return [];
  if (q.includes(':')) return [storeKey(ref, chains)];
  return chains.list.map((chain) => storeKey({ chain, address: ref.address }, chains));
}

export function createDiscoveryViews(store: StoreHandle, repos: DiscoveryRepos, views: TokenViews, cache: ResponseCache, chains: Chains) {
  const { tokens, discovery: repo, searchIndex: index } = repos;
  const shown = showsChains(chains);
  /** A list's item with its chain, when the deployment shows chains; the item itself otherwise (one chain: as before chains). */
  const onChain = (item: DiscoveryItem): ChainItem => {
    if (!shown) return item;
    const { rank, address, ...rest } = item;
    return { rank, ...addressFields(address, chains), ...rest };
  };
  /** Whether a store key is on `chain` (undefined: every chain). */
  const inChain = (chain: string | undefined) => (chain === undefined ? undefined : (key: string) => keyChain(key, chains) === chain);
  /** The keys of `chain` for the store's reads. */
  const keysOf = (chain: string): ChainKeys => chainKeyRange(chain, chains) ?? 'plain';
  const boards = Object.fromEntries(DISCOVERY_WINDOWS.map((w) => [w, createWindowBoard(store, repos, w)])) as Record<
    (typeof DISCOVERY_WINDOWS)[number],
    WindowBoard
  >;

  /** The top `limit` of a ranking with at least `minLiquidityUsd`, exact for the second the board is at. */
  async function ranked(
    kind: DiscoveryKind,
    window: (typeof DISCOVERY_WINDOWS)[number],
    minLiquidityUsd: number,
    limit: number,
    clockNow: () => number,
    chain?: string,
  ): Promise<ChainItem[]> {
    const board = boards[window];
    await board.refresh(clockNow);
    return topWithLiquidity(only(board.ranking(kind), chain), minLiquidityUsd, limit).map(onChain);
  }

  /** A board's ranking, of one chain's tokens when `chain` is given (the boards hold every chain's). */
  function only<E extends { t: { address: string } }>(ranking: Iterable<E>, chain: string | undefined): Iterable<E> {
    const keep = inChain(chain);
    if (keep === undefined) return ranking;
    return (function* () {
      for (const e of ranking) if (keep(e.t.address)) yield e;
    })();
  }

  /**
   * `ranked` as a prepared answer (serialised, tagged and compressed once, src/read/prepared-json.ts)
   * under the board's version: requests between two steps of the board share one answer instead
   * of each serialising, hashing and compressing its own (docs/operations.md, Benchmark). The
   * stamp is taken before the board is brought forward, so an answer made across a change is
   * stored where no later read looks.
   */
  async function rankedJson<W extends (typeof DISCOVERY_WINDOWS)[number]>(
    kind: DiscoveryKind,
    window: W,
    minLiquidityUsd: number,
    limit: number,
    clockNow: () => number,
    chain?: string,
  ) {
    const stamp = cache.stamp('tokens');
    const board = boards[window];
    await board.refresh(clockNow);
    // The version and the ranking are read in one synchronous step, so they belong together.
    const version = board.version();
    const answer = () => ({ window, tokens: topWithLiquidity(only(board.ranking(kind), chain), minLiquidityUsd, limit).map(onChain) });
    // The chain filter is part of the key: one chain's answer is never another's (or every chain's).
    return cache.json(stamp, `ranked|${kind}|${window}|${minLiquidityUsd}|${limit}|${version}|${chain ?? ''}`, () => Promise.resolve(answer()), TIMED_TTL);
  }

  /** The newest tokens by createdAt; their figures are those of the last 24 h. */
  async function newest(limit: number, now: number, chain?: string): Promise<ChainItem[]> {
    const all = await cache.through(
      'tokens',
      `new:${now}${chain === undefined ? '' : `:${chain}`}`,
      async () => {
        const list = await (chain === undefined ? repo.newest(MAX_DISCOVERY) : repo.newest(MAX_DISCOVERY, keysOf(chain)));
        const figures = await Promise.all(list.map((t) => views.figures(t, '24h', now)));
        return list.map((t, i) => onChain(discoveryItem(i + 1, t, figures[i]!)));
      },
      TIMED_TTL,
    );
    return all.slice(0, limit);
  }

  type SearchResult = {
    address: string;
    chain?: string;
    symbol: string;
    name: string;
    priceUsd: number | null;
    liquidityUsd: number;
    volume24hUsd: number;
    matchedBy: MatchKind;
  };

  /**
   * Tokens matching `q`, of one chain when `chain` is given. A plain address matches it on every
   * chain, `chain:address` on that chain (docs/chains.md). The answer is prepared (serialised,
   * tagged and compressed once) per second, text, chain and limit, until any token changes:
   * repeated searches share one answer instead of each serialising, hashing and compressing its
   * own (docs/operations.md, Benchmark, issue 33). The stamp is taken before the board is brought
   * forward, so an answer made across a change is stored where no later read looks.
   */
  async function searchJson(q: string, limit: number, clockNow: () => number, chain?: string) {
    const stamp = cache.stamp('tokens');
    const board = boards['24h'];
    const now = await board.refresh(clockNow);
    const view = board.view();
    return cache.json(
      stamp,
      `search|${now}|${chain ?? ''}|${limit}|${q}`,
      async () => ({ results: await searchAt(stamp, view, now, q, limit, chain) }),
      TIMED_TTL,
    );
  }

  /** The search's results on the 24 h board `view`, exact for `now`, cached under `scope`. */
  async function searchAt(scope: CacheStamp, view: BoardView, now: number, q: string, limit: number, chain?: string): Promise<SearchResult[]> {
    const all = await cache.through(
      scope,
      // A chain name holds no colon, so the key cannot be read two ways.
      `search:${now}:${chain ?? ''}:${q}`,
      async () => {
        const hits = await searchTokens(index, view, q, exactKeys(q, chains), MAX_DISCOVERY, SEARCH_PAGE, () => pauseForReads(store), inChain(chain));
        // Tokens off the board (no 24 h volume) are read together, not one await each.
        const off = await Promise.all(hits.map((hit) => (view.get(hit.id) === undefined ? repo.summary(hit.id) : undefined)));
        return hits.flatMap((hit, i) => {
          const t = view.get(hit.id)?.t ?? off[i];
          if (t === undefined) return [];
          return [
            {
              ...addressFields(t.address, chains),
              symbol: t.symbol,
              name: t.name,
              priceUsd: t.priceUsd,
              liquidityUsd: t.liquidityUsd,
              volume24hUsd: hit.volume24hUsd,
              matchedBy: hit.matchedBy,
            },
          ];
        });
      },
      TIMED_TTL,
    );
    return all.slice(0, limit);
  }

  type Price = { priceUsd: number | null; priceChangePct24h: number | null; updatedAt: number | null; chain?: string } | null;

  /**
   * Prices keyed by each address as asked; an unknown token is null. `updatedAt` is the time of
   * the trade that set the price (null before any trade), not of the last ingest: a quiet token's
   * price is as old as its last trade. docs/api.md, Discovery.
   */
  async function prices(asked: readonly { asked: string; address: string }[], now: number): Promise<Record<string, Price>> {
    const rows = await Promise.all(
      asked.map(async ({ address }): Promise<Price> => {
        const t = await tokens.byAddress(address);
        if (t === undefined) return null;
        const price = { priceUsd: t.priceUsd, priceChangePct24h: (await views.figures(t, '24h', now)).priceChangePct, updatedAt: t.lastTradeAt };
        return shown ? { ...price, chain: keyChain(address, chains) } : price;
      }),
    );
    const out: Record<string, Price> = {};
    asked.forEach(({ asked: key }, i) => (out[key] = rows[i] ?? null));
    return out;
  }

  /**
   * GET /v1/chains' counts, in the deployment's order: each chain's tokens, markets, trades and
   * newest trade. Counted once per change of the store's tokens (the response cache).
   */
  const chainCounts = (): Promise<(ChainCounts & { chain: string })[]> =>
    cache.through('tokens', 'chain-counts', () => Promise.all(chains.list.map(async (chain) => ({ chain, ...(await repo.chainCounts(keysOf(chain))) }))));

  return { ranked, rankedJson, newest, searchJson, prices, chainCounts };
}

export type DiscoveryViews = ReturnType<typeof createDiscoveryViews>;
