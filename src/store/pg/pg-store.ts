/**
 * The PostgreSQL store of an instance (docs/operations.md, Many instances): the engine-neutral
 * handle of src/store/port/handle.ts on the instance's pool (src/store/pg/pool.ts), opened from
 * DATABASE_URL with the database migrated first (src/store/pg/migrate.ts: under the migration
 * lock, so instances starting together migrate once; a schema newer than the code refuses to
 * start, as on SQLite). Readers use other pool connections than a write in progress and see the
 * last commit, so there is no write gate (`settled()` is always null), and other processes'
 * commits arrive as notices on the bus (src/coord/wiring.ts), never by polling the database.
 */
import type pg from 'pg';
import { createChangeHub, type StoreHandle } from '../port/handle.js';
import { createPgPool } from './pool.js';
import { migratePgUrl, type PgMigrateResult } from './migrate.js';

export type PgStore = StoreHandle & {
  readonly kind: 'postgres';
  readonly readsDuringWrites: true;
  readonly pool: pg.Pool;
  /** DATABASE_URL: the job locks and the change bus open sessions of their own on it. */
  readonly url: string;
  /** What migration did at open (null when asked not to migrate). */
  readonly migrated: PgMigrateResult | null;
  close(): Promise<void>;
};

export type OpenPgStoreOptions = {
  /** The instance's name (INSTANCE_ID), shown as the connections' application_name. */
  instanceId: string;
  /** Apply pending migrations first (default true). */
  migrate?: boolean;
  /** Connections at most (default 10). */
  max?: number;
};

/**
 * Migrates the database `url` names, then opens its pool. Throws SchemaTooNewError for a schema
 * newer than the code, and the connection error when the database cannot be reached.
 */
export async function openPgStore(url: string, opts: OpenPgStoreOptions): Promise<PgStore> {
  const migrated = opts.migrate === false ? null : await migratePgUrl(url);
  return pgStoreOn(createPgPool({ url, instanceId: opts.instanceId, max: opts.max }), url, migrated);
}

/** The store handle on `pool` (connected to `url`, migrated already); closing it ends the pool. */
export function pgStoreOn(pool: pg.Pool, url: string, migrated: PgMigrateResult | null = null): PgStore {
  const hub = createChangeHub({ gate: false });
  let open = true;
  let closing: Promise<void> | null = null;
  return {
    kind: 'postgres',
    readsDuringWrites: true,
    pool,
    url,
    migrated,
    checkExternalChanges: () => undefined,
    notifyChange: hub.notifyChange,
    onChange: hub.onChange,
    version: hub.version,
    full: false,
    exclusive: hub.exclusive,
    settled: hub.settled,
    isOpen: () => open,
    close() {
      open = false;
      hub.clear();
      return (closing ??= pool.end().catch(() => undefined));
    },
  };
}
