/**
 * The reads behind the top-traders board (src/read/trader-board.ts, docs/api.md, Token reads):
 * a token's trades by time range or by record number, in pages, so the board is built and brought
 * forward in slices that yield to the event loop. Record numbers (trade ids) are assigned in
 * commit order, whichever process writes, so "ids up to L" is a snapshot that later writes never
 * change, and "ids after L" is exactly what was written since.
 */
import type { Db } from './db.js';
import type { BoardTrade, RemovedBoardTrade, TraderBoardRepo } from '../port/trades.js';

// The interface and row types are the port's (src/store/port/trades.ts), named here too.
export type { BoardTrade, RemovedBoardTrade, TraderBoardRepo } from '../port/trades.js';

export function createTraderBoardRepo(db: Db): TraderBoardRepo {
  // Keyset pages in trade order over trades_token_time; ids above `maxId` are left out.
  const byTime = db
    .prepare<[{ tokenId: number; afterTime: number; afterId: number; to: number; maxId: number; limit: number }], BoardTrade>(
      `SELECT id, block_time, wallet, is_buy, volume_usd FROM trades
       WHERE token_id = @tokenId AND (block_time, id) > (@afterTime, @afterId) AND block_time <= @to AND id <= @maxId
       ORDER BY block_time, id LIMIT @limit`,
    )
    .raw();
  // Pages by id: the rowid range written since the board last looked, other tokens' rows skipped.
  // `+token_id` keeps the planner off trades_token_time, which would walk all of the token's trades.
  const byId = db
    .prepare<[{ tokenId: number; afterId: number; maxId: number; limit: number }], BoardTrade>(
      `SELECT id, block_time, wallet, is_buy, volume_usd FROM trades
       WHERE id > @afterId AND id <= @maxId AND +token_id = @tokenId ORDER BY id LIMIT @limit`,
    )
    .raw();
  // Above every number ever handed out, removed trades' included (migration 017): a removal of the
  // newest trades does not move it back, so a board takes it back out instead of rebuilding.
  const maxId = db.prepare<[], number | null>('SELECT max(coalesce((SELECT max(id) FROM trades), 0), (SELECT id FROM trade_id_floor WHERE one = 1))').pluck();
  const lastRemoval = db.prepare<[], number | null>('SELECT max(seq) FROM removal_log').pluck();
  const removed = db
    .prepare<[{ tokenId: number; afterSeq: number; limit: number }], RemovedBoardTrade>(
      `SELECT seq, trade_id, block_time, wallet, is_buy, volume_usd FROM removal_log
       WHERE seq > @afterSeq AND token_id = @tokenId ORDER BY seq LIMIT @limit`,
    )
    .raw();

  return {
    /** The newest trade id the store ever handed out (0 when none). */
    maxId: (): number => maxId.get() ?? 0,
    /** The newest entry of the removal log (0 when it is empty). */
    lastRemovalSeq: (): number => lastRemoval.get() ?? 0,
    /** Up to `limit` trades of the token removed after the removal log entry `afterSeq`, in log order. */
    removedAfter: (tokenId: number, afterSeq: number, limit: number): RemovedBoardTrade[] => removed.all({ tokenId, afterSeq, limit }),
    /**
     * Up to `limit` trades of the token with blockTime in (from, to] and id <= maxId, in trade
     * order, after the position (afterTime, afterId); start with (from, +Infinity).
     */
    pageByTime: (tokenId: number, afterTime: number, afterId: number, to: number, maxId: number, limit: number): BoardTrade[] =>
      byTime.all({ tokenId, afterTime, afterId: afterId === Infinity ? Number.MAX_SAFE_INTEGER : afterId, to, maxId, limit }),
    /** Up to `limit` trades of the token with afterId < id <= maxId, by id. */
    pageById: (tokenId: number, afterId: number, maxId: number, limit: number): BoardTrade[] => byId.all({ tokenId, afterId, maxId, limit }),
    /** The query plans, for the test that pins each page to an index range. */
    plans: (): string[] =>
      [byTime.source, byId.source].map((sql) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ tokenId: 1, afterTime: 0, afterId: 0, to: 0, maxId: 0, limit: 1 }) as { detail: string }[])
          .map((r) => r.detail)
          .join('; '),
      ),
  };
}
