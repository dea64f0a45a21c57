/**
 * The statements of the ingest write path (src/services/ingest.ts), prepared once per store.
 * They are handed over as statements, not wrapped: ingest runs them per record inside its
 * transaction, and a wrapper call per record and statement is measurable there.
 */
import type { Db } from './db.js';

export function createIngestRepo(db: Db) {
  const tokenId = db.prepare<[string], number>('SELECT id FROM tokens WHERE address = ?').pluck();
  const upsertToken = db
    .prepare(
      `
      INSERT INTO tokens (address, symbol, name, decimals, total_supply, circulating_supply, created_at, logo_uri, updated_at, is_demo)
      VALUES (@address, @symbol, @name, @decimals, @totalSupply, @circulatingSupply, @createdAt, @logoUri, @now, @isDemo)
      ON CONFLICT (address) DO UPDATE SET
        symbol = excluded.symbol, name = excluded.name, decimals = excluded.decimals,
        total_supply = excluded.total_supply, circulating_supply = excluded.circulating_supply,
        created_at = excluded.created_at, logo_uri = excluded.logo_uri, updated_at = excluded.updated_at,
        is_demo = excluded.is_demo
      RETURNING id`,
    )
    .pluck();
  const upsertMarket = db.prepare(`
      INSERT INTO markets (address, token_id, quote_address, quote_symbol, dex, liquidity_usd, created_at)
      VALUES (@address, @tokenId, @quoteAddress, @quoteSymbol, @dex, @liquidityUsd, @createdAt)
      ON CONFLICT (address) DO UPDATE SET
        token_id = excluded.token_id, quote_address = excluded.quote_address, quote_symbol = excluded.quote_symbol,
        dex = excluded.dex, liquidity_usd = excluded.liquidity_usd, created_at = excluded.created_at`);
  const marketBefore = db.prepare<[string], { tokenId: number; dex: string }>('SELECT token_id AS tokenId, dex FROM markets WHERE address = ?');
  const insertTrade = db.prepare(`
      INSERT INTO trades (token_id, block_time, signature, idx, is_buy, price_usd, amount, quote_amount, volume_usd, wallet, market)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (signature, idx) DO NOTHING`);
  const upsertHolder = db.prepare(`
      INSERT INTO holders (token_id, owner, amount, updated_at) VALUES (@tokenId, @owner, @amount, @updatedAt)
      ON CONFLICT (token_id, owner) DO UPDATE SET amount = excluded.amount, updated_at = excluded.updated_at`);
  const deleteHolder = db.prepare('DELETE FROM holders WHERE token_id = ? AND owner = ?');
  const touchToken = db.prepare('UPDATE tokens SET updated_at = ? WHERE id = ?');
  const setLastTrade = db.prepare(`
      UPDATE tokens SET price_usd = @priceUsd, last_trade_at = @blockTime, last_trade_id = @id
      WHERE id = @tokenId AND (last_trade_at IS NULL OR (last_trade_at, last_trade_id) < (@blockTime, @id))`);

  return { tokenId, upsertToken, upsertMarket, marketBefore, insertTrade, upsertHolder, deleteHolder, touchToken, setLastTrade };
}
