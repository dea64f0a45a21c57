/**
 * What the rest of the code needs of a storage engine besides its store handle
 * (docs/architecture.md, The store port): opening a store from the configuration (migrating it),
 * its repos, its ingest engine, its job locks, which of its errors mean "unavailable now", and
 * the size of its write-ahead log for /metrics. Operations only some engines have (an online
 * backup of a file, giving space back after a large delete, the in-use check of a store file,
 * a longer busy timeout for the CLI) are optional members: a caller tests for one and refuses
 * with a clear message when the engine lacks it.
 *
 * Each engine folder exports one object of this type (src/store/sqlite/engine.ts,
 * src/store/pg/engine.ts); src/open-store.ts is the one file above src/store/ that picks one.
 */
import type { Repos } from './repos.js';
import type { Chains } from '../../domain/chains.js';
import type { StoreHandle, StoreKind } from './handle.js';
import type { IngestEngine, IngestViews } from './ingest.js';
import type { Bus, BusOptions } from './bus.js';

/** A store whose schema is newer than this code: the process refuses to start (every engine). */
export class SchemaTooNewError extends Error {}

/** Where the configuration points the store (README, Configuration). */
export type StoreTarget = { databasePath: string; databaseUrl: string | null; instanceId: string };

/** The jobs one instance runs for the whole deployment (docs/operations.md, Many instances: work done once). */
export type Job = 'demoLoad' | 'demoFeed' | 'pruneEvents' | 'indexer';

/** A job held by this instance while `held()`, until stopped. */
export type JobLock = {
  /** Whether this instance holds the job now. */
  held(): boolean;
  /** Gives the job up (unlocking it at once) and stops trying. */
  stop(): Promise<void>;
};

export type JobLockRequest = {
  job: Job;
  /** The instance's name (INSTANCE_ID). */
  instanceId: string;
  /** How often a waiting instance tries, and a holder checks its hold (engine default when absent). */
  intervalMs?: number;
  /** Told when this instance gains (true) or loses (false) the job. */
  onChange?: (held: boolean) => void;
};

/** A copy that was refused before any row moved (the target is not empty, ...): its message says why. */
export class CopyRefused extends Error {}

/** The target of a copy could not be reached: its message is the connection's error. */
export class CopyTargetUnreachable extends Error {}

/** What a copy moved: rows per table and in all. */
export type CopyResult = { tables: Record<string, number>; rows: number };

/** What giving a store file's space back did. */
export type Reclaimed = { fileBytesBefore: number; fileBytesAfter: number; walBytesBefore: number; walBytesAfter: number; vacuumed: boolean };

/**
 * One storage engine. Its members take the engine's own store type `S`; they are written as
 * methods so an engine of a narrower store still is a `StoreEngine` of the handle.
 */
export type StoreEngine<S extends StoreHandle = StoreHandle> = {
  readonly kind: StoreKind;
  /** The configuration variable that names this engine's store, for messages (never its value). */
  readonly variable: 'DATABASE_PATH' | 'DATABASE_URL';
  /** Opens the store `target` names and migrates it; throws SchemaTooNewError for a newer schema. */
  open(target: StoreTarget): Promise<S>;
  /** Why opening failed, as the end of a message that starts with the variable and its value. */
  openFailure(err: unknown): string;
  /** The repos of `store`; `chains` (or one chain's name) are the deployment's chains, for the symbols repo. */
  repos(store: S, chains: Chains | string): Repos;
  /** The engine's half of ingest (src/store/port/ingest.ts): its transactions, writer and retractor. */
  ingestEngine(store: S): IngestEngine;
  /** The appliers of the rows ingest derives for its views, events included (src/store/port/ingest.ts). */
  ingestViews(store: S): IngestViews;
  /**
   * Holds `req.job` for this instance among all instances of the store. Absent where one
   * instance is all there is: it runs every job itself.
   */
  jobLock?(store: S, req: JobLockRequest): JobLock;
  /**
   * The change bus of the store's own database, where instances tell each other what they wrote
   * (docs/operations.md, Many instances). Absent where one process is all there is (SQLite sees
   * other processes' commits by itself).
   */
  openBus?(store: S, opts: BusOptions): Promise<Bus>;
  /** Whether `err` means the store cannot be used now (a passing state: 503 with Retry-After). */
  isUnavailable(err: unknown): boolean;
  /** Bytes of the store's write-ahead log beside its file (0 where there is none to size). */
  walBytes(store: S): number;
  /** An online copy of the store file at `source` into `target`; answers the pages copied. */
  backup?(source: string, target: string, progress: (done: number, total: number) => void): Promise<number>;
  /** Gives the space a large delete freed back to the file system; null when there is no file. */
  reclaim?(store: S): Reclaimed | null;
  /** Whether another process has the store file at `path` open. */
  inUse?(path: string): boolean;
  /**
   * Copies the SQLite store file at `sqlitePath`, which nothing may have open, into the empty
   * database `url` names, whole or not at all (`cli migrate-store`); `onTable` hears each table's
   * rows. Throws CopyTargetUnreachable or CopyRefused before any row moves.
   */
  copyFromSqlite?(sqlitePath: string, url: string, onTable: (table: string, rows: number) => void): Promise<CopyResult>;
  /** How long a write waits for another process's write lock (the CLI waits longer than the server). */
  setBusyTimeout?(store: S, ms: number): void;
};
