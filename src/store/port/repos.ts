/**
 * The repos as the rest of the code sees them (docs/architecture.md, The store port): every
 * repo's interface, each method answering a promise, whichever engine is behind it. The SQLite
 * repos (src/store/sqlite/*-repo.ts, made async by src/store/port/async.ts) and their PostgreSQL twins
 * (src/store/pg/) implement them; services, read models and routes import them from here.
 * The interfaces are still written as the SQLite factories' return types (issue 28: declaring
 * them here on their own is left to do).
 */
import type { Async } from './async.js';
import type { createSessionsRepo, createSignInCountsRepo } from '../sqlite/sessions-repo.js';
import type { createTokenChangesRepo } from '../sqlite/token-changes-repo.js';
import type { DueDelivery } from '../sqlite/webhook-outbox-repo.js';
import type { AccountsRepo } from '../sqlite/accounts-repo.js';
import type { CandlesRepo } from '../sqlite/candles-repo.js';
import type { DemoRepo } from '../sqlite/demo-repo.js';
import type { DiscoveryRepo } from '../sqlite/discovery-repo.js';
import type { EventsRepo } from '../sqlite/events-repo.js';
import type { IndexerRepo } from '../sqlite/indexer-repo.js';
import type { MarketCandlesRepo } from '../sqlite/market-candles-repo.js';
import type { MetaRepo } from '../sqlite/meta-repo.js';
import type { RankingRepo } from '../sqlite/ranking-repo.js';
import type { SearchIndexRepo } from '../sqlite/search-index-repo.js';
import type { StatsRepo } from '../sqlite/stats-repo.js';
import type { StreamRepo } from '../sqlite/stream-repo.js';
import type { SubscriptionsRepo } from '../sqlite/subscriptions-repo.js';
import type { SymbolsRepo } from '../sqlite/symbols-repo.js';
import type { TokensRepo } from '../sqlite/tokens-repo.js';
import type { TraderBoardRepo } from '../sqlite/trader-board-repo.js';
import type { TradesRepo } from '../sqlite/trades-repo.js';
import type { WebhookOutboxRepo } from '../sqlite/webhook-outbox-repo.js';
import type { WindowRepo } from '../sqlite/window-repo.js';
import type { RemovalLogReads } from './retract.js';

export type {
  AccountsRepo,
  CandlesRepo,
  DemoRepo,
  DiscoveryRepo,
  EventsRepo,
  MarketCandlesRepo,
  MetaRepo,
  RankingRepo,
  SearchIndexRepo,
  StatsRepo,
  StreamRepo,
  SubscriptionsRepo,
  SymbolsRepo,
  TokensRepo,
  TraderBoardRepo,
  TradesRepo,
  WebhookOutboxRepo,
  WindowRepo,
};

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
  /** The removal log (docs/indexer.md, Reorgs): what retractions removed, for the stream of every instance. */
  readonly removals: RemovalLogReads;
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
