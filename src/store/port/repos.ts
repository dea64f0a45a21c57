/**
 * The repos as the rest of the code sees them (docs/architecture.md, The store port): every
 * repo's interface, each method answering a promise, whichever engine is behind it. The
 * interfaces are declared in the port's area files (accounts.ts, tokens.ts, trades.ts,
 * market.ts, operations.ts, indexer.ts) in their synchronous shape; `Repos` holds each as
 * `Async<R>`. The SQLite repos (src/store/sqlite/*-repo.ts, made async by asyncRepo()) and their
 * PostgreSQL twins (src/store/pg/) implement them; services, read models and routes import them
 * from here.
 */
import type { Async } from './async.js';
import type { AccountsRepo, SessionsRepo, SignInCountsRepo } from './accounts.js';
import type { IndexerRepo } from './indexer.js';
import type { CandlesRepo, MarketCandlesRepo, RankingRepo, WindowRepo } from './market.js';
import type { DemoRepo, DueDelivery, EventsRepo, MetaRepo, StatsRepo, SubscriptionsRepo, WebhookOutboxRepo } from './operations.js';
import type { RemovalLogReads } from './retract.js';
import type { DiscoveryRepo, SearchIndexRepo, SymbolsRepo, TokenChangesRepo, TokensRepo } from './tokens.js';
import type { StreamRepo, TraderBoardRepo, TradesRepo } from './trades.js';

export type * from './accounts.js';
export type * from './indexer.js';
export type * from './market.js';
export type * from './operations.js';
export type * from './tokens.js';
export type * from './trades.js';
export { MATCH_KINDS, foldCase } from './tokens.js';
export { toTradeJson } from './trades.js';

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
