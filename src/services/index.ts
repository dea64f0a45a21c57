/**
 * The services of one store, built once per process (by server.ts, the CLI, or createApp when it
 * is given none), so every entry point shares the same write paths, caches and counters. Each
 * service is made here and nowhere else: routes and workers take it from here.
 */
import type { Store } from '../store/db.js';
import type { Clock } from '../domain/clock.js';
import { createIngest } from './ingest.js';
import { createAccounts } from './accounts.js';
import { ingestHooks } from './ingest-hooks.js';
import { createSubscriptions } from './subscriptions.js';
import { createEvents } from './events.js';
import { createSessions, createSignInThrottle } from './sessions.js';
import { createMetrics } from './metrics.js';
import { createSqliteRepos, type Repos } from '../store/repos.js';

/**
 * `config.webhookAllowPrivate` defaults to false (webhooks to private addresses are refused);
 * `config.chain` names the store's chain (default `solana`). `repos` is the storage boundary
 * (src/store/repos.ts), made here from the SQLite store unless given.
 */
export function createServices(deps: { store: Store; clock: Clock; config?: { webhookAllowPrivate: boolean; chain?: string }; repos?: Repos }) {
  const repos = deps.repos ?? createSqliteRepos(deps.store, deps.config?.chain ?? 'solana');
  const metrics = createMetrics(deps.store, repos);
  const ingest = createIngest({
    ...deps,
    // Counts the trades every in-process source inserts (HTTP, demo feed, CLI in its own process).
    hooks: [...ingestHooks(deps), ({ trades }) => metrics.tradesInserted(trades.length)],
  });
  const withRepos = { ...deps, repos };
  const accounts = createAccounts(withRepos);
  const subscriptions = createSubscriptions(withRepos);
  const events = createEvents(withRepos);
  const sessions = createSessions(withRepos);
  const signInThrottle = createSignInThrottle(withRepos);
  return { repos, ingest, accounts, subscriptions, events, sessions, signInThrottle, metrics };
}

export type Services = ReturnType<typeof createServices>;
