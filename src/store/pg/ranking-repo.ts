/**
 * Ranked lists of one token on PostgreSQL: the twin of src/store/sqlite/ranking-repo.ts (same answers for
 * the same calls, each a promise). A window's market figures are one statement over its covering,
 * each rollup level's bucket starts passed as one array (`t = ANY(...)`, index seeks on the
 * (res, t, token_id, market) key) and the raw edges as ranges, as on SQLite. Maps come in market
 * order, as SQLite's GROUP BY and the market_last key give them; ties in the lists are settled by
 * the columns SQLite's indexes end with, written out.
 */
import type { Async } from '../port/async.js';
import type { HolderRow, MarketRow, MarketStats, RankingRepo } from '../port/repos.js';
import { MARKET_ROLLUP_SECONDS } from '../sqlite/read-views-repo.js';
import { coverBuckets, trailingWindow, walletCountSource, windowSegments } from '../../domain/window-cover.js';
import { limitParam, row, rows, type Queryable } from './pg-repo.js';

/**
 * The covering of a window as one statement's rows (market, v, n) and its parameters: per rollup
 * level its bucket starts as one array, then the raw ranges. Each row carries its place in
 * SQLite's reading order (branch `b`: the levels, then the raw slots; within one, bucket start or
 * trade order), the order in which SQLite adds the volumes up.
 */
function cover(tokenId: number, now: number, seconds: number, lastTradeAt: number | null): { sql: string; params: unknown[] } {
  const params: unknown[] = [tokenId];
  const { from, to } = trailingWindow(now, seconds);
  const { buckets, raw } = coverBuckets(MARKET_ROLLUP_SECONDS, windowSegments(from, to, lastTradeAt, MARKET_ROLLUP_SECONDS));
  const parts: string[] = [];
  MARKET_ROLLUP_SECONDS.forEach((res, i) => {
    if (buckets[i]!.length === 0) return;
    params.push(buckets[i]);
    parts.push(
      `SELECT market, v, n, ${i} AS b, t AS o1, 0 AS o2 FROM market_rollups WHERE res = ${res} AND t = ANY($${params.length}::bigint[]) AND token_id = $1`,
    );
  });
  raw.forEach(([from, to], j) => {
    params.push(from, to);
    parts.push(
      `SELECT market, volume_usd AS v, 1 AS n, ${MARKET_ROLLUP_SECONDS.length + j} AS b, block_time AS o1, id AS o2 FROM trades
       WHERE token_id = $1 AND block_time >= $${params.length - 1} AND block_time < $${params.length}`,
    );
  });
  return { sql: parts.join('\nUNION ALL\n'), params };
}

export type PgRankingRepo = Async<RankingRepo>;

export function createPgRankingRepo(db: Queryable): PgRankingRepo {
  const count = async (sql: string, params: unknown[]): Promise<number> => (await row<{ n: number }>(db, sql, params))!.n;
  return {
    async uniqueWallets(tokenId, now, seconds, lastTradeAt) {
      const source = walletCountSource(now, lastTradeAt);
      if (source === 'none') return 0;
      const sql =
        source === 'trades'
          ? 'SELECT count(DISTINCT wallet) AS n FROM trades WHERE token_id = $1 AND block_time >= $2 AND block_time <= $3'
          : 'SELECT count(*) AS n FROM wallet_last WHERE token_id = $1 AND last_time >= $2 AND last_time <= $3';
      return count(sql, [tokenId, now - seconds + 1, now]);
    },

    async marketStats(tokenId, now, seconds, lastTradeAt) {
      const out = new Map<string, MarketStats>();
      const { sql, params } = cover(tokenId, now, seconds, lastTradeAt);
      if (sql === '') return out;
      const found = await rows<{ market: string; v: number; n: number }>(
        db,
        `SELECT market, sqlite_sum(v ORDER BY b, o1, o2) AS v, sum(n) AS n FROM (${sql}) c GROUP BY market ORDER BY market`,
        params,
      );
      for (const { market, v, n } of found) out.set(market, { volumeUsd: v, trades: n });
      return out;
    },

    async marketPrices(tokenId) {
      const found = await rows<{ market: string; p: number }>(db, 'SELECT market, price_usd AS p FROM market_last WHERE token_id = $1 ORDER BY market', [
        tokenId,
      ]);
      return new Map(found.map((r) => [r.market, r.p]));
    },

    markets: (tokenId, limit) =>
      rows<MarketRow>(
        db,
        `SELECT address, dex, quote_address AS "quoteAddress", quote_symbol AS "quoteSymbol", liquidity_usd AS "liquidityUsd", created_at AS "createdAt"
         FROM markets WHERE token_id = $1 ORDER BY liquidity_usd DESC, address LIMIT $2`,
        [tokenId, limitParam(limit)],
      ),

    async marketSummary(tokenId) {
      const r = (await row<{ count: number; liquidityUsd: number }>(
        db,
        'SELECT count(*) AS count, coalesce(sqlite_sum(liquidity_usd ORDER BY liquidity_usd DESC, address), 0) AS "liquidityUsd" FROM markets WHERE token_id = $1',
        [tokenId],
      ))!;
      return { count: r.count, liquidityUsd: r.liquidityUsd };
    },

    holders: (tokenId, limit) =>
      rows<HolderRow>(db, 'SELECT owner, amount FROM holders WHERE token_id = $1 ORDER BY amount DESC, owner LIMIT $2', [tokenId, limitParam(limit)]),
    holderCount: (tokenId) => count('SELECT count(*) AS n FROM holders WHERE token_id = $1', [tokenId]),
  };
}
