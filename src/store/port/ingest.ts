/**
 * The ingest contract, owned by the store (docs/architecture.md, The ingest boundary): what the
 * ingest service hands an engine and its hooks, and what an engine gives back. The services'
 * one ingest (src/services/ingest.ts) keeps the rules; each engine (the SQLite
 * repos, src/store/pg/) implements the writer, the engine and its hooks against these types, so
 * nothing in src/store/ imports from above it.
 */
import type { HolderRecord, IngestRecord, MarketRecord, TokenRecord, TradeRecord } from '../../domain/records.js';
import type { RollupDelta } from '../../domain/candles.js';
import type { MarketRollupDelta } from '../../domain/market-candles.js';
import type { ReadViewRows } from '../../domain/read-views.js';
import type { TradeCommitStep } from '../../domain/trade-commits.js';
import type { Async } from './async.js';
import type { IngestTx } from './tx.js';
import type { EngineRetractor, Removal, Retraction } from './retract.js';

export type IngestResult = { accepted: number; duplicates: number };
/**
 * A trade as stored, handed to derived views and hooks: its record with the row's id, its token's
 * id and its side as a flag. toTradeJson (store/trades-repo.ts) turns it, with its market's dex, into the API's form.
 */
export type InsertedTrade = Omit<TradeRecord, 'type'> & { id: number; tokenId: number; isBuy: boolean };

/**
 * How a batch is written. `demo` marks demo records. `within` runs in the batch's transaction
 * after its records and hooks, so a writer's own rows (the chain indexer's position,
 * src/indexer/evm/) commit or roll back with the records; like a hook, it must not answer a
 * promise on SQLite.
 */
export type WriteOptions = { demo?: boolean; within?: (tx: IngestTx) => Promise<void> | void };

/** What a hook is handed: one slice's new trades and touched tokens. */
export type IngestBatch = {
  trades: readonly InsertedTrade[];
  touchedTokens: ReadonlySet<number>;
  now: number;
  /** Whether this is the transaction's first call: a sliced batch calls its hooks once per slice. */
  first: boolean;
};

/**
 * Runs inside the ingest transaction after a slice's records are written (docs/architecture.md,
 * The ingest boundary). Hooks keep views that ingest must update atomically (events, read
 * views, ...). `tx` names the engine and, on PostgreSQL, the transaction's client: a hook that
 * writes builds its statements on it. On SQLite the transaction is synchronous: a hook must
 * answer undefined there (it runs its statements at once); on PostgreSQL it may answer a promise.
 * Hooks that write nothing (metrics, caches) take the batch alone.
 */
export type IngestHook = (batch: IngestBatch, tx: IngestTx) => Promise<void> | void;

/** A hook of the SQLite store: its statements are its own, it needs no handle and never awaits. */
export type SqliteIngestHook = (batch: IngestBatch) => void;

// The transaction hooks run in is its own file (tx.ts), which the retraction's contract shares.
export type { IngestTx } from './tx.js';

/** One slice's records by kind, each list in record order. */
export type SliceRows = {
  now: number;
  demo: boolean;
  tokens: readonly TokenRecord[];
  markets: readonly MarketRecord[];
  holders: readonly HolderRecord[];
  trades: readonly TradeRecord[];
};

/** A market row as it stood: its token and dex. */
export type MarketBefore = { tokenId: number; dex: string };

/** What storing a slice's rows answered. */
export type SliceWritten = {
  /** The id of every token the slice names (defined in it or referenced by its rows). */
  ids: ReadonlyMap<string, number>;
  /** For markets[i]: the row just before it was applied (earlier rows of the slice included), or undefined when new. */
  marketsBefore: readonly (MarketBefore | undefined)[];
  /** For trades[i]: its new record number, or null when it was stored already (or earlier in the slice). */
  tradeIds: readonly (number | null)[];
};

/** The rows that follow from a slice's new trades and touched tokens. */
export type SliceDerived = {
  now: number;
  candles: readonly RollupDelta[];
  marketCandles: readonly MarketRollupDelta[];
  /** Each token's newest new trade in trade order: its price and last trade move when it is newer. */
  last: readonly InsertedTrade[];
  touched: ReadonlySet<number>;
};

/**
 * An engine's writer, bound to one transaction. Rows are applied in record order within each
 * kind, tokens first, then markets, holders and trades (validation guarantees a row's token is
 * defined before it or already stored, so this order gives the same rows as record order).
 */
export type IngestWriter = {
  rows(slice: SliceRows): SliceWritten;
  derived(d: SliceDerived): void;
};

/** What one slice wrote, and which tokens it changed (for the caches, after the commit). */
export type SliceResult = IngestResult & { change: Set<number> | 'all' };

/** Adds what one slice wrote to `sum` (the batch's total so far). */
export function addSlice(sum: SliceResult, r: SliceResult): void {
  sum.accepted += r.accepted;
  sum.duplicates += r.duplicates;
  if (r.change === 'all') sum.change = 'all';
  else if (sum.change !== 'all') for (const id of r.change) sum.change.add(id);
}

