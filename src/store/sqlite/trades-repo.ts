/**
 * Trade reads: keyset pages of a token's trades, newest first in trade order (blockTime, id). The
 * one mapping from a stored trade to its JSON form T (docs/api.md, Token reads), shared with the
 * webhook events and the stream, is src/domain/trade-json.ts (re-exported here).
 */
import type { Db } from './db.js';
import { pageStart } from '../../domain/trade-page.js';
import { toTradeJson, type TradeJson, type TradeRowLike } from '../../domain/trade-json.js';
import type { PricePoint, TradeFilter, TradePosition, TradesRepo } from '../port/trades.js';

export { toTradeJson, type TradeJson, type TradeRowLike };

// The interface and row types are the port's (src/store/port/trades.ts), named here too.
export type { PricePoint, TradeFilter, TradePosition, TradesRepo } from '../port/trades.js';

const COLUMNS = `t.id, t.signature, t.idx AS "index", t.block_time AS blockTime, t.is_buy AS isBuy, t.price_usd AS priceUsd,
  t.amount, t.quote_amount AS quoteAmount, t.volume_usd AS volumeUsd, t.wallet, t.market, m.dex`;

type PageParams = { tokenId: number; blockTime: number; id: number; after: number; bound: number; limit: number; isBuy: number; wallet: string };

export function createTradesRepo(db: Db): TradesRepo {
  // One statement per filter, each a seek on the index that leads with its equality columns and
  // ends in (block_time, id), read backwards: a page deep in the history costs what the first does.
  const page = (index: string, extra: string) =>
    db.prepare<[PageParams], TradeRowLike>(
      `SELECT ${COLUMNS} FROM trades t INDEXED BY ${index} LEFT JOIN markets m ON m.address = t.market
       WHERE t.token_id = @tokenId ${extra} AND (t.block_time, t.id) < (@blockTime, @id) AND t.block_time >= @after AND t.id <= @bound
       ORDER BY t.block_time DESC, t.id DESC LIMIT @limit`,
    );
  const all = page('trades_token_time', '');
  const bySide = page('trades_token_side_time', 'AND t.is_buy = @isBuy');
  const byWallet = page('trades_token_wallet_time', 'AND t.wallet = @wallet');
  const byWalletSide = page('trades_token_wallet_time', 'AND t.wallet = @wallet AND t.is_buy = @isBuy');
  const maxId = db.prepare<[], number | null>('SELECT max(id) FROM trades').pluck();
  const lastAt = db.prepare<[number, number], PricePoint>(
    `SELECT price_usd AS priceUsd, block_time AS blockTime, id AS tradeId FROM trades INDEXED BY trades_token_time
     WHERE token_id = ? AND block_time <= ? ORDER BY block_time DESC, id DESC LIMIT 1`,
  );
  const dex = db.prepare<[string], string>('SELECT dex FROM markets WHERE address = ?').pluck();

  return {
    /** The highest trade id in the store (0 when there is none): the snapshot bound of a new walk. */
    maxId: (): number => maxId.get() ?? 0,

    /**
     * Up to `limit` trades of the token matching `filter`, newest first, strictly before `after`
     * (from the newest when null) and with id <= `bound`.
     */
    page(tokenId: number, filter: TradeFilter, after: TradePosition | null, bound: number, limit: number): TradeRowLike[] {
      const pos = pageStart(after, filter.before);
      const params: PageParams = {
        tokenId,
        blockTime: pos.blockTime,
        id: pos.id,
        after: filter.after ?? 0,
        bound,
        limit,
        isBuy: filter.side === 'buy' ? 1 : 0,
        wallet: filter.wallet ?? '',
      };
      const stmt = filter.wallet !== null ? (filter.side !== null ? byWalletSide : byWallet) : filter.side !== null ? bySide : all;
      return stmt.all(params);
    },

    /** The last trade of the token at or before `time` in trade order (one index seek), or null. */
    lastAtOrBefore: (tokenId: number, time: number): PricePoint | null => lastAt.get(tokenId, time) ?? null,

    /** The dex of the market with this address, or null when the market is unknown. */
    dexOf: (market: string): string | null => dex.get(market) ?? null,
  };
}
