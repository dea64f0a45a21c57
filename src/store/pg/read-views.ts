/**
 * The read views' applier on PostgreSQL: the twin of readViewsWriter() in
 * src/store/sqlite/read-views-repo.ts (the same rows of wallet_last, market_rollups and market_last
 * for the same batches). The rows are computed once for both engines (src/domain/read-views.ts);
 * here each table takes one multi-row upsert, the three as parts of one statement
 * (src/store/pg/combined.ts) that waits for the ingest transaction's next statement
 * (src/store/pg/deferred-writes.ts), whatever the number of trades.
 */
import type { ReadViewRows } from '../../domain/read-views.js';
import type { Queryable } from './pg-repo.js';
import { defer } from './deferred-writes.js';

export async function pgWriteReadViews(client: Queryable, { walletLast, marketRollups, marketLast }: ReadViewRows): Promise<void> {
  const walletPart = {
    sql: `INSERT INTO wallet_last AS x (token_id, wallet, last_time) SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[])
     ON CONFLICT (token_id, wallet) DO UPDATE SET last_time = greatest(x.last_time, excluded.last_time)`,
    params: [walletLast.map((w) => w.tokenId), walletLast.map((w) => w.wallet), walletLast.map((w) => w.last)],
  };
  const rollupsPart = {
    sql: `INSERT INTO market_rollups AS x (token_id, res, t, market, v, n)
     SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::float8[], $6::bigint[])
     ON CONFLICT (token_id, res, t, market) DO UPDATE SET v = x.v + excluded.v, n = x.n + excluded.n`,
    params: [
      marketRollups.map((r) => r.tokenId),
      marketRollups.map((r) => r.res),
      marketRollups.map((r) => r.t),
      marketRollups.map((r) => r.market),
      marketRollups.map((r) => r.v),
      marketRollups.map((r) => r.n),
    ],
  };
  const lastPart = {
    sql: `INSERT INTO market_last AS x (token_id, market, block_time, trade_id, price_usd)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::float8[])
     ON CONFLICT (token_id, market) DO UPDATE SET
       block_time = excluded.block_time, trade_id = excluded.trade_id, price_usd = excluded.price_usd
     WHERE (excluded.block_time, excluded.trade_id) > (x.block_time, x.trade_id)`,
    params: [
      marketLast.map((m) => m.tokenId),
      marketLast.map((m) => m.market),
      marketLast.map((m) => m.blockTime),
      marketLast.map((m) => m.tradeId),
      marketLast.map((m) => m.priceUsd),
    ],
  };
  const parts = [walletPart, rollupsPart, lastPart].filter((p) => p.params[0]!.length > 0);
  await defer(client, parts);
}
