/**
 * The computed answers behind /v1/token/* (docs/api.md, Token reads): window figures, the overview
 * and the ranked lists, each read from the rollups and cached per token (src/read/response-cache.ts),
 * except top traders, read off a per-token board (trader-board.ts).
 * Lists are computed once at their largest size and sliced per request, so `limit` does not
 * multiply cache entries. Window answers are keyed by the current second: exact for it.
 */
import type { Config } from '../config.js';
import type { StoreHandle } from '../store/port/handle.js';
import type { Repos, TokenRow } from '../store/port/repos.js';
import type { Clock } from '../domain/clock.js';
import type { ResponseCache } from './response-cache.js';
import { figuresOf, type TraderSort } from '../domain/trader-tally.js';
import { nowSeconds } from '../domain/clock.js';
import { addressFields, keyAddress, keyChain } from '../domain/chains.js';
import { createTraderBoards } from './trader-board.js';
import { PreparedJson } from './prepared-json.js';
import { NO_TRADES, OVERVIEW_WINDOWS, WINDOW_SECONDS, product, windowFigures, type WindowFigures, type WindowKey } from '../domain/windows.js';

/** The most items a ranked list can hold. */
export const MAX_LIST = 1000;
/** Seconds an answer keyed by the current second may stay in memory. */
const TIMED_TTL = 3;

export type { WindowFigures } from '../domain/windows.js';

/** What window figures need of a token: its id, current price and last trade time. */
export type TokenRef = { id: number; priceUsd: number | null; lastTradeAt: number | null };

/** The repos the token views read (src/store/port/repos.ts). */
export type TokenViewsDeps = {
  config: Config;
  store: StoreHandle;
  clock: Clock;
  cache: ResponseCache;
  repos: Pick<Repos, 'window' | 'ranking' | 'traderBoard'>;
};

