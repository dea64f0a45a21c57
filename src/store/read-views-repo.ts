/**
 * Writes the read views of migrations 003 and 006 (per-wallet and per-market rollups, each wallet's and
 * market's last trade) in the ingest transaction, as an IngestHook, so the ranked lists and the
 * unique-wallet counts never scan a window's raw trades. Backfilled trades fold in like any
 * other: sums are additive and "last" compares trade order (blockTime, id).
 */
import { writeTransaction, type Db } from './db.js';
import type { IngestHook, InsertedTrade } from '../services/ingest.js';

/**
 * Bucket widths of wallet_rollups and market_rollups, widest first; each divides the one before,
 * so a window's cover has at most two segments per width. The 6 h level cuts a 24 h top-traders
 * read from 23 hour rows per wallet to at most 8 rows.
 */
export const WALLET_ROLLUP_SECONDS = [86400, 21600, 3600, 60] as const;
export const MARKET_ROLLUP_SECONDS = [3600, 60] as const;

/** Sums of one wallet's (or market's) trades in one bucket of one width. */
type Sums = { res: number; t: number; vb: number; vs: number; nb: number; ns: number };
/** A batch's trades of one wallet (or market) of one token, by bucket * 8 + width index. */
type Fold = { tokenId: number; key: string; buckets: Map<number, Sums>; last: InsertedTrade };

/**
 * Adds `tr` to `folds` under its token and `key`, at each width of `levels`. One key string per
 * trade; buckets are numbers (a bucket start is a multiple of its width, so bucket * 8 + width
 * index is unique).
 */
function fold(folds: Map<string, Fold>, levels: readonly number[], tr: InsertedTrade, key: string): void {
  const k = `${tr.tokenId}|${key}`;
  let f = folds.get(k);
  if (f === undefined) folds.set(k, (f = { tokenId: tr.tokenId, key, buckets: new Map(), last: tr }));
  else if (tr.blockTime > f.last.blockTime || (tr.blockTime === f.last.blockTime && tr.id > f.last.id)) f.last = tr;
  for (let i = 0; i < levels.length; i++) {
    const res = levels[i]!;
    const t = Math.floor(tr.blockTime / res) * res;
    let d = f.buckets.get(t * 8 + i);
    if (d === undefined) f.buckets.set(t * 8 + i, (d = { res, t, vb: 0, vs: 0, nb: 0, ns: 0 }));
    if (tr.isBuy) {
      d.vb += tr.volumeUsd;
      d.nb++;
    } else {
      d.vs += tr.volumeUsd;
      d.ns++;
    }
  }
}

/** The hook that keeps the read views; add it to src/services/ingest-hooks.ts. */
export function readViewsHook(db: Db): IngestHook {
  const upsertWallet = db.prepare(`
    INSERT INTO wallet_rollups (token_id, res, t, wallet, vb, vs, nb, ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (token_id, res, t, wallet) DO UPDATE SET
      vb = vb + excluded.vb, vs = vs + excluded.vs, nb = nb + excluded.nb, ns = ns + excluded.ns`);
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

  return ({ trades }) => {
    if (trades.length === 0) return;
    // Fold the batch first, so a busy wallet costs one upsert per bucket, not one per trade.
    const wallets = new Map<string, Fold>();
    const markets = new Map<string, Fold>();
    for (const tr of trades) {
      fold(wallets, WALLET_ROLLUP_SECONDS, tr, tr.wallet);
      fold(markets, MARKET_ROLLUP_SECONDS, tr, tr.market);
    }
    for (const f of wallets.values()) {
      for (const d of f.buckets.values()) upsertWallet.run(f.tokenId, d.res, d.t, f.key, d.vb, d.vs, d.nb, d.ns);
      upsertWalletLast.run(f.tokenId, f.key, f.last.blockTime);
    }
    for (const f of markets.values()) {
      for (const d of f.buckets.values()) upsertMarket.run(f.tokenId, d.res, d.t, f.key, d.vb + d.vs, d.nb + d.ns);
      upsertMarketLast.run(f.tokenId, f.key, f.last.blockTime, f.last.id, f.last.priceUsd);
    }
  };
}

/**
 * Rebuilds every read view from the trades table, in one transaction. For stores whose trades
 * were written around the ingest path (a bulk loader); the same statements as migration 003.
 */
export function rebuildReadViews(db: Db): void {
  writeTransaction(db, () => {
    db.exec(`
      DELETE FROM wallet_rollups; DELETE FROM wallet_last; DELETE FROM market_rollups; DELETE FROM market_last;
      INSERT INTO wallet_rollups (token_id, res, t, wallet, vb, vs, nb, ns)
      SELECT token_id, r.res, block_time / r.res * r.res, wallet,
             sum(CASE WHEN is_buy = 1 THEN volume_usd ELSE 0 END), sum(CASE WHEN is_buy = 1 THEN 0 ELSE volume_usd END),
             sum(is_buy), sum(1 - is_buy)
      FROM trades, (SELECT 60 AS res UNION ALL SELECT 3600 UNION ALL SELECT 21600 UNION ALL SELECT 86400) AS r
      GROUP BY token_id, r.res, block_time / r.res, wallet;
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
