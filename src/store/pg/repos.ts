/**
 * The storage boundary on PostgreSQL (docs/operations.md, Many instances: the async storage
 * boundary): the same `Repos` object createSqliteRepos() of src/store/sqlite/repos.ts makes, built from
 * the PostgreSQL twins on the instance's pool, so nothing above src/store/ knows which engine
 * answers. Each repo here takes any pool connection per call; writes that must share one
 * transaction build their repos on the transaction's client instead (src/store/pg/pg-repo.ts).
 */
import type pg from 'pg';
import type { Repos } from '../port/repos.js';
import type { Chains } from '../../domain/chains.js';
import { createPgCandlesRepo } from './candles-repo.js';
import { createPgMarketCandlesRepo } from './market-candles-repo.js';
import { createPgStreamRepo } from './stream-repo.js';
import { createPgAccountsRepo } from './accounts-repo.js';
import { createPgDemoRepo } from './demo-repo.js';
import { createPgDiscoveryRepo } from './discovery-repo.js';
import { createPgEventsRepo } from './events-repo.js';
import { createPgIndexerRepo } from './indexer-repo.js';
import { createPgRemovalLogRepo } from './retract-repo.js';
import { createPgMetaRepo } from './meta-repo.js';
import { createPgRankingRepo } from './ranking-repo.js';
import { createPgSearchIndexRepo } from './search-index-repo.js';
import { createPgSessionsRepo, createPgSignInCountsRepo } from './sessions-repo.js';
import { createPgStatsRepo } from './stats-repo.js';
import { createPgSubscriptionsRepo } from './subscriptions-repo.js';
import { createPgSymbolsRepo } from './symbols-repo.js';
import { createPgTokenChangesRepo } from './token-changes-repo.js';
import { createPgTokensRepo } from './tokens-repo.js';
import { createPgTraderBoardRepo } from './trader-board-repo.js';
import { createPgTradesRepo } from './trades-repo.js';
import { createPgWebhookOutboxRepo } from './webhook-outbox-repo.js';
import { createPgWindowRepo } from './window-repo.js';

/** The repos whose PostgreSQL twins are not in this file yet. */

/** The repos of a PostgreSQL store on `pool`; `chains` (or one chain's name) are the deployment's chains, for the symbols repo. */
export function createPgRepos(pool: pg.Pool, chains: Chains | string): Repos {
  return {
    accounts: createPgAccountsRepo(pool),
    candles: createPgCandlesRepo(pool),
    demo: createPgDemoRepo(pool),
    discovery: createPgDiscoveryRepo(pool),
    events: createPgEventsRepo(pool),
    indexer: createPgIndexerRepo(pool),
    marketCandles: createPgMarketCandlesRepo(pool),
    meta: createPgMetaRepo(pool),
    ranking: createPgRankingRepo(pool),
    searchIndex: createPgSearchIndexRepo(pool),
    sessions: createPgSessionsRepo(pool),
    signInCounts: createPgSignInCountsRepo(pool),
    stats: createPgStatsRepo(pool),
    stream: createPgStreamRepo(pool),
    removals: createPgRemovalLogRepo(pool),
    subscriptions: createPgSubscriptionsRepo(pool),
    symbols: createPgSymbolsRepo(pool, chains),
    tokenChanges: createPgTokenChangesRepo(pool),
    tokens: createPgTokensRepo(pool),
    traderBoard: createPgTraderBoardRepo(pool),
    trades: createPgTradesRepo(pool),
    outbox: createPgWebhookOutboxRepo(pool),
    window: createPgWindowRepo(pool),
  };
}
