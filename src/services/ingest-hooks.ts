/**
 * The views that ingest keeps up to date in its write transaction, besides the candle rollups and
 * the token's last price (which the writer's derived step applies): ONE list for every engine.
 * Each hook computes its rows once, engine-free (src/domain/read-views.ts,
 * src/domain/trade-commits.ts, the events of events.ts), and hands them to the engine's applier
 * (src/store/port/ingest.ts, IngestViews). Add a view here once, and its applier to each engine.
 */
import type { Clock } from '../domain/clock.js';
import type { Chains } from '../domain/chains.js';
import type { IngestHook, IngestViews } from '../store/port/ingest.js';
import type { RetractHook } from '../store/port/retract.js';
import { readViewRows } from '../domain/read-views.js';
import { tradeCommits } from '../domain/trade-commits.js';
import { createEventsHook, createRetractEventsHook } from './events.js';

/** The view hooks on the appliers of one engine; `chains` for how events show their trades (default: one chain). */
export function viewHooks(views: IngestViews, clock: Clock, chains?: Chains): IngestHook[] {
  const commits = tradeCommits();
  return [
    // events and webhook outbox rows for registered tokens
    createEventsHook({ events: (tx) => views.events(tx), clock, ...(chains === undefined ? {} : { chains }) }),
    // per-market rollups and each wallet's and market's last trade, for /v1 ranked lists and windows
    ({ trades }, tx) => (trades.length === 0 ? undefined : views.readViews(tx, readViewRows(trades))),
    // where each transaction's trades end, for the live stream
    (batch, tx) => {
      const step = commits(batch);
      return step === null ? undefined : views.tradeCommit(tx, step);
    },
    // search index and token change log for /v1/search and /v1/market. Last: on PostgreSQL its
    // read carries the writes the hooks before it deferred (the read views, the trade commit), so
    // none is left to cost a statement of its own before the commit (docs/architecture.md, The
    // ingest boundary).
    (batch, tx) => views.discovery(tx, batch),
  ];
}

/** The `trades_removed` events hook of a retraction, on the engine's appliers. */
export function retractEventsHook(views: IngestViews, clock: Clock): RetractHook {
  return createRetractEventsHook({ events: (tx) => views.events(tx), clock });
}
