/**
 * Per-market candle rollups on PostgreSQL: the twin of createMarketCandlesRepo() in
 * src/store/sqlite/market-candles-repo.ts (same answers for the same calls, each a promise). Reads fold
 * the same rows with the same foldBars(), bounded as in src/store/pg/candles-repo.ts. Writes
 * give new markets their integer keys (market_keys, in the order the deltas first name them, as
 * SQLite numbers them) and merge a slice's deltas in one multi-row upsert.
 */
import type { Async } from '../port/async.js';
import { rollupSourceFor } from '../../domain/resolution.js';
import { barsBeforeUpper, barStartOf, foldBars, foldBounds, foldLimit } from '../../domain/bar-fold.js';
import { priceIn, type MarketRollupDelta } from '../../domain/market-candles.js';
import type { MarketCandlesRepo } from '../port/repos.js';
import { row, type Queryable } from './pg-repo.js';
import { combinedQuery, type Part } from './combined.js';
import { arrays, TAKE_CLOSE, TAKE_OPEN } from './candles-repo.js';

export type PgMarketCandlesRepo = Async<MarketCandlesRepo>;

const KEY = '(SELECT id FROM market_keys WHERE address = $2)';

const takeOver = (cmp: string, cols: string[]): string => cols.map((c) => `${c} = CASE WHEN ${cmp} THEN excluded.${c} ELSE x.${c} END`).join(', ');

/**
 * The two parts (src/store/pg/combined.ts) that key the deltas' markets and merge the deltas: new
 * markets take their keys in the order the deltas first name them (as SQLite numbers them), and the
 * upsert finds each market's key among the stored ones or the new ones the first part returns.
 */
export function marketCandlesParts(deltas: readonly MarketRollupDelta[]): Part[] {
  const markets = [...new Set(deltas.map((d) => d.market))];
  const c = <V>(f: (d: MarketRollupDelta) => V) => deltas.map(f);
  return [
    {
      name: 'new_market_keys',
      sql: `INSERT INTO market_keys (address) SELECT u.a FROM unnest($1::text[]) WITH ORDINALITY AS u (a, n)
       WHERE NOT EXISTS (SELECT 1 FROM market_keys k WHERE k.address = u.a) ORDER BY u.n RETURNING id, address`,
      params: [markets],
    },
    {
      sql: `INSERT INTO market_candles AS x (token_id, market_id, res, t, o, h, l, c, v, qo, qh, ql, qc, qv, n, o_time, o_id, c_time, c_id)
       SELECT u.token_id, k.id, u.res, u.t, u.o, u.h, u.l, u.c, u.v, u.qo, u.qh, u.ql, u.qc, u.qv, u.n, u.o_time, u.o_id, u.c_time, u.c_id
       FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::float8[],
         $9::float8[], $10::float8[], $11::float8[], $12::float8[], $13::float8[], $14::float8[], $15::bigint[], $16::bigint[], $17::bigint[],
         $18::bigint[], $19::bigint[])
         AS u (token_id, market, res, t, o, h, l, c, v, qo, qh, ql, qc, qv, n, o_time, o_id, c_time, c_id)
       JOIN (SELECT id, address FROM new_market_keys UNION ALL SELECT id, address FROM market_keys WHERE address = ANY($20::text[])) k
         ON k.address = u.market
       ORDER BY 1, 2, 3, 4
       ON CONFLICT (token_id, market_id, res, t) DO UPDATE SET
         ${takeOver(TAKE_OPEN, ['o', 'qo', 'o_time', 'o_id'])},
         ${takeOver(TAKE_CLOSE, ['c', 'qc', 'c_time', 'c_id'])},
         h = greatest(x.h, excluded.h), l = least(x.l, excluded.l),
         qh = greatest(x.qh, excluded.qh), ql = least(x.ql, excluded.ql),
         v = x.v + excluded.v, qv = x.qv + excluded.qv, n = x.n + excluded.n`,
      params: [
        c((d) => d.tokenId),
        c((d) => d.market),
        c((d) => d.res),
        c((d) => d.t),
        c((d) => d.o),
        c((d) => d.h),
        c((d) => d.l),
        c((d) => d.c),
        c((d) => d.v),
        c((d) => d.qo),
        c((d) => d.qh),
        c((d) => d.ql),
        c((d) => d.qc),
        c((d) => d.qv),
        c((d) => d.n),
        c((d) => d.oTime),
        c((d) => d.oId),
        c((d) => d.cTime),
        c((d) => d.cId),
        markets,
      ],
    },
  ];
}

/** Keys the deltas' markets and merges the deltas, in one statement whatever their number. */
export function pgMarketCandlesWriter(db: Queryable): (deltas: readonly MarketRollupDelta[]) => Promise<void> {
  return async (deltas) => {
    if (deltas.length === 0) return;
    await db.query(combinedQuery(marketCandlesParts(deltas)));
  };
}

export function createPgMarketCandlesRepo(db: Queryable): PgMarketCandlesRepo {
  const applyDeltas = pgMarketCandlesWriter(db);
  return {
    async lastPrice(tokenId, market, currency) {
      const r = await row<{ c: number; qc: number }>(
        db,
        `SELECT c, qc FROM market_candles WHERE token_id = $1 AND market_id = ${KEY} AND res = 86400 ORDER BY t DESC LIMIT 1`,
        [tokenId, market],
      );
      return priceIn(currency, r);
    },

    marketToken: async (market) => (await row<{ id: number }>(db, 'SELECT token_id AS id FROM markets WHERE address = $1', [market]))?.id ?? null,

    applyDeltas: (deltas) => applyDeltas([...deltas]),

    async readBars(tokenId, market, currency, res, q, stats) {
      const cols = currency === 'usd' ? 't, o, h, l, c, v' : 't, qo, qh, ql, qc, qv';
      const { lower, upper } = foldBounds(res, q);
      const found = await arrays(
        db,
        `SELECT ${cols} FROM market_candles WHERE token_id = $1 AND market_id = ${KEY} AND res = $3 AND t >= $4 AND t < $5 ORDER BY t DESC LIMIT $6`,
        [tokenId, market, rollupSourceFor(res), lower, upper, foldLimit(res, q)],
      );
      return foldBars(res, q, () => found, stats);
    },

    async newestBarBefore(tokenId, market, res, before) {
      const found = await row<{ t: number | null }>(
        db,
        `SELECT max(t) AS t FROM market_candles WHERE token_id = $1 AND market_id = ${KEY} AND res = $3 AND t < $4`,
        [tokenId, market, rollupSourceFor(res), barsBeforeUpper(res, before)],
      );
      return barStartOf(res, found!.t);
    },
  };
}
