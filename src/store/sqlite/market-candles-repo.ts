/**
 * Per-market candle rollups (README, Pairs and native prices): written at ingest next to the
 * token's, read for a market's bars in USD or in its quote token. Reads fold rollups only, by the
 * same rules as the token's (foldBars, src/domain/bar-fold.ts), so a request stays bounded by its bars.
 * Rows are keyed by the market's integer key (market_keys, migration 013), not its address; the
 * repo's callers still name markets by address.
 */
import type { Db } from './db.js';
import { priceIn } from '../../domain/market-candles.js';
import { rollupSourceFor } from '../../domain/resolution.js';
import { barsBeforeUpper, barStartOf, foldBars } from '../../domain/bar-fold.js';
import type { MarketCandlesRepo } from '../port/market.js';

// The interface and row types are the port's (src/store/port/market.ts), named here too.
export type { Currency, MarketCandlesRepo } from '../port/market.js';

const takeOver = (side: 'o' | 'c', cols: string[]): string =>
  cols
    .map((col) => {
      const cmp = side === 'o' ? '(excluded.o_time, excluded.o_id) < (o_time, o_id)' : '(excluded.c_time, excluded.c_id) > (c_time, c_id)';
      return `${col} = CASE WHEN ${cmp} THEN excluded.${col} ELSE ${col} END`;
    })
    .join(',\n      ');

export function createMarketCandlesRepo(db: Db): MarketCandlesRepo {
  // The keys (o_time, o_id / c_time, c_id) are assigned last: SQLite evaluates every SET
  // expression against the old row, so their order does not matter, but it reads plainer.
  const upsert = db.prepare(`
    INSERT INTO market_candles (token_id, market_id, res, t, o, h, l, c, v, qo, qh, ql, qc, qv, n, o_time, o_id, c_time, c_id)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (token_id, market_id, res, t) DO UPDATE SET
      ${takeOver('o', ['o', 'qo', 'o_time', 'o_id'])},
      ${takeOver('c', ['c', 'qc', 'c_time', 'c_id'])},
      h = max(h, excluded.h), l = min(l, excluded.l),
      qh = max(qh, excluded.qh), ql = min(ql, excluded.ql),
      v = v + excluded.v, qv = qv + excluded.qv, n = n + excluded.n`);

  const usdDesc = db
    .prepare<[number, string, number, number, number]>(
      'SELECT t, o, h, l, c, v FROM market_candles WHERE token_id = ? AND market_id = (SELECT id FROM market_keys WHERE address = ?) AND res = ? AND t >= ? AND t < ? ORDER BY t DESC',
    )
    .raw();
  const nativeDesc = db
    .prepare<[number, string, number, number, number]>(
      'SELECT t, qo, qh, ql, qc, qv FROM market_candles WHERE token_id = ? AND market_id = (SELECT id FROM market_keys WHERE address = ?) AND res = ? AND t >= ? AND t < ? ORDER BY t DESC',
    )
    .raw();
  const newest = db
    .prepare<[number, string, number, number], number | null>(
      'SELECT max(t) FROM market_candles WHERE token_id = ? AND market_id = (SELECT id FROM market_keys WHERE address = ?) AND res = ? AND t < ?',
    )
    .pluck();

  const lastPrice = db.prepare<[number, string], { c: number; qc: number }>(
    'SELECT c, qc FROM market_candles WHERE token_id = ? AND market_id = (SELECT id FROM market_keys WHERE address = ?) AND res = 86400 ORDER BY t DESC LIMIT 1',
  );
  const marketToken = db.prepare<[string], number>('SELECT token_id FROM markets WHERE address = ?').pluck();
  const keyOf = db.prepare<[string], number>('SELECT id FROM market_keys WHERE address = ?').pluck();
  const newKey = db.prepare<[string], number>('INSERT INTO market_keys (address) VALUES (?) RETURNING id').pluck();

  return {
    lastPrice(tokenId, market, currency) {
      return priceIn(currency, lastPrice.get(tokenId, market));
    },

    marketToken: (market) => marketToken.get(market) ?? null,

    applyDeltas(deltas) {
      // Keys are looked up per call, never cached across calls: a key made in a transaction that
      // rolls back is gone again.
      const keys = new Map<string, number>();
      for (const d of deltas) {
        let key = keys.get(d.market);
        if (key === undefined) keys.set(d.market, (key = keyOf.get(d.market) ?? newKey.get(d.market)!));
        upsert.run(d.tokenId, key, d.res, d.t, d.o, d.h, d.l, d.c, d.v, d.qo, d.qh, d.ql, d.qc, d.qv, d.n, d.oTime, d.oId, d.cTime, d.cId);
      }
    },

    readBars(tokenId, market, currency, res, q, stats) {
      const stmt = currency === 'usd' ? usdDesc : nativeDesc;
      const source = rollupSourceFor(res);
      return foldBars(res, q, (lower, upper) => stmt.iterate(tokenId, market, source, lower, upper) as Iterable<number[]>, stats);
    },

    newestBarBefore(tokenId, market, res, before) {
      return barStartOf(res, newest.get(tokenId, market, rollupSourceFor(res), barsBeforeUpper(res, before)));
    },
  };
}
