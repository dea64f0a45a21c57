/**
 * The live stream's reads on PostgreSQL: the twin of createStreamRepo() in
 * src/store/sqlite/stream-repo.ts (same answers for the same calls, each a promise), and the twin of its
 * trade commits applier, which records on the ingest's transaction client where each transaction's
 * trades end (one row per transaction however many slices it writes).
 */
import type { Async } from '../port/async.js';
import { KEEP_COMMITS, type TradeCommitStep } from '../../domain/trade-commits.js';
import type { StreamRepo } from '../port/repos.js';
import { toTradeJson, type TradeRowLike } from '../../domain/trade-json.js';
import { row, rows, type Queryable } from './pg-repo.js';
import { defer } from './deferred-writes.js';

export type PgStreamRepo = Async<StreamRepo>;

const COLUMNS = `t.id, t.signature, t.idx AS "index", t.block_time AS "blockTime", t.is_buy AS "isBuy", t.price_usd AS "priceUsd",
  t.amount, t.quote_amount AS "quoteAmount", t.volume_usd AS "volumeUsd", t.wallet, t.market, m.dex`;

export function createPgStreamRepo(db: Queryable): PgStreamRepo {
  return {
    tradesAfter: async (tokenId, afterId, upTo, limit) =>
      (
        await rows<TradeRowLike>(
          db,
          `SELECT ${COLUMNS} FROM trades t LEFT JOIN markets m ON m.address = t.market
           WHERE t.token_id = $1 AND t.id > $2 AND t.id <= $3 ORDER BY t.id LIMIT $4`,
          [tokenId, afterId, upTo, limit],
        )
      ).map(toTradeJson),
    commitEnds: async (from, to) =>
      (await rows<{ id: number }>(db, 'SELECT last_id AS id FROM trade_commits WHERE last_id >= $1 AND last_id < $2 ORDER BY last_id', [from, to])).map(
        (r) => r.id,
      ),
    maxTradeId: async (tokenId) => (await row<{ n: number | null }>(db, 'SELECT max(id) AS n FROM trades WHERE token_id = $1', [tokenId]))!.n ?? 0,
  };
}

/** The applier of the trade_commits steps (src/domain/trade-commits.ts) on the ingest's transaction client. */
export async function pgWriteTradeCommit(client: Queryable, step: TradeCommitStep): Promise<void> {
  // The step waits for the transaction's next statement (src/store/pg/deferred-writes.ts): it answers nothing.
  if (step.kind === 'move') {
    await defer(client, [{ sql: 'UPDATE trade_commits SET last_id = $1 WHERE last_id = $2', params: [step.last, step.from] }]);
    return;
  }
  await defer(client, [{ sql: 'INSERT INTO trade_commits (last_id) VALUES ($1)', params: [step.last] }]);
  if (step.prune) {
    // A statement of its own, after the insert has gone out (query() sends it first): it counts that row.
    await client.query('DELETE FROM trade_commits WHERE last_id < (SELECT last_id FROM trade_commits ORDER BY last_id DESC LIMIT 1 OFFSET $1)', [KEEP_COMMITS]);
  }
}
