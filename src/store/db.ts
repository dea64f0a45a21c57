/**
 * The SQLite store: one connection with the pragmas of better-sqlite3's performance guide,
 * forward-only numbered migrations recorded in PRAGMA user_version, and change tracking that
 * lets in-process caches notice writes made by this process or by any other (the CLI).
 */
import Database from 'better-sqlite3';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { migrationsDir } from '../paths.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';

export type Db = Database.Database;

/**
 * What changed: the ids of the tokens whose data changed, or 'all' when it is not known; whether
 * accounts changed, and the keys a revocation ended (other instances hear them as a `revoke`).
 */
export type Change = { tokens: ReadonlySet<number> | 'all'; accounts?: boolean; revoked?: readonly string[] };
type Listener = (change: Change) => void;

export type Store = {
  readonly db: Db;
  readonly path: string;
  /**
   * Tells listeners about writes by other processes (or connections). Cheap: one
   * `PRAGMA data_version`, at most once per event-loop turn (requests read in the same turn
   * arrived together, so none of them can tell the difference). Every statement of the store
   * calls it before it runs, so SQL never reads past another process's commit unnoticed; code
   * that answers from memory without SQL (a cache of keys or answers) calls it before it reads.
   */
  checkExternalChanges(): void;
  /** Tells listeners what a write of this process changed, after its commit. */
  notifyChange(change: Change): void;
  onChange(listener: Listener): () => void;
  /** A number that grows with every change seen (local or external). */
  version(): number;
  /**
   * True after a write failed because the store is full (SQLITE_FULL), until a write succeeds:
   * a full disk shows only that way (/healthz reports it).
   */
  full: boolean;
  /**
   * Runs `fn`, a write transaction held open across awaits (a large ingest written in slices),
   * after any other such write of this process has finished. While it runs, `settled()` gives
   * readers a promise to wait on, so they never see half of it (docs/api.md, Ingest limits).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** A promise that resolves when the running sliced write ends, or null when none runs. */
  settled(): Promise<void> | null;
  close(): void;
};

export class SchemaTooNewError extends Error {}

/** How long a writer waits for another connection's write lock before SQLITE_BUSY (docs/api.md, Concurrent writers). */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Wraps `fn` in a write transaction that takes the write lock when it begins (BEGIN IMMEDIATE),
 * waiting up to the busy timeout for another process's lock. Every write transaction uses this:
 * a deferred one that reads first starts as a reader, and in WAL mode a reader that another
 * process wrote past cannot become a writer at all (SQLITE_BUSY at once, no busy wait), which is
 * what failed requests while a CLI ingest ran. Nested inside an open transaction it is a savepoint.
 */
export function writeTransaction<A extends unknown[], R>(db: Db, fn: (...args: A) => R): (...args: A) => R {
  const tx = db.transaction(fn);
  return (...args: A) => tx.immediate(...args);
}

