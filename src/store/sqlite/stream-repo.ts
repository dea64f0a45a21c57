/**
 * The reads of the live stream (docs/api.md, Live stream): a token's trades after a record number, in
 * the JSON form T, the newest trade id of a token, and where one ingest transaction's trades end
 * (the trade_commits table of migration 012, kept by the ingest hook below). The stream learns
 * what an ingest added by reading `id > last id delivered`, so it needs nothing from the ingest
 * path but its commit notification and those ends.
 */
import type { Db } from './db.js';
import type { SqliteIngestHook } from '../port/ingest.js';
import { toTradeJson, type StreamRepo, type TradeJson, type TradeRowLike } from '../port/trades.js';

// The interface and row types are the port's (src/store/port/trades.ts), named here too.
export type { StreamRepo } from '../port/trades.js';

/** Commit rows kept: the stream only ever asks about the last few seconds of commits. */
const KEEP_COMMITS = 100_000;
/** Prune once every this many transactions. */
const PRUNE_EVERY = 1000;

/**
 * The ingest hook that records, in the write transaction, the highest trade id the transaction
 * added. A sliced batch calls it once per slice; its first slice opens the row, later ones move
 * its end, so one transaction is always one row.
 */
export function tradeCommitsHook(db: Db): SqliteIngestHook {
  const insert = db.prepare<[number]>('INSERT INTO trade_commits (last_id) VALUES (?)');
  const move = db.prepare<[number, number]>('UPDATE trade_commits SET last_id = ? WHERE last_id = ?');
  const prune = db.prepare<[number]>('DELETE FROM trade_commits WHERE last_id < (SELECT last_id FROM trade_commits ORDER BY last_id DESC LIMIT 1 OFFSET ?)');
  let open: number | null = null;
  let transactions = 0;
  return (batch) => {
    if (batch.first) open = null;
    if (batch.trades.length === 0) return;
    let last = 0;
    for (const t of batch.trades) if (t.id > last) last = t.id;
    if (open === null) {
      insert.run(last);
      if (++transactions % PRUNE_EVERY === 0) prune.run(KEEP_COMMITS);
    } else move.run(last, open);
    open = last;
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
