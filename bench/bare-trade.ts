/**
 * The bare trade insert of the ingest figures' reference sides (bench/ingest-rate.ts in process,
 * bench/ingest-bare.ts as a process of its own): one prepared INSERT a trade into the store's
 * trades table, nothing else. Kept apart from both so the bare process loads no more than it uses.
 */
import type { Database } from 'better-sqlite3';
import type { TradeRecord } from '../src/domain/records.js';

/** Inserts one trade record as a row of `tokenId`'s trades. */
export function bareTradeInsert(db: Database): (r: TradeRecord, tokenId: number | undefined) => void {
  const insert = db.prepare(`INSERT INTO trades (token_id, block_time, signature, idx, is_buy, price_usd, amount, quote_amount, volume_usd, wallet, market)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  return (r, tokenId) => {
    insert.run(tokenId, r.blockTime, r.signature, r.index, r.side === 'buy' ? 1 : 0, r.priceUsd, r.amount, r.quoteAmount, r.volumeUsd, r.wallet, r.market);
  };
}
