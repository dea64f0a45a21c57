/**
 * The views that ingest keeps up to date in its write transaction, besides the candle rollups and
 * the token's last price (which ingest.ts handles itself). Add one line per view, on each engine.
 * src/services/index.ts picks the list of its store's engine.
 */
import type { Db } from '../store/sqlite/db.js';
import type { Clock } from '../domain/clock.js';
import type { IngestHook } from './ingest.js';
import { createEventsHook } from './events.js';
import { readViewsHook } from '../store/sqlite/read-views-repo.js';
import { discoveryHook } from '../store/sqlite/token-changes-repo.js';
import { tradeCommitsHook } from '../store/sqlite/stream-repo.js';
import { pgReadViewsHook } from '../store/pg/read-views.js';
import { pgDiscoveryHook } from '../store/pg/discovery-hook.js';
import { pgTradeCommitsHook } from '../store/pg/stream-repo.js';

/** The views on SQLite, each with its statements on the store's one connection `db`. */
export function ingestHooks(deps: { db: Db; clock: Clock }): IngestHook[] {
  return [
    createEventsHook(deps), // events and webhook outbox rows for registered tokens
    readViewsHook(deps.db), // per-wallet and per-market rollups for /v1 ranked lists and windows
    discoveryHook(deps.db), // search index and token change log for /v1/search and /v1/market
    tradeCommitsHook(deps.db), // where each transaction's trades end, for the live stream
  ];
}

/** The same views on PostgreSQL, each written on the ingest's transaction client. */
export function pgIngestHooks(deps: { clock: Clock }): IngestHook[] {
  return [
    createEventsHook(deps), // events and webhook outbox rows for registered tokens
    pgReadViewsHook(), // per-wallet and per-market rollups for /v1 ranked lists and windows
    pgDiscoveryHook(), // search index and token change log for /v1/search and /v1/market
    pgTradeCommitsHook(), // where each transaction's trades end, for the live stream
  ];
}
