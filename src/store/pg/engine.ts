/**
 * The PostgreSQL engine as one object (src/store/port/engine.ts): the database DATABASE_URL names,
 * migrated under its lock at open (src/store/pg/migrate.ts), the twins of the repos on the
 * instance's pool, the engine ingest (one write-ordered transaction per batch), and the job
 * locks that let exactly one of many instances run each job (src/store/pg/job-lock.ts).
 */
import { CopyTargetUnreachable, type StoreEngine } from '../port/engine.js';
import { createPgPool } from './pool.js';
import { createPgIngestEngine } from './ingest-repo.js';
import { pgIngestViews } from './ingest-views.js';
import { holdJobLock } from './job-lock.js';
import { PgMigrationError } from './migrate.js';
import { openPgStore, type PgStore } from './pg-store.js';
import { createPgRepos } from './repos.js';
import { isUnavailable } from './unavailable.js';

export const pgEngine: StoreEngine<PgStore> = {
  kind: 'postgres',
  variable: 'DATABASE_URL',
  open: async (target) => {
    if (target.databaseUrl === null) throw new TypeError('the PostgreSQL engine needs DATABASE_URL');
    return openPgStore(target.databaseUrl, { instanceId: target.instanceId });
  },
  openFailure: (err) => (err instanceof PgMigrationError ? err.message : `cannot be opened: ${err instanceof Error ? err.message : String(err)}`),
  repos: (store, chains) => createPgRepos(store.pool, chains),
  ingestEngine: (store) => createPgIngestEngine(store.pool),
  ingestViews: () => pgIngestViews(),
  jobLock: (store, req) => holdJobLock({ url: store.url, ...req }),
  // Loaded when used: a deployment with Redis and no listener never needs it.
  openBus: async (store, opts) => (await import('./pg-bus.js')).createPgBus({ ...opts, url: store.url, pool: store.pool }),
  isUnavailable,
  copyFromSqlite: async (sqlitePath, url, onTable) => {
    // Loaded when used: only `cli migrate-store` copies.
    const { copySqliteToPg } = await import('./copy-store.js');
    // One connection; a statement may take long (a large table's rows go in big multi-row inserts).
    const pool = createPgPool({ url, instanceId: 'cli migrate-store', max: 1, connectTimeoutMs: 10_000, statementTimeoutMs: 600_000 });
    try {
      const client = await pool.connect().catch((err: Error) => {
        throw new CopyTargetUnreachable(err.message);
      });
      try {
        return await copySqliteToPg({ sqlitePath, client, onTable });
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  },
  // The server keeps its WAL out of the instance's reach: nothing to size here.
  walBytes: () => 0,
};
