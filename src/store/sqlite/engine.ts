/**
 * The SQLite engine as one object (src/store/port/engine.ts): the store file DATABASE_PATH names,
 * its repos on the one connection, and what only a store file has: an online backup, giving space
 * back after `demo --remove`, the in-use check of `migrate-store` and the CLI's longer busy
 * timeout. It has no job locks: one instance is all there is, and it runs every job itself.
 */
import { statSync } from 'node:fs';
import type { StoreEngine } from '../port/engine.js';
import { backupStore } from './backup.js';
import { openStore, setBusyTimeout, type Store } from './db.js';
import { storeInUse } from './in-use.js';
import { reclaimSpace } from './reclaim.js';
import { createSqliteRepos } from './repos.js';
import { createSqliteIngestEngine } from './ingest-repo.js';
import { sqliteIngestViews } from './ingest-views.js';

/** The size of the WAL file beside the store at `path` (0 for `:memory:` or when there is none). */
function walFileBytes(path: string): number {
  if (path === ':memory:' || path === '') return 0;
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

export const sqliteEngine: StoreEngine<Store> = {
  kind: 'sqlite',
  variable: 'DATABASE_PATH',
  open: async (target) => openStore(target.databasePath),
  openFailure: (err) => `cannot be opened: ${err instanceof Error ? err.message : String(err)}`,
  repos: (store, chains) => createSqliteRepos(store, chains),
  ingestEngine: (store) => createSqliteIngestEngine(store),
  ingestViews: (store) => sqliteIngestViews(store.db),
  // SQLite's write lock still held by another process after the busy timeout (SQLITE_BUSY and its variants).
  isUnavailable: (err) => {
    const code = (err as { code?: unknown } | null)?.code;
    return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
  },
  walBytes: (store) => walFileBytes(store.path),
  backup: backupStore,
  reclaim: (store) => reclaimSpace(store.db),
  inUse: storeInUse,
  setBusyTimeout: (store, ms) => setBusyTimeout(store.db, ms),
};
