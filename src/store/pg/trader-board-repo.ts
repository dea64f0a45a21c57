/**
 * The top-traders board's reads on PostgreSQL: the twin of src/store/sqlite/trader-board-repo.ts (same
 * answers for the same calls, each a promise). Pages are keyset pages in trade order over
 * trades_token_time, or by id over the primary key; "ids up to maxId" stays a snapshot because
 * trades are numbered in inWriteOrder() transactions (src/store/pg/write-order.ts).
 */
import type { Async } from '../port/async.js';
import type { BoardTrade, RemovedBoardTrade, TraderBoardRepo } from '../port/repos.js';
import { limitParam, row, type Queryable } from './pg-repo.js';

const BY_TIME = `SELECT id, block_time, wallet, is_buy, volume_usd FROM trades
  WHERE token_id = $1 AND (block_time, id) > ($2, $3) AND block_time <= $4 AND id <= $5
  ORDER BY block_time, id LIMIT $6`;
const BY_ID = `SELECT id, block_time, wallet, is_buy, volume_usd FROM trades
  WHERE id > $2 AND id <= $3 AND token_id = $1 ORDER BY id LIMIT $4`;

export type PgTraderBoardRepo = Async<TraderBoardRepo>;

export function createPgTraderBoardRepo(db: Queryable): PgTraderBoardRepo {
  const trades = async (text: string, values: unknown[]): Promise<BoardTrade[]> => (await db.query<BoardTrade>({ text, values, rowMode: 'array' })).rows;
  return {
    maxId: async () =>
      (await row<{ n: number | null }>(db, 'SELECT greatest((SELECT max(id) FROM trades), (SELECT id FROM trade_id_floor WHERE one = 1)) AS n'))!.n ?? 0,
    lastRemovalSeq: async () => (await row<{ n: number | null }>(db, 'SELECT max(seq) AS n FROM removal_log'))!.n ?? 0,
    removedAfter: async (tokenId, afterSeq, limit) =>
      (
        await db.query<RemovedBoardTrade>({
          text: `SELECT seq, trade_id, block_time, wallet, is_buy, volume_usd FROM removal_log
                 WHERE seq > $2 AND token_id = $1 ORDER BY seq LIMIT $3`,
          values: [tokenId, afterSeq, limitParam(limit)],
          rowMode: 'array',
        })
      ).rows,
    pageByTime: (tokenId, afterTime, afterId, to, maxId, limit) =>
      trades(BY_TIME, [tokenId, afterTime, afterId === Infinity ? Number.MAX_SAFE_INTEGER : afterId, to, maxId, limitParam(limit)]),
    pageById: (tokenId, afterId, maxId, limit) => trades(BY_ID, [tokenId, afterId, maxId, limitParam(limit)]),
    /** PostgreSQL's plans of the two pages (its own wording: not comparable with SQLite's). */
    async plans() {
      const out: string[] = [];
      for (const [sql, values] of [
        [BY_TIME, [1, 0, 0, 0, 0, 1]],
        [BY_ID, [1, 0, 0, 1]],
      ] as const) {
        const plan = await db.query<[string]>({ text: `EXPLAIN ${sql}`, values: [...values], rowMode: 'array' });
        out.push(plan.rows.map((r) => r[0].trim()).join('; '));
      }
      return out;
    },
  };
}
