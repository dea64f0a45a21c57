/**
 * Demo data: loading the deterministic demo set into the store (through the ingest path) and the
 * simulated feed that keeps adding trades while the store holds only demo data.
 */
import type { Store } from '../store/db.js';
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import { demoRecords, type DemoOptions } from '../domain/demo-data.js';
import { createMetaRepo } from '../store/meta-repo.js';
import type { Ingest, NumberedRecord } from './ingest.js';
import { createDemoRepo, type DemoRemoval } from '../store/demo-repo.js';

export type DemoCounts = { tokens: number; markets: number; holders: number; trades: number; seed: number; until: number; days: number };

export const DEMO_DEFAULTS = { tokens: 20, days: 30, seed: 42 } as const;

/** Loads the demo set; records it in meta (seed, anchor) so the same data can be made again. */
export function loadDemo(deps: { store: Store; ingest: Ingest }, opts: DemoOptions, onProgress?: (written: number) => void): DemoCounts {
  const counts = { tokens: 0, markets: 0, holders: 0, trades: 0 };
  let chunk: NumberedRecord[] = [];
  let line = 0;
  let duplicates = 0;
  const flush = () => {
    if (chunk.length === 0) return;
    duplicates += deps.ingest.write(chunk, { demo: true }).duplicates;
    chunk = [];
    onProgress?.(line);
  };
  for (const record of demoRecords(opts)) {
    line++;
    counts[`${record.type}s` as keyof typeof counts]++;
    chunk.push({ line, record });
    if (chunk.length >= 5000) flush();
  }
  flush();
  createMetaRepo(deps.store.db).set('demo', JSON.stringify(demoMeta(opts)));
  // Only trades can be duplicates (the other records are upserts): count what was loaded.
  return { ...counts, trades: counts.trades - duplicates, seed: opts.seed, until: opts.until, days: opts.days };
}

/**
 * What the store keeps of a loaded demo set: enough to make it again, and (with `generation`)
 * for the feed to rebuild each token's live rate. Generation 2 is the history with a busy end
 * (src/domain/demo-activity.ts); a store loaded before it has none, and its feed measures rates.
 */
export type DemoMeta = Pick<DemoOptions, 'seed' | 'until' | 'days' | 'tokens' | 'tradesPerTokenPerDay' | 'hotShare' | 'holdersPerToken'> & {
  generation?: number;
};

export const DEMO_GENERATION = 2;

const demoMeta = (opts: DemoOptions): DemoMeta => ({
  seed: opts.seed,
  until: opts.until,
  days: opts.days,
  tokens: opts.tokens,
  tradesPerTokenPerDay: opts.tradesPerTokenPerDay,
  hotShare: opts.hotShare,
  holdersPerToken: opts.holdersPerToken,
  generation: DEMO_GENERATION,
});

/** True while the store holds tokens and every one of them is a demo token. */
export function storeHoldsOnlyDemo(store: Store): boolean {
  return createDemoRepo(store.db).holdsOnlyDemo();
}

/**
 * Removes every demo token and all of its data (markets, trades, holders, candle and window
 * rollups, events), so they leave trending and search. A running server sees the change at its
 * next request (its caches are dropped on any write by another process). README, Demo data.
 */
export function removeDemo(store: Store): DemoRemoval {
  const removed = createDemoRepo(store.db).removeDemo();
  store.notifyChange({ tokens: 'all' });
  return removed;
}

export { startDemoFeed, createDemoFeed } from './demo-feed.js';

export const defaultDemoOptions = (clock: Clock): DemoOptions => ({ ...DEMO_DEFAULTS, until: nowSeconds(clock) });
