/**
 * Discovery's token sets on PostgreSQL: the twin of src/store/sqlite/discovery-repo.ts (same answers for
 * the same calls, each a promise). Orders SQLite gives by the index it walks are written out
 * (docs/operations.md, Many instances: case and order): tokens traded since a time come in
 * (last_trade_at, id) order (tokens_last_trade), and the tokens with trades in a span in the order
 * of their first minute rollup (market_rollups is keyed (res, t, token_id, market)). The exact
 * per-token check SQLite makes one statement at a time is an EXISTS in the same statement here,
 * so the set is one round trip.
 */
import type { Async } from '../port/async.js';
import type { ChainCounts, DiscoveryRepo, TokenSummary } from '../port/repos.js';
import { limitParam, row, rows, type Queryable } from './pg-repo.js';

const SUMMARY = `t.id, t.address, t.symbol, t.name, t.price_usd AS "priceUsd", t.circulating_supply AS "circulatingSupply",
  t.created_at AS "createdAt", t.last_trade_at AS "lastTradeAt",
  (SELECT coalesce(sqlite_sum(m.liquidity_usd ORDER BY m.liquidity_usd DESC, m.address), 0) FROM markets m WHERE m.token_id = t.id) AS "liquidityUsd"`;

export type PgDiscoveryRepo = Async<DiscoveryRepo>;

export function createPgDiscoveryRepo(db: Queryable): PgDiscoveryRepo {
  const ids = async (sql: string, params: unknown[]): Promise<number[]> => (await rows<{ id: number }>(db, sql, params)).map((r) => r.id);
  return {
    tradedSince: (since) => ids('SELECT id FROM tokens WHERE last_trade_at >= $1 ORDER BY last_trade_at, id', [since]),

    async tradedBetween(from, to) {
      if (from >= to) return [];
      return ids(
        `SELECT r.token_id AS id FROM market_rollups r
         WHERE r.res = 60 AND r.t >= $1 AND r.t < $2
           AND EXISTS (SELECT 1 FROM trades x WHERE x.token_id = r.token_id AND x.block_time >= $3 AND x.block_time < $2)
         GROUP BY r.token_id ORDER BY min(r.t), r.token_id`,
        [Math.floor(from / 60) * 60, to, from],
      );
    },

    summary: (id) => row<TokenSummary>(db, `SELECT ${SUMMARY} FROM tokens t WHERE t.id = $1`, [id]),

    newest: (limit, keys) =>
      keys === undefined
        ? rows<TokenSummary>(db, `SELECT ${SUMMARY} FROM tokens t ORDER BY t.created_at DESC, t.address LIMIT $1`, [limitParam(limit)])
        : keys === 'plain'
          ? rows<TokenSummary>(db, `SELECT ${SUMMARY} FROM tokens t WHERE strpos(t.address, ':') = 0 ORDER BY t.created_at DESC, t.address LIMIT $1`, [
              limitParam(limit),
            ])
          : rows<TokenSummary>(db, `SELECT ${SUMMARY} FROM tokens t WHERE t.address >= $1 AND t.address < $2 ORDER BY t.created_at DESC, t.address LIMIT $3`, [
              keys.from,
              keys.to,
              limitParam(limit),
            ]),

    // As SQLite's: a chain's keys are a range of the address indexes ("C" order), the default
    // chain's (no colon) a scan; trades are the sums of the tokens' day candles' trade counts.
    async chainCounts(keys) {
      const counted =
        keys === 'plain'
          ? await row<ChainCounts>(
              db,
              `SELECT (SELECT count(*) FROM tokens WHERE strpos(address, ':') = 0)::int AS tokens,
                      (SELECT count(*) FROM markets WHERE strpos(address, ':') = 0)::int AS markets,
                      (SELECT coalesce(sum(c.n), 0) FROM tokens t JOIN candles c ON c.token_id = t.id AND c.res = 86400
                        WHERE strpos(t.address, ':') = 0)::bigint AS trades,
                      (SELECT last_trade_at FROM tokens WHERE last_trade_at IS NOT NULL AND strpos(address, ':') = 0
                        ORDER BY last_trade_at DESC LIMIT 1) AS "lastTradeAt"`,
              [],
            )
          : await row<ChainCounts>(
              db,
              `SELECT (SELECT count(*) FROM tokens WHERE address >= $1 AND address < $2)::int AS tokens,
                      (SELECT count(*) FROM markets WHERE address >= $1 AND address < $2)::int AS markets,
                      (SELECT coalesce(sum(c.n), 0) FROM tokens t JOIN candles c ON c.token_id = t.id AND c.res = 86400
                        WHERE t.address >= $1 AND t.address < $2)::bigint AS trades,
                      (SELECT max(last_trade_at) FROM tokens WHERE address >= $1 AND address < $2) AS "lastTradeAt"`,
              [keys.from, keys.to],
            );
      return { tokens: Number(counted!.tokens), markets: Number(counted!.markets), trades: Number(counted!.trades), lastTradeAt: counted!.lastTradeAt };
    },
  };
}
