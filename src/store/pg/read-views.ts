/**
 * The read views' ingest hook on PostgreSQL: the twin of readViewsHook() in
 * src/store/sqlite/read-views-repo.ts (the same rows of wallet_last, market_rollups and market_last for
 * the same batches). The batch is folded by the same foldReadViews(), then each table takes one
 * multi-row upsert on the ingest's transaction client, whatever the number of trades.
 */
import type { IngestHook } from '../port/ingest.js';
import { foldReadViews } from '../sqlite/read-views-repo.js';
import { clientOf } from './ingest-tx.js';

export function pgReadViewsHook(): IngestHook {
  return async ({ trades }, tx) => {
    if (trades.length === 0) return;
    const client = clientOf(tx);
    const { wallets, markets } = foldReadViews(trades);
    await client.query(
      `INSERT INTO wallet_last AS x (token_id, wallet, last_time) SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[])
       ON CONFLICT (token_id, wallet) DO UPDATE SET last_time = greatest(x.last_time, excluded.last_time)`,
      [wallets.map((w) => w.tokenId), wallets.map((w) => w.wallet), wallets.map((w) => w.last)],
    );
    const cols: [number[], number[], number[], string[], number[], number[]] = [[], [], [], [], [], []];
    for (const f of markets) {
      for (const d of f.buckets.values()) {
        cols[0].push(f.tokenId);
        cols[1].push(d.res);
        cols[2].push(d.t);
        cols[3].push(f.key);
        cols[4].push(d.vb + d.vs);
        cols[5].push(d.nb + d.ns);
      }
    }
    await client.query(
      `INSERT INTO market_rollups AS x (token_id, res, t, market, v, n)
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::float8[], $6::bigint[])
       ON CONFLICT (token_id, res, t, market) DO UPDATE SET v = x.v + excluded.v, n = x.n + excluded.n`,
      cols,
    );
    await client.query(
      `INSERT INTO market_last AS x (token_id, market, block_time, trade_id, price_usd)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::float8[])
       ON CONFLICT (token_id, market) DO UPDATE SET
         block_time = excluded.block_time, trade_id = excluded.trade_id, price_usd = excluded.price_usd
       WHERE (excluded.block_time, excluded.trade_id) > (x.block_time, x.trade_id)`,
      [
        markets.map((f) => f.tokenId),
        markets.map((f) => f.key),
        markets.map((f) => f.last.blockTime),
        markets.map((f) => f.last.id),
        markets.map((f) => f.last.priceUsd),
      ],
    );
  };
}
