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
import { asyncRepo, sqliteTransaction, type Async } from './async.js';
import { createAccountsRepo, type AccountsRepo } from './accounts-repo.js';
import { createCandlesRepo, type CandlesRepo } from './candles-repo.js';
import { createDemoRepo, type DemoRepo } from './demo-repo.js';
import { createDiscoveryRepo, type DiscoveryRepo } from './discovery-repo.js';
import { createEventsRepo, type EventsRepo } from './events-repo.js';
import { createIndexerRepo, type IndexerRepo } from './indexer-repo.js';
import { createMarketCandlesRepo, type MarketCandlesRepo } from './market-candles-repo.js';
import { createMetaRepo, type MetaRepo } from './meta-repo.js';
import { createRankingRepo, type RankingRepo } from './ranking-repo.js';
import { createSearchIndexRepo, type SearchIndexRepo } from './search-index-repo.js';
import { createSessionsRepo, createSignInCountsRepo } from './sessions-repo.js';
import { createStatsRepo, type StatsRepo } from './stats-repo.js';
import { createStreamRepo, type StreamRepo } from './stream-repo.js';
import { createSubscriptionsRepo, type SubscriptionsRepo } from './subscriptions-repo.js';
import { createSymbolsRepo, type SymbolsRepo } from './symbols-repo.js';
import { createTokenChangesRepo } from './token-changes-repo.js';
import { createTokensRepo, type TokensRepo } from './tokens-repo.js';
import { createTraderBoardRepo, type TraderBoardRepo } from './trader-board-repo.js';
import { createTradesRepo, type TradesRepo } from './trades-repo.js';
import { createWebhookOutboxRepo, type DueDelivery, type WebhookOutboxRepo } from './webhook-outbox-repo.js';
import { createWindowRepo, type WindowRepo } from './window-repo.js';

export type SessionsRepo = ReturnType<typeof createSessionsRepo>;
export type SignInCountsRepo = ReturnType<typeof createSignInCountsRepo>;
export type TokenChangesRepo = ReturnType<typeof createTokenChangesRepo>;

/** Every repo of one store, each answering promises, whichever engine is behind it. */
export type Repos = {
  readonly accounts: Async<AccountsRepo>;
  readonly candles: Async<CandlesRepo>;
  readonly demo: Async<DemoRepo>;
  readonly discovery: Async<DiscoveryRepo>;
  readonly events: Async<EventsRepo>;
  /** The chain indexer's position and state; its `commit` runs in an ingest transaction. */
  readonly indexer: IndexerRepo;
  readonly marketCandles: Async<MarketCandlesRepo>;
  readonly meta: Async<MetaRepo>;
  readonly ranking: Async<RankingRepo>;
  readonly searchIndex: Async<SearchIndexRepo>;
  readonly sessions: Async<SessionsRepo>;
  readonly signInCounts: Async<SignInCountsRepo>;
  readonly stats: Async<StatsRepo>;
  readonly stream: Async<StreamRepo>;
  readonly subscriptions: Async<SubscriptionsRepo>;
  readonly symbols: Async<SymbolsRepo>;
  readonly tokenChanges: Async<TokenChangesRepo>;
  readonly tokens: Async<TokensRepo>;
  readonly traderBoard: Async<TraderBoardRepo>;
  readonly trades: Async<TradesRepo>;
  /**
   * On PostgreSQL also `claimDue()`, the batch claim instances share the outbox with
   * (src/store/pg/webhook-outbox-repo.ts); the webhook worker uses it where it exists.
   */
  readonly outbox: Async<WebhookOutboxRepo> & {
    claimDue?: (now: number, limit: number, leaseUntil: number, skipTenants?: readonly string[]) => Promise<DueDelivery[]>;
  };
  readonly window: Async<WindowRepo>;
};

/** The repos of a SQLite store; `chain` names the store's chain for the symbols repo. */
export function createSqliteRepos(store: Store, chain: string): Repos {
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
    subscriptions: asyncRepo(createSubscriptionsRepo(db), sqliteTransaction(store)),
    symbols: asyncRepo(createSymbolsRepo(db, chain)),
    tokenChanges: asyncRepo(createTokenChangesRepo(db)),
    tokens: asyncRepo(createTokensRepo(db)),
    traderBoard: asyncRepo(createTraderBoardRepo(db)),
    trades: asyncRepo(createTradesRepo(db)),
    outbox: asyncRepo(createWebhookOutboxRepo(db)),
    window: asyncRepo(createWindowRepo(db)),
  };
}
