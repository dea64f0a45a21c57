/**
 * Candle rollups on PostgreSQL: the twin of createCandlesRepo() in src/store/sqlite/candles-repo.ts (the
 * same bars, row counts and rows for the same calls, each a promise). Reads fold the same rollup
 * rows with the same foldBars(), fetched in one statement bounded by what the fold can use (the
 * bars wanted times the rows a bar may hold, plus the row that shows the last bar complete).
 * Writes merge a slice's deltas in one multi-row upsert (call it on the ingest's transaction client).
 */
import type { Async } from '../port/async.js';
import type { RollupDelta } from '../../domain/candles.js';
import { rollupSourceFor } from '../../domain/resolution.js';
import { barsBeforeUpper, barStartOf, foldBars, foldBounds, foldLimit } from '../../domain/bar-fold.js';
import type { CandlesRepo } from '../port/repos.js';
import { row, type Queryable } from './pg-repo.js';
import type { Part } from './combined.js';

export type PgCandlesRepo = Async<CandlesRepo>;

/** Rows of one statement as arrays, as foldBars() takes them. */
export async function arrays(db: Queryable, text: string, values: unknown[]): Promise<number[][]> {
  return (await db.query<number[]>({ text, values, rowMode: 'array' })).rows;
}

/** A new trade's rollup beats the stored open when earlier, the stored close when later, in trade order. */
export const TAKE_OPEN = '(excluded.o_time, excluded.o_id) < (x.o_time, x.o_id)';
export const TAKE_CLOSE = '(excluded.c_time, excluded.c_id) > (x.c_time, x.c_id)';

/** The upsert that merges deltas into the token rollups, as one part of a statement (src/store/pg/combined.ts). */
export function candlesPart(deltas: readonly RollupDelta[]): Part {
  const c = <V>(f: (d: RollupDelta) => V) => deltas.map(f);
  return {
    sql: `INSERT INTO candles AS x (token_id, res, t, o, h, l, c, v, vb, n, nb, o_time, o_id, c_time, c_id)
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::float8[], $5::float8[], $6::float8[], $7::float8[], $8::float8[],
         $9::float8[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[]) AS u
       ORDER BY 1, 2, 3
       ON CONFLICT (token_id, res, t) DO UPDATE SET
         o      = CASE WHEN ${TAKE_OPEN} THEN excluded.o ELSE x.o END,
         o_time = CASE WHEN ${TAKE_OPEN} THEN excluded.o_time ELSE x.o_time END,
         o_id   = CASE WHEN ${TAKE_OPEN} THEN excluded.o_id ELSE x.o_id END,
         c      = CASE WHEN ${TAKE_CLOSE} THEN excluded.c ELSE x.c END,
         c_time = CASE WHEN ${TAKE_CLOSE} THEN excluded.c_time ELSE x.c_time END,
         c_id   = CASE WHEN ${TAKE_CLOSE} THEN excluded.c_id ELSE x.c_id END,
         h = greatest(x.h, excluded.h), l = least(x.l, excluded.l),
         v = x.v + excluded.v, vb = x.vb + excluded.vb, n = x.n + excluded.n, nb = x.nb + excluded.nb`,
    params: [
      c((d) => d.tokenId),
      c((d) => d.res),
      c((d) => d.t),
      c((d) => d.o),
      c((d) => d.h),
      c((d) => d.l),
      c((d) => d.c),
      c((d) => d.v),
      c((d) => d.vb),
      c((d) => d.n),
      c((d) => d.nb),
      c((d) => d.oTime),
      c((d) => d.oId),
      c((d) => d.cTime),
      c((d) => d.cId),
    ],
  };
}

/** Merges deltas into the token rollups in one statement. */
export function pgCandlesWriter(db: Queryable): (deltas: readonly RollupDelta[]) => Promise<void> {
  return async (deltas) => {
    if (deltas.length === 0) return;
    const { sql, params } = candlesPart(deltas);
    await db.query(sql, [...params]);
  };
}

export function createPgCandlesRepo(db: Queryable): PgCandlesRepo {
  const applyDeltas = pgCandlesWriter(db);
  return {
    applyDeltas: (deltas) => applyDeltas([...deltas]),

    async readBars(tokenId, res, q, stats) {
      const { lower, upper } = foldBounds(res, q);
      const found = await arrays(db, 'SELECT t, o, h, l, c, v FROM candles WHERE token_id = $1 AND res = $2 AND t >= $3 AND t < $4 ORDER BY t DESC LIMIT $5', [
        tokenId,
        rollupSourceFor(res),
        lower,
        upper,
        foldLimit(res, q),
      ]);
      return foldBars(res, q, () => found, stats);
    },

    async newestBarBefore(tokenId, res, before) {
      const found = await row<{ t: number | null }>(db, 'SELECT max(t) AS t FROM candles WHERE token_id = $1 AND res = $2 AND t < $3', [
        tokenId,
        rollupSourceFor(res),
        barsBeforeUpper(res, before),
      ]);
      return barStartOf(res, found!.t);
    },
  };
}
