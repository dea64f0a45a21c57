/**
 * The storage boundary (docs/operations.md, Many instances: The storage boundary): every
 * repo a service, route, cache or worker reads or writes, each as its async interface, made once
 * per process. `createSqliteRepos()` wraps the better-sqlite3 repos (statements unchanged, one
 * resolved promise per call); the PostgreSQL store builds the same object from the twins in
 * src/store/pg/, so nothing above src/store/ knows which engine answers.
 *
 * Writes that must be part of one transaction (an ingest and its hooks, a count and the insert it
 * allows) do not go through this object: they take the repos bound to their transaction.
 */
import type { Store } from './db.js';
import { asyncRepo, sqliteTransaction } from '../port/async.js';
import type { Repos } from '../port/repos.js';
import type { Chains } from '../../domain/chains.js';
import { createAccountsRepo } from './accounts-repo.js';
import { createCandlesRepo } from './candles-repo.js';
import { createDemoRepo } from './demo-repo.js';
import { createDiscoveryRepo } from './discovery-repo.js';
import { createEventsRepo } from './events-repo.js';
import { createIndexerRepo } from './indexer-repo.js';
import { createMarketCandlesRepo } from './market-candles-repo.js';
import { createMetaRepo } from './meta-repo.js';
import { createRankingRepo } from './ranking-repo.js';
import { createSearchIndexRepo } from './search-index-repo.js';
import { createSessionsRepo, createSignInCountsRepo } from './sessions-repo.js';
import { createStatsRepo } from './stats-repo.js';
import { createStreamRepo } from './stream-repo.js';
import { createRemovalLogRepo } from './retract-repo.js';
import { createSubscriptionsRepo } from './subscriptions-repo.js';
import { createSymbolsRepo } from './symbols-repo.js';
import { createTokenChangesRepo } from './token-changes-repo.js';
import { createTokensRepo } from './tokens-repo.js';
import { createTraderBoardRepo } from './trader-board-repo.js';
import { createTradesRepo } from './trades-repo.js';
import { createWebhookOutboxRepo } from './webhook-outbox-repo.js';
import { createWindowRepo } from './window-repo.js';

// The interfaces are the port's (src/store/port/repos.ts); named here for the SQLite engine's callers.
export type { Repos, SessionsRepo, SignInCountsRepo, TokenChangesRepo } from '../port/repos.js';

/** The repos of a SQLite store; `chains` (or one chain's name) are the deployment's chains, for the symbols repo. */
export function createSqliteRepos(store: Store, chains: Chains | string): Repos {
  const { db } = store;
  return {
    accounts: asyncRepo(createAccountsRepo(db), sqliteTransaction(store)),
    candles: asyncRepo(createCandlesRepo(db)),
    demo: asyncRepo(createDemoRepo(db)),
    discovery: asyncRepo(createDiscoveryRepo(db)),
    events: asyncRepo(createEventsRepo(db)),
    indexer: createIndexerRepo(db),
    marketCandles: asyncRepo(createMarketCandlesRepo(db)),
    meta: asyncRepo(createMetaRepo(db)),
    ranking: asyncRepo(createRankingRepo(db)),
    searchIndex: asyncRepo(createSearchIndexRepo(db)),
    sessions: asyncRepo(createSessionsRepo(db), sqliteTransaction(store)),
    signInCounts: asyncRepo(createSignInCountsRepo(db), sqliteTransaction(store)),
    stats: asyncRepo(createStatsRepo(db)),
    stream: asyncRepo(createStreamRepo(db)),
    removals: asyncRepo(createRemovalLogRepo(db)),
    subscriptions: asyncRepo(createSubscriptionsRepo(db), sqliteTransaction(store)),
    symbols: asyncRepo(createSymbolsRepo(db, chains)),
    tokenChanges: asyncRepo(createTokenChangesRepo(db)),
    tokens: asyncRepo(createTokensRepo(db)),
    traderBoard: asyncRepo(createTraderBoardRepo(db)),
    trades: asyncRepo(createTradesRepo(db)),
    outbox: asyncRepo(createWebhookOutboxRepo(db)),
    window: asyncRepo(createWindowRepo(db)),
  };
}
