/**
 * The reads of the live stream (docs/api.md, Live stream): a token's trades after a record number, in
 * the JSON form T, and the newest trade id of a token. The stream learns what an ingest added by
 * reading `id > last id delivered`, so it needs nothing from the ingest path but its commit
 * notification.
 */
import type { Db } from './db.js';
import { toTradeJson, type TradeJson, type TradeRowLike } from './trades-repo.js';

const COLUMNS = `t.id, t.signature, t.idx AS "index", t.block_time AS blockTime, t.is_buy AS isBuy, t.price_usd AS priceUsd,
  t.amount, t.quote_amount AS quoteAmount, t.volume_usd AS volumeUsd, t.wallet, t.market, m.dex`;

export function createStreamRepo(db: Db) {
  const after = db.prepare<[number, number, number, number], TradeRowLike>(
    `SELECT ${COLUMNS} FROM trades t LEFT JOIN markets m ON m.address = t.market
     WHERE t.token_id = ? AND t.id > ? AND t.id <= ? ORDER BY t.id LIMIT ?`,
  );
  const maxId = db.prepare<[number], number | null>('SELECT max(id) FROM trades WHERE token_id = ?').pluck();

  return {
    /** Trades of the token with afterId < id <= upTo, ascending by id, at most `limit`. */
    tradesAfter(tokenId: number, afterId: number, upTo: number, limit: number): TradeJson[] {
      return after.all(tokenId, afterId, upTo, limit).map(toTradeJson);
    },
    /** The highest trade id of the token (0 when it has none). */
    maxTradeId: (tokenId: number): number => maxId.get(tokenId) ?? 0,
  };
}

export type StreamRepo = ReturnType<typeof createStreamRepo>;
