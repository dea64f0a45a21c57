/**
 * Writes the read views of migrations 003 and 006 (per-market rollups, each wallet's and market's
 * last trade) in the ingest transaction, as an IngestHook, so the markets list and the
 * unique-wallet counts never scan a window's raw trades. Backfilled trades fold in like any
 * other: sums are additive and "last" compares trade order (blockTime, id). (Per-wallet rollups
 * are gone since migration 013: top traders read their boards from the trades.)
 */
import { writeTransaction, type Db } from './db.js';
import type { SqliteIngestHook, InsertedTrade } from '../port/ingest.js';

/**
 * Bucket widths of market_rollups, widest first; each divides the one before, so a window's cover
 * has at most two segments per width.
 */
export const MARKET_ROLLUP_SECONDS = [3600, 60] as const;

/** Sums of one market's trades in one bucket of one width. */
type Sums = { res: number; t: number; vb: number; vs: number; nb: number; ns: number };
/** A batch's trades of one market of one token, by bucket * 8 + width index. */
export type Fold = { tokenId: number; key: string; buckets: Map<number, Sums>; last: InsertedTrade };
/** A wallet's newest trade time on a token. */
export type WalletLast = { tokenId: number; wallet: string; last: number };

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
export function readViewsHook(db: Db): SqliteIngestHook {
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
    const { wallets, markets } = foldReadViews(trades);
    for (const w of wallets) upsertWalletLast.run(w.tokenId, w.wallet, w.last);
    for (const f of markets) {
      for (const d of f.buckets.values()) upsertMarket.run(f.tokenId, d.res, d.t, f.key, d.vb + d.vs, d.nb + d.ns);
      upsertMarketLast.run(f.tokenId, f.key, f.last.blockTime, f.last.id, f.last.priceUsd);
    }
  };
}

/**
 * A batch's trades folded for the read views, so a busy market costs one upsert per bucket and a
 * busy wallet one upsert, not one per trade: each wallet's newest time and each market's sums
 * per bucket and last trade. Both engines' hooks write these (src/store/pg/read-views.ts).
 */
export function foldReadViews(trades: readonly InsertedTrade[]): { wallets: WalletLast[]; markets: Fold[] } {
  const wallets = new Map<string, WalletLast>();
  const markets = new Map<string, Fold>();
  for (const tr of trades) {
    const k = `${tr.tokenId}|${tr.wallet}`;
    const w = wallets.get(k);
    if (w === undefined) wallets.set(k, { tokenId: tr.tokenId, wallet: tr.wallet, last: tr.blockTime });
    else if (tr.blockTime > w.last) w.last = tr.blockTime;
    fold(markets, MARKET_ROLLUP_SECONDS, tr, tr.market);
  }
  return { wallets: [...wallets.values()], markets: [...markets.values()] };
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
