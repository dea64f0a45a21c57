/**
 * Candle rollups: written at ingest (one upsert per touched bucket), read for history. Every
 * resolution reads rollups only (1 s and 15 s for the seconds resolutions), never raw trades, so
 * a request reads at most countback x rowsPerBar rows however busy the token (docs/api.md, Seconds resolutions).
 */
import type { Db } from './db.js';
import { barsBeforeUpper, barStartOf, foldBars } from '../../domain/bar-fold.js';
import { rollupSourceFor } from '../../domain/resolution.js';
import { MAX_BARS, type BarQuery } from '../../domain/history-range.js';
import type { CandlesRepo } from '../port/market.js';

export { MAX_BARS, type BarQuery };

// The interface and row types are the port's (src/store/port/market.ts), named here too.
export type { CandlesRepo } from '../port/market.js';

export function createCandlesRepo(db: Db): CandlesRepo {
  const upsert = db.prepare(`
    INSERT INTO candles (token_id, res, t, o, h, l, c, v, vb, n, nb, o_time, o_id, c_time, c_id)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (token_id, res, t) DO UPDATE SET
      o      = CASE WHEN (excluded.o_time, excluded.o_id) < (o_time, o_id) THEN excluded.o ELSE o END,
      o_time = CASE WHEN (excluded.o_time, excluded.o_id) < (o_time, o_id) THEN excluded.o_time ELSE o_time END,
      o_id   = CASE WHEN (excluded.o_time, excluded.o_id) < (o_time, o_id) THEN excluded.o_id ELSE o_id END,
      c      = CASE WHEN (excluded.c_time, excluded.c_id) > (c_time, c_id) THEN excluded.c ELSE c END,
      c_time = CASE WHEN (excluded.c_time, excluded.c_id) > (c_time, c_id) THEN excluded.c_time ELSE c_time END,
      c_id   = CASE WHEN (excluded.c_time, excluded.c_id) > (c_time, c_id) THEN excluded.c_id ELSE c_id END,
      h = max(h, excluded.h),
      l = min(l, excluded.l),
      v = v + excluded.v,
      vb = vb + excluded.vb,
      n = n + excluded.n,
      nb = nb + excluded.nb`);

  const rollupDesc = db
    .prepare<[number, number, number, number]>('SELECT t, o, h, l, c, v FROM candles WHERE token_id = ? AND res = ? AND t >= ? AND t < ? ORDER BY t DESC')
    .raw();
  const newestRollup = db.prepare<[number, number, number], number | null>('SELECT max(t) FROM candles WHERE token_id = ? AND res = ? AND t < ?').pluck();

  return {
    applyDeltas(deltas) {
      // Positional: binding by name costs more per row, and this runs for every touched bucket.
      for (const d of deltas) upsert.run(d.tokenId, d.res, d.t, d.o, d.h, d.l, d.c, d.v, d.vb, d.n, d.nb, d.oTime, d.oId, d.cTime, d.cId);
    },

    readBars(tokenId, res, q, stats) {
      return foldBars(res, q, (lower, upper) => rollupDesc.iterate(tokenId, rollupSourceFor(res), lower, upper) as Iterable<number[]>, stats);
    },

    newestBarBefore(tokenId, res, before) {
      return barStartOf(res, newestRollup.get(tokenId, rollupSourceFor(res), barsBeforeUpper(res, before)));
    },
  };
}
