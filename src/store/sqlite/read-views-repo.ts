/**
 * Writes the read views of migrations 003 and 006 (per-market rollups, each wallet's and market's
 * last trade) in the ingest transaction: the rows of src/domain/read-views.ts, computed once for
 * both engines, applied here with SQLite's statements, so the markets list and the unique-wallet
 * counts never scan a window's raw trades. (Per-wallet rollups are gone since migration 013: top
 * traders read their boards from the trades.)
 */
import { writeTransaction, type Db } from './db.js';
import type { ReadViewRows } from '../../domain/read-views.js';

// The widths are the domain's; named here for the store's readers of market_rollups.
export { MARKET_ROLLUP_SECONDS } from '../../domain/read-views.js';

/** The applier of a slice's read view rows, on the one connection (inside the ingest's transaction). */
export function readViewsWriter(db: Db): (rows: ReadViewRows) => void {
  const upsertWalletLast = db.prepare(`
    INSERT INTO wallet_last (token_id, wallet, last_time) VALUES (?, ?, ?)
    ON CONFLICT (token_id, wallet) DO UPDATE SET last_time = max(last_time, excluded.last_time)`);
  const upsertMarket = db.prepare(`
    INSERT INTO market_rollups (token_id, res, t, market, v, n) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (token_id, res, t, market) DO UPDATE SET v = v + excluded.v, n = n + excluded.n`);
  const upsertMarketLast = db.prepare(`
    INSERT INTO market_last (token_id, market, block_time, trade_id, price_usd) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (token_id, market) DO UPDATE SET
      block_time = excluded.block_time, trade_id = excluded.trade_id, price_usd = excluded.price_usd
    WHERE (excluded.block_time, excluded.trade_id) > (block_time, trade_id)`);

  return ({ walletLast, marketRollups, marketLast }) => {
    for (const w of walletLast) upsertWalletLast.run(w.tokenId, w.wallet, w.last);
    for (const r of marketRollups) upsertMarket.run(r.tokenId, r.res, r.t, r.market, r.v, r.n);
    for (const m of marketLast) upsertMarketLast.run(m.tokenId, m.market, m.blockTime, m.tradeId, m.priceUsd);
  };
}

/**
 * Rebuilds every read view from the trades table, in one transaction. For stores whose trades
 * were written around the ingest path (a bulk loader); the same statements as migration 003
 * (less its wallet_rollups, dropped by migration 013).
 */
export function rebuildReadViews(db: Db): void {
  writeTransaction(db, () => {
    db.exec(`
      DELETE FROM wallet_last; DELETE FROM market_rollups; DELETE FROM market_last;
      INSERT INTO wallet_last (token_id, wallet, last_time)
      SELECT token_id, wallet, max(block_time) FROM trades GROUP BY token_id, wallet;
      INSERT INTO market_rollups (token_id, res, t, market, v, n)
      SELECT token_id, r.res, block_time / r.res * r.res, market, sum(volume_usd), count(*)
      FROM trades, (SELECT 60 AS res UNION ALL SELECT 3600) AS r
      GROUP BY token_id, r.res, block_time / r.res, market;
      INSERT INTO market_last (token_id, market, block_time, trade_id, price_usd)
      SELECT token_id, market, block_time, id, price_usd FROM (
        SELECT token_id, market, block_time, id, price_usd,
               row_number() OVER (PARTITION BY token_id, market ORDER BY block_time DESC, id DESC) AS k
        FROM trades)
      WHERE k = 1;`);
  })();
}