/**
 * The engine's half of a retraction on SQLite: EngineRetractor (src/store/port/retract.ts)
 * answering at once, inside the one connection's write transaction.
 */
export type SyncRetractor = {
  remove(r: Pick<Retraction, 'trades' | 'markets' | 'tokens'>, now: number): Removal;
  settle(touched: ReadonlySet<number>, now: number): void;
  addresses(ids: ReadonlySet<number>): string[];
};

/**
 * What an engine gives the one ingest (src/services/ingest.ts). The steps of a batch and of a
 * retraction are written once there; an engine answers their calls either at once (SQLite: a
 * better-sqlite3 transaction cannot await, so the ingest answers `write` synchronously) or as
 * promises (PostgreSQL), and says which by `sync`.
 */
export type IngestEngine = SyncIngestEngine | AsyncIngestEngine;

/** An engine that answers at once, on one connection (SQLite). */
export type SyncIngestEngine = {
  readonly sync: true;
  /** Records per slice of a sliced write. */
  readonly slice: number;
  /** The handle hooks are given: the one connection needs none. */
  readonly tx: IngestTx;
  readonly writer: IngestWriter;
  readonly retractor: SyncRetractor;
  /** Whether `address` is a stored token, a stored market (the validator asks per record). */
  isToken(address: string): boolean;
  isMarket(address: string): boolean;
  /**
   * `fn` as one write transaction of an ingest batch (a savepoint inside a sliced write): its
   * statements each change a few pages, so their statement journals are kept in memory.
   */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  /** `fn` as one write transaction of a retraction, whose statements may change a whole token's pages. */
  retractTransaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  /**
   * Writes `records` as ONE transaction held open across turns of the event loop, `slice` at a
   * time through `writeSlice`, readers waiting on `settled()` meanwhile; `committed` runs after the
   * COMMIT and before those readers resume.
   */
  sliced(writeSlice: (slice: readonly NumberedRecord[]) => void, records: readonly NumberedRecord[], committed: () => void): Promise<void>;
  /** The store's gate for writes held open across awaits (StoreHandle.exclusive, settled). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  settled(): Promise<void> | null;
};

/** An engine whose every call answers a promise (PostgreSQL). */
export type AsyncIngestEngine = {
  readonly sync: false;
  /** Runs `fn` as one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: IngestTx, writer: Async<IngestWriter>) => Promise<T>): Promise<T>;
  /** Which of `addresses` are stored tokens (one read for a whole batch's validation). */
  storedTokens(addresses: readonly string[]): Promise<ReadonlySet<string>>;
  /** Which of `addresses` are stored markets (one read for a whole batch's validation). */
  storedMarkets(addresses: readonly string[]): Promise<ReadonlySet<string>>;
  /** Records per slice. */
  readonly slice: number;
  /** The engine's half of a retraction, on the transaction `tx` of transaction() (docs/indexer.md, Reorgs). */
  retractor(tx: IngestTx): EngineRetractor;
};

/** A validated record and its line in the batch (1-based), as the writer's slices carry them. */
export type NumberedRecord = { line: number; record: IngestRecord };

/** An answer now (SQLite) or later (PostgreSQL). */
export type Answer<T> = T | Promise<T>;

/** A subscription to a token, as the events an ingest writes name it. */
export type EventSubscriber = { subscriptionId: string; tenantId: string; webhookUrl: string | null };

/**
 * The reads and writes of the events hooks (src/services/events.ts) on one transaction: on SQLite
 * the store's statements, answering at once; on PostgreSQL the repos on the transaction's client,
 * so events are numbered in commit order.
 */
export type EventsWriter = {
  /** Whether any tenant subscribes to anything (no events are written when none does). */
  any(): Answer<boolean>;
  subscribers(token: string): Answer<EventSubscriber[]>;
  dexOf(market: string): Answer<string | null>;
  /** Inserts an event; its id. */
  insert(tenantId: string, token: string, createdAt: number, data: string): Answer<number>;
  /** Queues an event's webhook delivery. */
  enqueue(eventId: number, subscriptionId: string, dueAt: number, deadlineAt: number): Answer<void>;
};

/**
 * An engine's appliers of the rows ingest derives for its views (docs/architecture.md, The ingest
 * boundary): the rows are computed once, engine-free (src/domain/read-views.ts,
 * src/domain/trade-commits.ts, the events of src/services/events.ts), in the one list of view
 * hooks (src/services/ingest-hooks.ts); each engine writes them with its own SQL on `tx`. On
 * SQLite every applier answers at once.
 */
export type IngestViews = {
  /** wallet_last, market_rollups and market_last rows of a slice's new trades. */
  readViews(tx: IngestTx, rows: ReadViewRows): Answer<void>;
  /** A slice's trade_commits step. */
  tradeCommit(tx: IngestTx, step: TradeCommitStep): Answer<void>;
  /** The search index rows and the token change log of the slice's touched tokens. */
  discovery(tx: IngestTx, batch: IngestBatch): Answer<void>;
  /** The events hooks' reads and writes on `tx`. */
  events(tx: IngestTx): EventsWriter;
};
