/**
 * The SQLite store: one connection with the pragmas of better-sqlite3's performance guide,
 * forward-only numbered migrations recorded in PRAGMA user_version, and change tracking that
 * lets in-process caches notice writes made by this process or by any other (the CLI).
 */
import Database from 'better-sqlite3';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { migrationsDir } from '../../paths.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { createChangeHub, type StoreHandle } from '../port/handle.js';
import { createPrivateFile } from './private-file.js';
import { SchemaTooNewError } from '../port/engine.js';

export type Db = Database.Database;

export type { Change } from '../port/handle.js';

/** The SQLite store: the engine-neutral handle (src/store/port/handle.ts) plus its one connection. */
export type Store = StoreHandle & {
  readonly kind: 'sqlite';
  readonly readsDuringWrites: false;
  readonly db: Db;
  readonly path: string;
  close(): void;
};

// Every engine refuses a newer schema with the same error (src/store/port/engine.ts).
export { SchemaTooNewError };

/** How long a writer waits for another connection's write lock before SQLITE_BUSY (docs/api.md, Concurrent writers). */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Wraps `fn` in a write transaction that takes the write lock when it begins (BEGIN IMMEDIATE),
 * waiting up to the busy timeout for another process's lock. Every write transaction uses this:
 * a deferred one that reads first starts as a reader, and in WAL mode a reader that another
 * process wrote past cannot become a writer at all (SQLITE_BUSY at once, no busy wait), which is
 * what failed requests while a CLI ingest ran. Nested inside an open transaction it is a savepoint.
 */
export function writeTransaction<A extends unknown[], R>(db: Db, fn: (...args: A) => R, opts: { memoryJournal?: boolean } = {}): (...args: A) => R {
  const tx = db.transaction(fn);
  if (opts.memoryJournal !== true) return (...args: A) => tx.immediate(...args);
  return (...args: A) => withMemoryJournal(db, () => tx.immediate(...args));
}

/**
 * Runs `fn`, which opens a transaction, with its statement journals in memory (docs/architecture.md,
 * The store: statement journals). SQLite copies the pages a statement changes into a statement
 * journal when the statement may have to undo itself (a trigger, a foreign key: every trade
 * insert); with the default temporary store that journal is a temporary file, a write system call
 * per page, and it was a fifth of the ingest's time and half of a bare insert loop's. Whether the
 * journal is kept in memory is decided as the transaction begins (PRAGMA temp_store), so it is set
 * for the transactions that ask for it and put back after: an ingest's statements each change a
 * few pages, while a statement of another write (a migration, a whole token's removal) may change
 * millions and keeps its journal on disk. Nested inside an open transaction it changes nothing.
 */
export function withMemoryJournal<R>(db: Db, fn: () => R): R {
  if (db.inTransaction) return fn();
  db.pragma('temp_store = MEMORY');
  try {
    return fn();
  } finally {
    resetTempStore(db);
  }
}

/** Puts the temporary store back to its default; not inside a transaction, where SQLite may refuse it (the next call does it). */
function resetTempStore(db: Db): void {
  if (!db.inTransaction) db.pragma('temp_store = DEFAULT');
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
  // Its statement journals in memory, as every ingest transaction's (withMemoryJournal).
  db.pragma('temp_store = MEMORY');
  const restore = () => {
    db.pragma(`cache_size = ${cacheSize}`);
    resetTempStore(db);
  };
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    restore();
    throw err;
  }
  return {
    end(commit) {
      try {
        if (commit) db.exec('COMMIT');
        else if (db.inTransaction) db.exec('ROLLBACK');
      } finally {
        restore();
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
 * of inside a COMMIT on the event loop (src/store/sqlite/checkpointer.ts).
 */
export function openStore(path: string, opts: { migrate?: boolean; busyTimeoutMs?: number; backgroundCheckpoint?: boolean } = {}): Store {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true });
    // A new store, its WAL and SHM are 0600: they hold secrets and hashes.
    createPrivateFile(path);
  }
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

  const hub = createChangeHub({ gate: true });
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let lastDataVersion = dataVersion.get() as number;
  let checkedThisTurn = false;
  const nextTurn = () => {
    checkedThisTurn = false;
  };
  // Every statement prepared from here on checks first (watchStatements): SQL never reads past
  // another process's commit unnoticed; code that answers from memory calls it before it reads.
  const checkExternalChanges = () => {
    if (checkedThisTurn) return;
    checkedThisTurn = true;
    setImmediate(nextTurn);
    const v = dataVersion.get() as number;
    if (v !== lastDataVersion) {
      lastDataVersion = v;
      hub.notifyChange({ tokens: 'all', accounts: true });
    }
  };
  watchStatements(db, checkExternalChanges);

  return {
    kind: 'sqlite',
    readsDuringWrites: false,
    db,
    path,
    checkExternalChanges,
    notifyChange: hub.notifyChange,
    onChange: hub.onChange,
    version: hub.version,
    full: false,
    exclusive: hub.exclusive,
    settled: hub.settled,
    isOpen: () => db.open,
    close() {
      checkpointer?.close();
      hub.clear();
      if (db.open) db.close();
    },
  };
}
