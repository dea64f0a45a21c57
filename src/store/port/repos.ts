/**
 * The repos as the rest of the code sees them (docs/architecture.md, The store port): every
 * repo's interface, each method answering a promise, whichever engine is behind it. The SQLite
 * repos (src/store/*-repo.ts, made async by src/store/async.ts) and their PostgreSQL twins
 * (src/store/pg/) implement them; services, read models and routes import them from here.
 * The interfaces are still written as the SQLite factories' return types (issue 28: declaring
 * them here on their own is left to do).
 */
import type { Async } from '../async.js';
import type { createSessionsRepo, createSignInCountsRepo } from '../sessions-repo.js';
import type { createTokenChangesRepo } from '../token-changes-repo.js';
import type { DueDelivery } from '../webhook-outbox-repo.js';
import type { AccountsRepo } from '../accounts-repo.js';
import type { CandlesRepo } from '../candles-repo.js';
import type { DemoRepo } from '../demo-repo.js';
import type { DiscoveryRepo } from '../discovery-repo.js';
import type { EventsRepo } from '../events-repo.js';
import type { IndexerRepo } from '../indexer-repo.js';
import type { MarketCandlesRepo } from '../market-candles-repo.js';
import type { MetaRepo } from '../meta-repo.js';
import type { RankingRepo } from '../ranking-repo.js';
import type { SearchIndexRepo } from '../search-index-repo.js';
import type { StatsRepo } from '../stats-repo.js';
import type { StreamRepo } from '../stream-repo.js';
import type { SubscriptionsRepo } from '../subscriptions-repo.js';
import type { SymbolsRepo } from '../symbols-repo.js';
import type { TokensRepo } from '../tokens-repo.js';
import type { TraderBoardRepo } from '../trader-board-repo.js';
import type { TradesRepo } from '../trades-repo.js';
import type { WebhookOutboxRepo } from '../webhook-outbox-repo.js';
import type { WindowRepo } from '../window-repo.js';
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
