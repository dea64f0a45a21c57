/**
 * Bounds what the demo keeps (README, Demo data). While the demo feed runs it adds about 180 MB a
 * day on the default set; this job deletes the demo's trades older than the demo window (the
 * `days` of the loaded set, 30 by default, counted back from now to the start of that UTC day),
 * with the rollups that held only them, so the store holds at most the window's trades and
 * every view still equals a computation over the trades kept. It goes an hour of trades per
 * transaction from the oldest, letting requests run between them; once a day it has a day to
 * delete, and nothing the rest of the time. SQLite reuses the freed pages for the feed's new
 * trades, so the file stops growing; PostgreSQL's autovacuum does the same for its tables.
 */
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import type { StoreHandle } from '../store/port/handle.js';
import type { Repos } from '../store/port/repos.js';
import { DEMO_DEFAULTS } from './demo.js';
import type { DemoMeta } from './demo-feed.js';

const HOUR = 3600;
const DAY = 86400;
/** How often the job looks for a day to delete. */
const PRUNE_INTERVAL_MS = 10 * 60_000;

export type DemoPruneDeps = { store: Pick<StoreHandle, 'notifyChange'>; repos: Pick<Repos, 'demo' | 'meta'>; clock: Clock };

/** The first second the demo keeps at `now`: the start of the UTC day `days` before it. */
export function demoCutoff(now: number, days: number): number {
  return Math.floor((now - days * DAY) / DAY) * DAY;
}

/** Deletes the demo trades (and the rollups that held only them) before the window; answers the trades deleted. */
export async function pruneDemo(deps: DemoPruneDeps): Promise<number> {
  const { demo, meta } = deps.repos;
  const kept = await meta.get('demo');
  // As the feed does, only while the store holds only demo data: once real data is in, the demo
  // stays as it is until `demo --remove`.
  if (kept === undefined || !(await demo.holdsOnlyDemo())) return 0;
  const days = (JSON.parse(kept) as Partial<DemoMeta>).days ?? DEMO_DEFAULTS.days;
  const cutoff = demoCutoff(nowSeconds(deps.clock), days);
  const oldest = await demo.oldestDemoTrade();
  if (oldest === null || oldest >= cutoff) return 0;
  let deleted = 0;
  for (let to = Math.floor(oldest / HOUR) * HOUR + HOUR; to <= cutoff; to += HOUR) {
    deleted += await demo.pruneDemoBefore(to);
    // Requests (and the feed's own ticks) run between the hours.
    await new Promise((resolve) => setImmediate(resolve));
  }
  // After the commits, as every write tells the caches: cached bars of the pruned days go.
  if (deleted > 0) deps.store.notifyChange({ tokens: 'all' });
  return deleted;
}

/** Runs pruneDemo now and every 10 minutes; answers the stop function. A failed run is tried again at the next. */
export function startDemoPrune(
  deps: DemoPruneDeps,
  opts: { intervalMs?: number; onPruned?: (trades: number) => void; onError?: (err: unknown) => void } = {},
): () => void {
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    pruneDemo(deps)
      .then((n) => n > 0 && opts.onPruned?.(n), opts.onError ?? (() => undefined))
      .finally(() => (running = false));
  };
  run();
  const timer = setInterval(run, opts.intervalMs ?? PRUNE_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
