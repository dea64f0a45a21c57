/**
 * The services of one store, built once per process (by server.ts, the CLI, or createApp when it
 * is given none), so every entry point shares the same write paths, caches and counters. Each
 * service is made here and nowhere else: routes and workers take it from here.
 *
 * The engine's parts come from its engine object (src/store/port/engine.ts), which the
 * composition root (src/open-store.ts) picked: its repos, its ingest engine, the size of its WAL.
 * Every service above this line is the same code on every engine.
 */
import type { AnyStore } from '../open-store.js';
import { engineOf } from '../open-store.js';
import type { StoreEngine } from '../store/port/engine.js';
import type { Repos } from '../store/port/repos.js';
import type { Clock } from '../domain/clock.js';
import { oneChain, type Chains } from '../domain/chains.js';
import { createIngest, type AnyIngest, type Ingest, type IngestHook } from './ingest.js';
import { createAccounts } from './accounts.js';
import { retractEventsHook, viewHooks } from './ingest-hooks.js';
import { createSubscriptions } from './subscriptions.js';
import { createEvents } from './events.js';
import { createSessions, createSignInThrottle } from './sessions.js';
import { createMetrics } from './metrics.js';
import { createIndexerBoard } from '../indexer/evm/board.js';

/** A SQLite store (its ingest answers synchronously), named without importing the engine. */
type SqliteStore = Extract<AnyStore, { kind: 'sqlite' }>;

type Deps<S> = {
  store: S;
  clock: Clock;
  config?: { webhookAllowPrivate: boolean; chain?: string; chains?: Chains };
  repos?: Repos;
  /** The store's engine object; the composition root's pick for the store when absent. */
  engine?: StoreEngine;
};

/**
 * The ingest of `store`: the one orchestrator (src/services/ingest.ts) over the engine's ingest
 * engine, with the view hooks on the engine's appliers (src/services/ingest-hooks.ts); caches hear
 * of a batch after its commit, through the store's listeners.
 */
function makeIngest(store: AnyStore, engine: StoreEngine, clock: Clock, chains: Chains, hooks: IngestHook[]): AnyIngest {
  const views = engine.ingestViews(store);
  const ingest = createIngest({
    engine: engine.ingestEngine(store),
    clock,
    chains,
    hooks: [...viewHooks(views, clock, chains), ...hooks],
    onCommit: (change) => store.notifyChange(change),
  });
  // trades_removed events and their webhooks, in each retraction's transaction (docs/api.md, Events).
  ingest.addRetractHook(retractEventsHook(views, clock));
  return ingest;
}

function build(deps: Deps<AnyStore>) {
  const chains = deps.config?.chains ?? oneChain(deps.config?.chain);
  const { store } = deps;
  const engine = deps.engine ?? engineOf(store);
  const repos = deps.repos ?? engine.repos(store, chains);
  const metrics = createMetrics(store, repos, { walBytes: () => engine.walBytes(store) });
  // Counts the trades every in-process source inserts (HTTP, demo feed, CLI in its own process).
  const ingest = makeIngest(store, engine, deps.clock, chains, [({ trades }) => metrics.tradesInserted(trades.length)]);
  const withRepos = { ...deps, repos };
  const accounts = createAccounts(withRepos);
  // Both name tokens by the deployment's chains (CHAINS, or CHAIN alone): docs/chains.md.
  const subscriptions = createSubscriptions({ ...withRepos, config: { webhookAllowPrivate: deps.config?.webhookAllowPrivate ?? false, chains } });
  const events = createEvents({ ...withRepos, config: { chains } });
  const sessions = createSessions(withRepos);
  const signInThrottle = createSignInThrottle(withRepos);
  // The chain indexer's status for /healthz: the server's indexer job attaches to it.
  const indexers = createIndexerBoard(repos.indexer);
  return { engine, chains, repos, ingest, accounts, subscriptions, events, sessions, signInThrottle, metrics, indexers };
}

/** The services of a store of either engine. */
export type Services = ReturnType<typeof build>;
/** The services of a SQLite store: its ingest also answers synchronously (tests, benchmarks). */
export type SqliteServices = Omit<Services, 'ingest'> & { ingest: Ingest };

/**
 * `config.webhookAllowPrivate` defaults to false (webhooks to private addresses are refused);
 * `config.chain` names the store's chain (default `solana`). `repos` is the storage boundary
 * (src/store/port/repos.ts), made here by the store's engine unless given.
 */
export function createServices(deps: Deps<SqliteStore>): SqliteServices;
export function createServices(deps: Deps<AnyStore>): Services;
export function createServices(deps: Deps<AnyStore>): Services {
  return build(deps);
}

/**
 * Fixes the store's default chain the first time it is opened with chains, and checks it every
 * time after (docs/chains.md, How chains are stored): a plain address in the store means that
 * chain, so a configuration whose default chain differs would read every row as another chain's.
 * Answers the reason to refuse start-up, or null.
 */
export async function claimDefaultChain(services: Pick<Services, 'repos' | 'chains'>): Promise<string | null> {
  const wanted = services.chains.defaultChain;
  const held = await services.repos.meta.getOrCreate('default_chain', () => wanted);
  if (held === wanted) return null;
  return `the store's default chain is ${held} (its plain addresses are on ${held}), but the configured default chain is ${wanted}: start with CHAINS beginning with ${held}`;
}
