/**
 * The views that ingest keeps up to date in its write transaction, besides the candle rollups and
 * the token's last price (which the writer's derived step applies): ONE list for every engine.
 * Each hook computes its rows once, engine-free (src/domain/read-views.ts,
 * src/domain/trade-commits.ts, the events of events.ts), and hands them to the engine's applier
 * (src/store/port/ingest.ts, IngestViews). Add a view here once, and its applier to each engine.
 */
import type { Db } from '../store/sqlite/db.js';
import type { Clock } from '../domain/clock.js';
import type { IngestHook, IngestViews } from '../store/port/ingest.js';
import type { RetractHook } from '../store/port/retract.js';
import { readViewRows } from '../domain/read-views.js';
import { tradeCommits } from '../domain/trade-commits.js';
import { createEventsHook, createRetractEventsHook } from './events.js';
import { sqliteEventsWriter, sqliteIngestViews } from '../store/sqlite/ingest-views.js';
import { pgEventsWriter, pgIngestViews } from '../store/pg/ingest-views.js';
import { clientOf } from '../store/pg/ingest-tx.js';

/** The view hooks on the appliers of one engine. */
export function viewHooks(views: IngestViews, clock: Clock): IngestHook[] {
  const commits = tradeCommits();
  return [
    // events and webhook outbox rows for registered tokens
    createEventsHook({ events: (tx) => views.events(tx), clock }),
    // per-market rollups and each wallet's and market's last trade, for /v1 ranked lists and windows
    ({ trades }, tx) => (trades.length === 0 ? undefined : views.readViews(tx, readViewRows(trades))),
    // search index and token change log for /v1/search and /v1/market
    (batch, tx) => views.discovery(tx, batch),
    // where each transaction's trades end, for the live stream
    (batch, tx) => {
      const step = commits(batch);
      return step === null ? undefined : views.tradeCommit(tx, step);
    },
  ];
}

/** The view hooks on SQLite, each applier with its statements on the store's one connection `db`. */
export function ingestHooks(deps: { db: Db; clock: Clock }): IngestHook[] {
  return viewHooks(sqliteIngestViews(deps.db), deps.clock);
}

/** The same hooks on PostgreSQL, each applier on the ingest's transaction client. */
export function pgIngestHooks(deps: { clock: Clock }): IngestHook[] {
  return viewHooks(pgIngestViews(), deps.clock);
}

/** The `trades_removed` events hook of a retraction, on the store's engine (`db` on SQLite). */
export function retractEventsHook(deps: { db?: Db; clock: Clock }): RetractHook {
  const { db } = deps;
  let sqlite: ReturnType<typeof sqliteEventsWriter> | undefined;
  return createRetractEventsHook({
    events: (tx) => {
      if (tx.engine === 'postgres') return pgEventsWriter(clientOf(tx));
      if (db === undefined) throw new Error('the retract events hook was built without the SQLite connection it is called with');
      return (sqlite ??= sqliteEventsWriter(db));
    },
    clock: deps.clock,
  });
}
