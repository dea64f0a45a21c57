/**
 * The composition root of storage (docs/architecture.md, The store port): the one file above
 * src/store/ that names an engine. It picks by configuration (README, Configuration): PostgreSQL
 * when DATABASE_URL is set (it wins over DATABASE_PATH), else the SQLite file at DATABASE_PATH,
 * and hands the opened store with its engine object to the server and the CLI, so both migrate a
 * fresh store the same way. A new engine is one more entry in ENGINES and one more arm in engineFor().
 */
import type { StoreEngine, StoreTarget } from './store/port/engine.js';
import type { StoreHandle, StoreKind } from './store/port/handle.js';
import { SchemaTooNewError } from './store/port/engine.js';
import { sqliteEngine } from './store/sqlite/engine.js';
import { pgEngine } from './store/pg/engine.js';
import type { Store } from './store/sqlite/db.js';
import type { PgStore } from './store/pg/pg-store.js';
import { ConfigError, shownValue } from './config.js';

/** A store of either engine; `kind` tells them apart (src/store/port/handle.ts is what callers need of it). */
export type AnyStore = Store | PgStore;

/** Every engine, by the kind its stores carry. */
const ENGINES: { readonly [K in StoreKind]: StoreEngine } = { sqlite: sqliteEngine, postgres: pgEngine };

/** The engine the configuration names (DATABASE_URL set: PostgreSQL, else the file at DATABASE_PATH). */
export function engineFor(target: Pick<StoreTarget, 'databaseUrl'>): StoreEngine {
  return target.databaseUrl !== null ? pgEngine : sqliteEngine;
}

/** The engine object of an opened store. */
export function engineOf(store: StoreHandle): StoreEngine {
  return ENGINES[store.kind];
}

/**
 * Whether `err` means a store cannot be used now, by any engine's rules: the error handler asks
 * without knowing which store a route used (an error of one engine never matches another's).
 */
export function isUnavailableOnAnyEngine(err: unknown): boolean {
  return Object.values(ENGINES).some((engine) => engine.isUnavailable(err));
}

/** The configured store; one that cannot be opened is a ConfigError naming its variable (never a password). */
export async function openConfiguredStore(config: StoreTarget): Promise<AnyStore> {
  const engine = engineFor(config);
  try {
    return (await engine.open(config)) as AnyStore;
  } catch (err) {
    if (err instanceof SchemaTooNewError) throw err;
    const value = engine.variable === 'DATABASE_URL' ? shownValue(config.databaseUrl ?? '') : config.databasePath;
    throw new ConfigError(`${engine.variable} ${value} ${engine.openFailure(err)}`);
  }
}
