/**
 * The retraction contract, owned by the store (docs/indexer.md, Reorgs): taking trades back out of
 * the store, with everything derived from them, when the chain indexer finds that the blocks
 * holding them were orphaned. It is the ingest's mirror: one transaction on either engine, hooks
 * that run inside it (events), a log of removals that every instance's stream reads, and the same
 * change notice after the commit (caches, the bus).
 */
import type { IngestRecord } from '../../domain/records.js';
import type { IngestTx } from './tx.js';

/** A trade's identity in ingest records: `(signature, index)`. */
export type TradeKey = { signature: string; index: number };

/** What one retraction removes, and what it writes back, in one transaction. */
export type Retraction = {
  /** Trades to remove, by identity; keys not in the store are ignored. */
  trades: readonly TradeKey[];
  /** Markets to delete once their trades are gone (those first seen in the orphaned blocks). */
  markets: readonly string[];
  /** Tokens to delete with every row of theirs (those first seen in the orphaned blocks). */
  tokens: readonly string[];
  /**
   * Records written after the removal in the same transaction, validated like any ingest's:
   * holders and token supplies as they were before the orphaned blocks, markets' liquidity.
   * No trades.
   */
  records: readonly IngestRecord[];
};

/** A removed trade, as retract hooks, the stream and the events see it. */
export type RemovedTrade = {
  id: number;
  tokenId: number;
  token: string;
  market: string;
  signature: string;
  index: number;
  blockTime: number;
  wallet: string;
};

/** What a retract hook is handed: the removed trades and every token the retraction touched. */
export type RetractBatch = {
  trades: readonly RemovedTrade[];
  /** Ids of tokens whose rows changed (trades removed, records written back); deleted tokens included. */
  touchedTokens: ReadonlySet<number>;
  /** Addresses of the tokens deleted whole. */
  deletedTokens: readonly string[];
  now: number;
};

/** Runs inside the retraction's transaction, like an IngestHook (no promise on SQLite). */
export type RetractHook = (batch: RetractBatch, tx: IngestTx) => Promise<void> | void;

export type RetractResult = {
  /** Trades removed. */
  removed: number;
  /** Addresses of the tokens touched (see RetractBatch.touchedTokens), sorted. */
  tokens: string[];
};

/** How a retraction is written: `within` runs in its transaction last (the indexer's position). */
export type RetractOptions = { within?: (tx: IngestTx) => Promise<void> | void };

/**
 * One entry of the store's removal log: every removed trade, in removal order, `seq` increasing.
 * The stream of every instance reads the entries after the last it saw when a change notice
 * arrives, and tells its trades subscribers (`removed`) and bars subscribers (`reset`, reason
 * `reorg`).
 */
export type RemovalLogEntry = { seq: number; tradeId: number; tokenId: number; signature: string; index: number };

/** The reads of the removal log, on either engine. */
export type RemovalLogReads = {
  /** The newest entry's seq, 0 when the log is empty. */
  lastRemovalSeq(): Promise<number>;
  /** Entries with seq > `after`, oldest first, at most `limit`. */
  removalsAfter(after: number, limit: number): Promise<RemovalLogEntry[]>;
};

/** What a removal did, before any record is written back (the engines' part of a retraction). */
export type Removal = {
  trades: RemovedTrade[];
  touched: Set<number>;
  deletedTokens: string[];
  /**
   * Markets deleted (named, or a deleted token's). Any token's trades may name a market and show
   * its dex, so a deleted one changes every token's answers, as a new market does at ingest.
   */
  deletedMarkets: number;
};

/**
 * An engine's half of a retraction, bound to the ingest transaction it runs in: `remove`, then
 * the records written back through the ingest's writer, then `settle`.
 */
export type EngineRetractor = {
  /** Removes the trades, markets and tokens of `r` (logged in the removal log) and recomputes what held them. */
  remove(r: Pick<Retraction, 'trades' | 'markets' | 'tokens'>, now: number): Promise<Removal>;
  /** Logs the touched tokens in the token change log and refreshes their search rows. */
  settle(touched: ReadonlySet<number>, now: number): Promise<void>;
  /** The addresses of the tokens of `ids` that still exist. */
  addresses(ids: ReadonlySet<number>): Promise<string[]>;
};
