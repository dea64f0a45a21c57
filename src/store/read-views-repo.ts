/**
 * Writes the read views of migration 003 (per-wallet and per-market rollups, each wallet's and
 * market's last trade) in the ingest transaction, as an IngestHook, so the ranked lists and the
 * unique-wallet counts never scan a window's raw trades. Backfilled trades fold in like any
 * other: sums are additive and "last" compares trade order (blockTime, id).
 */
import type { Db } from './db.js';
import type { IngestHook, InsertedTrade } from '../services/ingest.js';

/**
 * Bucket widths of wallet_rollups and market_rollups, widest first; each divides the one before,
 * so a window's cover has at most two segments per width. The 6 h level cuts a 24 h top-traders
 * read from 23 hour rows per wallet to at most 8 rows.
 */
export const WALLET_ROLLUP_SECONDS = [86400, 21600, 3600, 60] as const;
export const MARKET_ROLLUP_SECONDS = [3600, 60] as const;

type WalletDelta = { tokenId: number; res: number; t: number; wallet: string; vb: number; vs: number; nb: number; ns: number };
type MarketDelta = { tokenId: number; res: number; t: number; market: string; v: number; n: number };

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
    const wallets = new Map<string, WalletDelta>();
    const markets = new Map<string, MarketDelta>();
    const walletLast = new Map<string, { tokenId: number; wallet: string; time: number }>();
    const marketLast = new Map<string, InsertedTrade>();
    for (const tr of trades) {
      const buy = tr.isBuy;
      for (const res of WALLET_ROLLUP_SECONDS) {
        const t = Math.floor(tr.blockTime / res) * res;
        const key = `${tr.tokenId}|${res}|${t}|${tr.wallet}`;
        let d = wallets.get(key);
        if (d === undefined) wallets.set(key, (d = { tokenId: tr.tokenId, res, t, wallet: tr.wallet, vb: 0, vs: 0, nb: 0, ns: 0 }));
        if (buy) {
          d.vb += tr.volumeUsd;
          d.nb++;
        } else {
          d.vs += tr.volumeUsd;
          d.ns++;
        }
      }
      for (const res of MARKET_ROLLUP_SECONDS) {
        const t = Math.floor(tr.blockTime / res) * res;
        const key = `${tr.tokenId}|${res}|${t}|${tr.market}`;
        let d = markets.get(key);
        if (d === undefined) markets.set(key, (d = { tokenId: tr.tokenId, res, t, market: tr.market, v: 0, n: 0 }));
        d.v += tr.volumeUsd;
        d.n++;
      }
      const wk = `${tr.tokenId}|${tr.wallet}`;
      const wl = walletLast.get(wk);
      if (wl === undefined) walletLast.set(wk, { tokenId: tr.tokenId, wallet: tr.wallet, time: tr.blockTime });
      else if (tr.blockTime > wl.time) wl.time = tr.blockTime;
      const mk = `${tr.tokenId}|${tr.market}`;
      const ml = marketLast.get(mk);
      if (ml === undefined || tr.blockTime > ml.blockTime || (tr.blockTime === ml.blockTime && tr.id > ml.id)) marketLast.set(mk, tr);
    }
    for (const d of wallets.values()) upsertWallet.run(d.tokenId, d.res, d.t, d.wallet, d.vb, d.vs, d.nb, d.ns);
    for (const d of walletLast.values()) upsertWalletLast.run(d.tokenId, d.wallet, d.time);
    for (const d of markets.values()) upsertMarket.run(d.tokenId, d.res, d.t, d.market, d.v, d.n);
    for (const tr of marketLast.values()) upsertMarketLast.run(tr.tokenId, tr.market, tr.blockTime, tr.id, tr.priceUsd);
  };
}

/**
 * Rebuilds every read view from the trades table, in one transaction. For stores whose trades
 * were written around the ingest path (a bulk loader); the same statements as migration 003.
 */
export function rebuildReadViews(db: Db): void {
  db.transaction(() => {
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
