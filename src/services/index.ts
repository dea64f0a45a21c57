/**
 * The services of one store, built once per process (by server.ts, the CLI, or createApp when it
 * is given none), so every entry point shares the same write paths, caches and counters. Each
 * service is made here and nowhere else: routes and workers take it from here.
 *
 * This is the one place that picks each engine's parts (docs/architecture.md, The store): on
 * SQLite the synchronous repos wrapped as async ones, the SQLite ingest and its hooks on the one
 * connection; on PostgreSQL the twins of src/store/pg/ on the pool and the engine ingest, one
 * write-ordered transaction per batch, its hooks on that transaction's client. Every service
 * above this line is the same code on both.
 */
import type { Store } from '../store/sqlite/db.js';
import type { AnyStore } from '../open-store.js';
import type { PgStore } from '../store/pg/pg-store.js';
import type { Clock } from '../domain/clock.js';
import { createIngest, type AnyIngest, type Ingest, type IngestHook } from './ingest.js';
import { createAccounts } from './accounts.js';
import { ingestHooks, pgIngestHooks, retractEventsHook } from './ingest-hooks.js';
import { createSubscriptions } from './subscriptions.js';
import { createEvents } from './events.js';
import { createSessions, createSignInThrottle } from './sessions.js';
import { createMetrics, walBytes } from './metrics.js';
import { createSqliteRepos, type Repos } from '../store/sqlite/repos.js';
import { createPgRepos } from '../store/pg/repos.js';
import { createPgIngestEngine } from '../store/pg/ingest-repo.js';
import { createSqliteIngestEngine } from '../store/sqlite/ingest-repo.js';
import { createIndexerBoard } from '../indexer/evm/board.js';

type Deps<S> = { store: S; clock: Clock; config?: { webhookAllowPrivate: boolean; chain?: string }; repos?: Repos };

/** What differs between the engines: the repos, the ingest, and the size of SQLite's WAL. */
type EngineParts = { repos: Repos; ingest: (hooks: IngestHook[]) => AnyIngest; walBytes: () => number };

function sqliteParts(store: Store, clock: Clock, chain: string, repos: Repos | undefined): EngineParts & { ingest: (hooks: IngestHook[]) => Ingest } {
  return {
    repos: repos ?? createSqliteRepos(store, chain),
    ingest: (hooks) =>
      createIngest({
        engine: createSqliteIngestEngine(store),
        clock,
        hooks: [...ingestHooks({ db: store.db, clock }), ...hooks],
        onCommit: (change) => store.notifyChange(change),
      }),
    walBytes: () => walBytes(store.path),
  };
}

function pgParts(store: PgStore, clock: Clock, chain: string, repos: Repos | undefined): EngineParts {
  return {
    repos: repos ?? createPgRepos(store.pool, chain),
    // Caches hear of a batch after its commit, through the store's listeners, as on SQLite.
    ingest: (hooks) =>
      createIngest({
        engine: createPgIngestEngine(store.pool),
        clock,
        hooks: [...pgIngestHooks({ clock }), ...hooks],
        onCommit: (change) => store.notifyChange(change),
      }),
    walBytes: () => 0,
  };
}

function build(deps: Deps<AnyStore>) {
  const chain = deps.config?.chain ?? 'solana';
  const parts = deps.store.kind === 'postgres' ? pgParts(deps.store, deps.clock, chain, deps.repos) : sqliteParts(deps.store, deps.clock, chain, deps.repos);
  const { repos } = parts;
  const metrics = createMetrics(deps.store, repos, { walBytes: parts.walBytes });
  // Counts the trades every in-process source inserts (HTTP, demo feed, CLI in its own process).
  const ingest: AnyIngest = parts.ingest([({ trades }) => metrics.tradesInserted(trades.length)]);
  // trades_removed events and their webhooks, in each retraction's transaction (docs/api.md, Events).
  ingest.addRetractHook(retractEventsHook({ db: deps.store.kind === 'sqlite' ? deps.store.db : undefined, clock: deps.clock }));
  const withRepos = { ...deps, repos };
  const accounts = createAccounts(withRepos);
  const subscriptions = createSubscriptions(withRepos);
  const events = createEvents(withRepos);
  const sessions = createSessions(withRepos);
  const signInThrottle = createSignInThrottle(withRepos);
  // The chain indexer's status for /healthz: the server's indexer job attaches to it.
  const indexers = createIndexerBoard(repos.indexer);
  return { repos, ingest, accounts, subscriptions, events, sessions, signInThrottle, metrics, indexers };
}

/** The services of a store of either engine. */
export type Services = ReturnType<typeof build>;
/** The services of a SQLite store: its ingest also answers synchronously (tests, benchmarks). */
export type SqliteServices = Omit<Services, 'ingest'> & { ingest: Ingest };

/**
 * `config.webhookAllowPrivate` defaults to false (webhooks to private addresses are refused);
 * `config.chain` names the store's chain (default `solana`). `repos` is the storage boundary
 * (src/store/port/repos.ts), made here from the store unless given.
 */
export function createServices(deps: Deps<Store>): SqliteServices;
export function createServices(deps: Deps<AnyStore>): Services;
export function createServices(deps: Deps<AnyStore>): Services {
  return build(deps);
}
