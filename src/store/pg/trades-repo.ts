/**
 * Trade reads on PostgreSQL: the twin of src/store/sqlite/trades-repo.ts (same answers for the same
 * calls, each a promise). A page is one statement whose equality columns and (block_time, id)
 * row comparison match one of the trades indexes, so the planner seeks it backwards as SQLite's
 * INDEXED BY does. The snapshot bound (id <= bound) stays exact because trades are numbered in
 * inWriteOrder() transactions (src/store/pg/write-order.ts): no id below maxId() commits later.
 */
import type { Async } from '../port/async.js';
import type { PricePoint, TradeFilter, TradeRowLike, TradesRepo } from '../port/repos.js';
import { row, rows, type Queryable } from './pg-repo.js';
import { pageStart } from '../../domain/trade-page.js';

const COLUMNS = `t.id, t.signature, t.idx AS "index", t.block_time AS "blockTime", t.is_buy AS "isBuy", t.price_usd AS "priceUsd",
  t.amount, t.quote_amount AS "quoteAmount", t.volume_usd AS "volumeUsd", t.wallet, t.market, m.dex`;

/** The statement of a page for a filter: $1 token, $2/$3 position, $4 after, $5 bound, $6 limit, then $7 side and/or wallet. */
function pageSql(filter: TradeFilter): string {
  let extra = '';
  let n = 7;
  if (filter.wallet !== null) extra += ` AND t.wallet = $${n++}`;
  if (filter.side !== null) extra += ` AND t.is_buy = $${n++}`;
  return `SELECT ${COLUMNS} FROM trades t LEFT JOIN markets m ON m.address = t.market
    WHERE t.token_id = $1${extra} AND (t.block_time, t.id) < ($2, $3) AND t.block_time >= $4 AND t.id <= $5
    ORDER BY t.block_time DESC, t.id DESC LIMIT $6`;
}

export type PgTradesRepo = Async<TradesRepo>;

export function createPgTradesRepo(db: Queryable): PgTradesRepo {
  return {
    maxId: async () => (await row<{ n: number | null }>(db, 'SELECT max(id) AS n FROM trades'))!.n ?? 0,

    page(tokenId, filter, after, bound, limit) {
      const pos = pageStart(after, filter.before);
      const params: unknown[] = [tokenId, pos.blockTime, pos.id, filter.after ?? 0, bound, limit];
      if (filter.wallet !== null) params.push(filter.wallet);
      if (filter.side !== null) params.push(filter.side === 'buy' ? 1 : 0);
      return rows<TradeRowLike>(db, pageSql(filter), params);
    },

    lastAtOrBefore: async (tokenId, time) =>
      (await row<PricePoint>(
        db,
        `SELECT price_usd AS "priceUsd", block_time AS "blockTime", id AS "tradeId" FROM trades
         WHERE token_id = $1 AND block_time <= $2 ORDER BY block_time DESC, id DESC LIMIT 1`,
        [tokenId, time],
      )) ?? null,

    dexOf: async (market) => (await row<{ dex: string }>(db, 'SELECT dex FROM markets WHERE address = $1', [market]))?.dex ?? null,
  };
}
