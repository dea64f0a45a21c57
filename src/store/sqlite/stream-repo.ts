/**
 * The reads of the live stream (docs/api.md, Live stream): a token's trades after a record number, in
 * the JSON form T, the newest trade id of a token, and where one ingest transaction's trades end
 * (the trade_commits table of migration 012, written by the applier below). The stream learns
 * what an ingest added by reading `id > last id delivered`, so it needs nothing from the ingest
 * path but its commit notification and those ends.
 */
import type { Db } from './db.js';
import { KEEP_COMMITS, type TradeCommitStep } from '../../domain/trade-commits.js';
import { toTradeJson, type TradeJson, type TradeRowLike } from '../../domain/trade-json.js';
import type { StreamRepo } from '../port/trades.js';

// The interface and row types are the port's (src/store/port/trades.ts), named here too.
export type { StreamRepo } from '../port/trades.js';

/**
 * The applier of the trade_commits steps (src/domain/trade-commits.ts, computed once for both
 * engines), in the write transaction: one row per ingest transaction, its end the highest trade
 * id the transaction added.
 */
export function tradeCommitsWriter(db: Db): (step: TradeCommitStep) => void {
  const insert = db.prepare<[number]>('INSERT INTO trade_commits (last_id) VALUES (?)');
  const move = db.prepare<[number, number]>('UPDATE trade_commits SET last_id = ? WHERE last_id = ?');
  const prune = db.prepare<[number]>('DELETE FROM trade_commits WHERE last_id < (SELECT last_id FROM trade_commits ORDER BY last_id DESC LIMIT 1 OFFSET ?)');
  return (step) => {
    if (step.kind === 'move') {
      move.run(step.last, step.from);
      return;
    }
    insert.run(step.last);
    if (step.prune) prune.run(KEEP_COMMITS);
  };
}

const COLUMNS = `t.id, t.signature, t.idx AS "index", t.block_time AS blockTime, t.is_buy AS isBuy, t.price_usd AS priceUsd,
  t.amount, t.quote_amount AS quoteAmount, t.volume_usd AS volumeUsd, t.wallet, t.market, m.dex`;

export function createStreamRepo(db: Db): StreamRepo {
  const after = db.prepare<[number, number, number, number], TradeRowLike>(
    `SELECT ${COLUMNS} FROM trades t LEFT JOIN markets m ON m.address = t.market
     WHERE t.token_id = ? AND t.id > ? AND t.id <= ? ORDER BY t.id LIMIT ?`,
  );
  const maxId = db.prepare<[number], number | null>('SELECT max(id) FROM trades WHERE token_id = ?').pluck();
  const ends = db.prepare<[number, number], number>('SELECT last_id FROM trade_commits WHERE last_id >= ? AND last_id < ? ORDER BY last_id').pluck();

  return {
    /** Trades of the token with afterId < id <= upTo, ascending by id, at most `limit`. */
    tradesAfter(tokenId: number, afterId: number, upTo: number, limit: number): TradeJson[] {
      return after.all(tokenId, afterId, upTo, limit).map(toTradeJson);
    },
    /**
     * The ends of the transactions that end at or after trade `from` and before trade `to`: the
     * trades from..to split after each (ends pruned away, or of trades written before migration
     * 012, are not known: those trades read as one transaction).
     */
    commitEnds: (from: number, to: number): number[] => ends.all(from, to),
    /** The highest trade id of the token (0 when it has none). */
    maxTradeId: (tokenId: number): number => maxId.get(tokenId) ?? 0,
  };
}