/** Sets how long this connection waits for another's write lock (the CLI's long ingest waits longer). */
export function setBusyTimeout(db: Db, ms: number): void {
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(ms))}`);
}

/**
 * Opens a write transaction that stays open across awaits (a large ingest written in slices, run
 * through `Store.exclusive`); statements and write transactions in between nest inside it.
 * `end(true)` commits, `end(false)` rolls back whatever is still open.
 */
export function beginSlicedWrite(db: Db, spillKib: number): { end(commit: boolean): void } {
  // A small page cache while the batch is open makes SQLite spill dirty pages to the WAL as the
  // slices run, so the commit writes at most spillKib (docs/architecture.md, The store).
  const cacheSize = db.pragma('cache_size', { simple: true }) as number;
  db.pragma(`cache_size = -${spillKib}`);
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    db.pragma(`cache_size = ${cacheSize}`);
    throw err;
  }
  return {
    end(commit) {
      try {
        if (commit) db.exec('COMMIT');
        else if (db.inTransaction) db.exec('ROLLBACK');
      } finally {
        db.pragma(`cache_size = ${cacheSize}`);
      }
    },
  };
}

type Migration = { version: number; name: string; sql: string };

export function loadMigrations(dir = migrationsDir): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}-[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), name: f, sql: readFileSync(join(dir, f), 'utf8') }));
}

/** Applies pending migrations, each in its own transaction. Refuses a schema newer than the code. */
export function migrate(db: Db, migrations = loadMigrations()): { from: number; to: number } {
  const from = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.at(-1)?.version ?? 0;
  if (from > latest) {
    throw new SchemaTooNewError(`the store's schema version ${from} is newer than this code knows (${latest}); upgrade the service`);
  }
  for (const m of migrations) {
    if (m.version <= from) continue;
    writeTransaction(db, () => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return { from, to: Math.max(from, latest) };
}

/**
 * Makes every statement prepared on `db` from now on call `before` when it runs (get, all,
 * iterate, run; pluck, raw and expand return the same statement). A function call and a flag
 * test per statement: small beside SQLite's own work.
 */
function watchStatements(db: Db, before: () => void): void {
  const prepare = db.prepare.bind(db);
  const watched = (source: string) => {
    const st = prepare(source) as unknown as Record<'get' | 'all' | 'iterate' | 'run', (...args: unknown[]) => unknown>;
    for (const m of ['get', 'all', 'iterate', 'run'] as const) {
      const run = st[m];
      st[m] = function (this: unknown, ...args: unknown[]) {
        before();
        return run.apply(this, args);
      };
    }
    return st;
  };
  db.prepare = watched as unknown as Db['prepare'];
}

/**
 * Opens (creating if needed) the store at `path` (`:memory:` allowed) and migrates it.
 * `backgroundCheckpoint` (default true for files): WAL checkpoints run on a worker thread instead
 * of inside a COMMIT on the event loop (src/store/checkpointer.ts).
 */
export function openStore(path: string, opts: { migrate?: boolean; busyTimeoutMs?: number; backgroundCheckpoint?: boolean } = {}): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  setBusyTimeout(db, opts.busyTimeoutMs ?? BUSY_TIMEOUT_MS);
  db.pragma('cache_size = -65536');
  if (opts.migrate !== false) migrate(db);
  let checkpointer: Checkpointer | null = null;
  if (path !== ':memory:' && opts.backgroundCheckpoint !== false) {
    db.pragma('wal_autocheckpoint = 0');
    checkpointer = startCheckpointer(path, () => {
      if (db.open) db.pragma('wal_autocheckpoint = 1000');
    });
  }

  const listeners = new Set<Listener>();
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let lastDataVersion = dataVersion.get() as number;
  let version = 0;
  let checkedThisTurn = false;
  const nextTurn = () => {
    checkedThisTurn = false;
  };
  const checkExternalChanges = () => {
    if (checkedThisTurn) return;
    checkedThisTurn = true;
    setImmediate(nextTurn);
    const v = dataVersion.get() as number;
    if (v !== lastDataVersion) {
      lastDataVersion = v;
      emit({ tokens: 'all', accounts: true });
    }
  };
  watchStatements(db, checkExternalChanges);

  let tail: Promise<unknown> = Promise.resolve();
  let running: { promise: Promise<void>; resolve: () => void } | null = null;

  const emit = (change: Change) => {
    checkpointer?.kick();
    version++;
    for (const l of listeners) l(change);
  };

  return {
    db,
    path,
    checkExternalChanges,
    notifyChange: emit,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    version: () => version,
    full: false,
    exclusive<T>(fn: () => Promise<T>): Promise<T> {
      const run = tail.then(async () => {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => (resolve = r));
        running = { promise, resolve };
        try {
          return await fn();
        } finally {
          running = null;
          resolve();
        }
      });
      tail = run.catch(() => undefined);
      return run;
    },
    settled: () => running?.promise ?? null,
    close() {
      checkpointer?.close();
      listeners.clear();
      if (db.open) db.close();
    },
  };
}
