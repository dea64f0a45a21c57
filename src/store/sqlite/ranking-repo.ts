/**
 * Ranked lists of one token (docs/api.md, Token reads) and the unique-wallet count of its windows,
 * read from the views of migration 003. A window is covered by the widest rollup buckets that
 * fit (windowSegments, as for window statistics) and raw trades for the sub-minute edges, so a
 * busy token costs a few buckets per market, not one row per trade. The rollups are keyed by
 * bucket first (migration 006), so each bucket is one index seek to the token's rows. (Top
 * traders read trader boards, src/read/trader-board.ts.)
 */
import type { Db } from './db.js';
import { coverBuckets, trailingWindow, walletCountSource, windowSegments, type Segment } from '../../domain/window-cover.js';
import { MARKET_ROLLUP_SECONDS } from './read-views-repo.js';
import type { TraderFigures } from '../../domain/trader-tally.js';
import type { HolderRow, MarketRow, MarketStats, RankingRepo } from '../port/market.js';

// The interface and row types are the port's (src/store/port/market.ts), named here too.
export type { HolderRow, MarketRow, MarketStats, RankingRepo } from '../port/market.js';

export type TraderSort = 'volume' | 'trades' | 'net';

/** A wallet's figures over a window, as top traders answers them (one shape with the trader board's). */
export type TraderRow = TraderFigures;

/** Raw-trade slots: a window's cover has at most two sub-minute edges. */
const RAW_SLOTS = 2;

/**
 * The named parameters for reading `segments` of `levels` and raw trades: for level i, `@l{i}` is
 * the JSON array of the bucket starts to read at that width (each read by one index seek on
 * (res, t, token_id), see migration 006); the raw edges are `@r{j}f` and `@r{j}t` (empty ranges
 * where a slot is unused).
 */
function coverParams(levels: readonly number[], segments: readonly Segment[]): Record<string, number | string> {
  const params: Record<string, number | string> = {};
  const { buckets, raw } = coverBuckets(levels, segments);
  if (raw.length > RAW_SLOTS) throw new Error('unexpected window cover: more than two raw edges');
  for (let j = 0; j < RAW_SLOTS; j++) [params[`r${j}f`], params[`r${j}t`]] = raw[j] ?? [0, 0];
  buckets.forEach((list, i) => (params[`l${i}`] = JSON.stringify(list)));
  return params;
}

/** UNION ALL of one branch per level (its bucket list) and one per raw slot. */
function coverUnion(levels: readonly number[], rollup: (res: number, list: string) => string, raw: (p: string) => string): string {
  const parts = levels.map((res, i) => rollup(res, `(SELECT value FROM json_each(@l${i}))`));
  for (let j = 0; j < RAW_SLOTS; j++) parts.push(raw(`r${j}`));
  return parts.join('\nUNION ALL ');
}

const marketUnion = coverUnion(
  MARKET_ROLLUP_SECONDS,
  (res, list) => `SELECT market, v, n FROM market_rollups WHERE res = ${res} AND t IN ${list} AND token_id = @tokenId`,
  (p) => `SELECT market, volume_usd, 1 FROM trades WHERE token_id = @tokenId AND block_time >= @${p}f AND block_time < @${p}t`,
);

/** The cover reads, for the query-plan test (each bucket must be an index seek). */
export const COVER_SQL = { markets: marketUnion } as const;

export function createRankingRepo(db: Db): RankingRepo {
  const marketStats = db
    .prepare<[Record<string, number | string>], [string, number, number]>(`SELECT market, sum(v), sum(n) FROM (${marketUnion}) GROUP BY market`)
    .raw();
  const marketLast = db.prepare<[number], [string, number]>('SELECT market, price_usd FROM market_last WHERE token_id = ?').raw();
  const walletsSince = db
    .prepare<[number, number, number], number>('SELECT count(*) FROM wallet_last WHERE token_id = ? AND last_time >= ? AND last_time <= ?')
    .pluck();
  const walletsExact = db
    .prepare<[number, number, number], number>('SELECT count(DISTINCT wallet) FROM trades WHERE token_id = ? AND block_time >= ? AND block_time <= ?')
    .pluck();
  const holders = db.prepare<[number, number], HolderRow>('SELECT owner, amount FROM holders WHERE token_id = ? ORDER BY amount DESC, owner LIMIT ?');
  const holderCount = db.prepare<[number], number>('SELECT count(*) FROM holders WHERE token_id = ?').pluck();
  const markets = db.prepare<[number, number], MarketRow>(
    `SELECT address, dex, quote_address AS quoteAddress, quote_symbol AS quoteSymbol, liquidity_usd AS liquidityUsd, created_at AS createdAt
     FROM markets WHERE token_id = ? ORDER BY liquidity_usd DESC, address LIMIT ?`,
  );
  const marketSummary = db.prepare<[number], [number, number]>('SELECT count(*), coalesce(sum(liquidity_usd), 0) FROM markets WHERE token_id = ?').raw();

  return {
    /**
     * Wallets that traded in (now - seconds, now]. From each wallet's last trade time, which is
     * exact unless the token has trades after `now` (`lastTradeAt`); then counted from the trades.
     */
    uniqueWallets(tokenId: number, now: number, seconds: number, lastTradeAt: number | null): number {
      const source = walletCountSource(now, lastTradeAt);
      if (source === 'none') return 0;
      return (source === 'trades' ? walletsExact : walletsSince).get(tokenId, now - seconds + 1, now) ?? 0;
    },

    /**
     * Volume and trade count per market address in (now - seconds, now]; `lastTradeAt` is the
     * token's newest trade time (a window past it reads no raw edge).
     */
    marketStats(tokenId: number, now: number, seconds: number, lastTradeAt: number | null): Map<string, MarketStats> {
      const out = new Map<string, MarketStats>();
      const { from, to } = trailingWindow(now, seconds);
      const segments = windowSegments(from, to, lastTradeAt, MARKET_ROLLUP_SECONDS);
      const rows = marketStats.all({ tokenId, ...coverParams(MARKET_ROLLUP_SECONDS, segments) });
      for (const [market, v, n] of rows) out.set(market, { volumeUsd: v, trades: n });
      return out;
    },

    /** The last trade's price in each market address of the token (trade order). */
    marketPrices(tokenId: number): Map<string, number> {
      return new Map(marketLast.all(tokenId));
    },

    /** The token's markets, most liquid first, ties by address. */
    markets: (tokenId: number, limit: number): MarketRow[] => markets.all(tokenId, limit),

    /** How many markets the token has, and their summed liquidity. */
    marketSummary(tokenId: number): { count: number; liquidityUsd: number } {
      const [count, liquidityUsd] = marketSummary.get(tokenId)!;
      return { count, liquidityUsd };
    },

    /** The largest holders, ties by owner. */
    holders: (tokenId: number, limit: number): HolderRow[] => holders.all(tokenId, limit),
    holderCount: (tokenId: number): number => holderCount.get(tokenId) ?? 0,
  };
}