export function createTokenViews(deps: TokenViewsDeps) {
  const { cache } = deps;
  const chains = deps.config.chains;
  const { window: windows, ranking } = deps.repos;
  const traderBoards = createTraderBoards(deps.store, deps.repos.traderBoard);

  /** Figures of the window (now - w, now]; the change compares the last price with the base price at now - w. */
  function figures(token: TokenRef, window: WindowKey, now: number): Promise<WindowFigures> {
    const seconds = WINDOW_SECONDS[window];
    return cache.through(
      { token: token.id },
      `win:${window}:${now}`,
      async () => {
        if (token.lastTradeAt === null) return { ...NO_TRADES };
        const [w, base] = await Promise.all([windows.window(token.id, now, seconds, token.lastTradeAt), windows.priceAt(token.id, now - seconds)]);
        return windowFigures(w, token.priceUsd, base);
      },
      TIMED_TTL,
    );
  }

  /** Holders do not depend on the clock: counted once per change of the token. */
  const holderCount = (tokenId: number): Promise<number> => cache.through({ token: tokenId }, 'holder-count', () => ranking.holderCount(tokenId));

  function overview(token: TokenRow, now: number) {
    return cache.through(
      { token: token.id },
      `overview:${now}`,
      async () => {
        // The reads of one answer go out together (one round trip's wait on PostgreSQL, not nine).
        const [markets, holders, ...perWindow] = await Promise.all([
          ranking.marketSummary(token.id),
          holderCount(token.id),
          ...OVERVIEW_WINDOWS.map(async (key) => ({
            ...(await figures(token, key, now)),
            uniqueWallets: await ranking.uniqueWallets(token.id, now, WINDOW_SECONDS[key], token.lastTradeAt),
          })),
        ]);
        // Filled below for every key, so typed as the full record the response schema wants.
        const w = {} as Record<(typeof OVERVIEW_WINDOWS)[number], WindowFigures & { uniqueWallets: number }>;
        OVERVIEW_WINDOWS.forEach((key, i) => (w[key] = perWindow[i]!));
        return {
          // The token's own chain, shown on every deployment (docs/chains.md, Answers).
          address: keyAddress(token.address),
          chain: keyChain(token.address, chains),
          symbol: token.symbol,
          name: token.name,
          decimals: token.decimals,
          logoUri: token.logoUri,
          createdAt: token.createdAt,
          priceUsd: token.priceUsd,
          liquidityUsd: markets.liquidityUsd,
          marketCapUsd: product(token.priceUsd, token.circulatingSupply),
          fdvUsd: product(token.priceUsd, token.totalSupply),
          totalSupply: token.totalSupply,
          circulatingSupply: token.circulatingSupply,
          holders,
          markets: markets.count,
          lastTradeAt: token.lastTradeAt,
          updatedAt: token.updatedAt,
          windows: w,
        };
      },
      TIMED_TTL,
    );
  }

  /**
   * Top traders from the token's board (trader-board.ts): brought forward to the current second
   * by the trades that moved, then the first `limit` rows read off its ranking, so a request
   * never passes over the window's wallets. Not cached: the board is the cache.
   */
  async function topTraders(token: TokenRef & { address: string }, window: WindowKey, sort: TraderSort, limit: number) {
    const board = traderBoards.get(token.id, token.address, WINDOW_SECONDS[window]);
    await board.refresh(() => nowSeconds(deps.clock));
    return board.top(sort, limit).map((t, i) => ({ rank: i + 1, ...figuresOf(t) }));
  }

  /**
   * Top traders as a prepared answer (serialised, tagged and compressed once, src/read/prepared-json.ts):
   * cached under the board's version, so requests between two changes of the board share one
   * answer instead of each serialising, hashing and compressing its own (docs/operations.md,
   * Benchmark: the profile of issue 33). The stamp is taken before the board is brought forward:
   * an answer made across a change of the token is stored where no later read looks.
   */
  async function topTradersJson<W extends WindowKey>(token: TokenRef & { address: string }, window: W, sort: TraderSort, limit: number) {
    const stamp = cache.stamp({ token: token.id });
    const board = traderBoards.get(token.id, token.address, WINDOW_SECONDS[window]);
    await board.refresh(() => nowSeconds(deps.clock));
    // The version and the rows are read in one synchronous step, so they belong together.
    const version = board.version();
    const answer = () => ({ window, traders: board.top(sort, limit).map((t, i) => ({ rank: i + 1, ...figuresOf(t) })) });
    if (version === null) return new PreparedJson(answer());
    return cache.json(stamp, `top-traders|${window}|${sort}|${limit}|${version}`, () => Promise.resolve(answer()), TIMED_TTL);
  }

  /** The overview as a prepared answer, cached as the overview is (per token change and second). */
  const overviewJson = (token: TokenRow, now: number) => cache.json({ token: token.id }, `overview:${now}`, () => overview(token, now), TIMED_TTL);

  /** Holders as a prepared answer per `limit`, cached until the token changes. */
  const holdersJson = (token: TokenRow, limit: number) => cache.json({ token: token.id }, `holders|${limit}`, () => holders(token, limit));

  async function holders(token: TokenRow, limit: number) {
    const size = cache.enabled ? MAX_LIST : limit;
    const all = await cache.through({ token: token.id }, 'holders', async () => {
      const supply = token.totalSupply !== null && token.totalSupply > 0 ? token.totalSupply : null;
      const [totalHolders, list] = await Promise.all([holderCount(token.id), ranking.holders(token.id, size)]);
      return {
        totalHolders,
        holders: list.map((h, i) => ({
          rank: i + 1,
          owner: h.owner,
          amount: h.amount,
          percent: supply === null ? null : (h.amount / supply) * 100,
          // At the token's last price (null without trades); a trade drops this cached answer.
          valueUsd: token.priceUsd === null ? null : h.amount * token.priceUsd,
        })),
      };
    });
    return all.holders.length > limit ? { totalHolders: all.totalHolders, holders: all.holders.slice(0, limit) } : all;
  }

  async function markets(token: TokenRef, limit: number, now: number) {
    const size = cache.enabled ? MAX_LIST : limit;
    const all = await cache.through(
      { token: token.id },
      `markets:${now}`,
      async () => {
        const [stats, prices, list] = await Promise.all([
          ranking.marketStats(token.id, now, WINDOW_SECONDS['24h'], token.lastTradeAt),
          ranking.marketPrices(token.id),
          ranking.markets(token.id, size),
        ]);
        return list.map((m) => ({
          ...addressFields(m.address, chains),
          dex: m.dex,
          quoteAddress: m.quoteAddress,
          quoteSymbol: m.quoteSymbol,
          priceUsd: prices.get(m.address) ?? null,
          liquidityUsd: m.liquidityUsd,
          volume24hUsd: stats.get(m.address)?.volumeUsd ?? 0,
          trades24h: stats.get(m.address)?.trades ?? 0,
          createdAt: m.createdAt,
        }));
      },
      TIMED_TTL,
    );
    return all.length > limit ? all.slice(0, limit) : all;
  }

  /**
   * Markets as a prepared answer per `limit`, cached as the list is (per token change and second):
   * requests in between share one serialised, tagged and compressed answer (docs/operations.md,
   * Benchmark, issue 33).
   */
  const marketsJson = (token: TokenRef, limit: number, now: number) =>
    cache.json({ token: token.id }, `markets|${now}|${limit}`, async () => ({ markets: await markets(token, limit, now) }), TIMED_TTL);

  return { figures, overview, overviewJson, topTraders, topTradersJson, holders, holdersJson, marketsJson };
}

export type TokenViews = ReturnType<typeof createTokenViews>;
