/**
 * Which store a process opens (README, Configuration): PostgreSQL when DATABASE_URL is set (it
 * wins over DATABASE_PATH), else the SQLite file at DATABASE_PATH. The server and the CLI both
 * open their store here, so both migrate a fresh store the same way.
 */
import { openStore, SchemaTooNewError, type Store } from './store/sqlite/db.js';
import { openPgStore, type PgStore } from './store/pg/pg-store.js';
import { PgMigrationError } from './store/pg/migrate.js';
import { ConfigError, shownValue } from './config.js';

/** A store of either engine; `kind` tells them apart. */
export type AnyStore = Store | PgStore;

/** The configured store; one that cannot be opened is a ConfigError naming its variable (never a password). */
export async function openConfiguredStore(config: { databasePath: string; databaseUrl: string | null; instanceId: string }): Promise<AnyStore> {
  if (config.databaseUrl !== null) {
    try {
      return await openPgStore(config.databaseUrl, { instanceId: config.instanceId });
    } catch (err) {
      if (err instanceof SchemaTooNewError) throw err;
      const why = err instanceof PgMigrationError ? err.message : `cannot be opened: ${err instanceof Error ? err.message : String(err)}`;
      throw new ConfigError(`DATABASE_URL ${shownValue(config.databaseUrl)} ${why}`);
    }
  }
  try {
    return openStore(config.databasePath);
  } catch (err) {
    if (err instanceof SchemaTooNewError) throw err;
    throw new ConfigError(`DATABASE_PATH ${config.databasePath} cannot be opened: ${err instanceof Error ? err.message : String(err)}`);
  }
}
