/**
 * Demo data: loading the deterministic demo set into the store (through the ingest path) and the
 * simulated feed that keeps adding trades while the store holds only demo data.
 */
import type { StoreHandle } from '../store/port/handle.js';
import type { Clock } from '../domain/clock.js';
import type { DemoRemoval, Repos } from '../store/port/repos.js';
import { nowSeconds } from '../domain/clock.js';
import { demoRecords, type DemoOptions } from '../domain/demo-data.js';
import type { AnyIngest, NumberedRecord } from './ingest.js';
import type { DemoMeta } from './demo-feed.js';

export type DemoCounts = { tokens: number; markets: number; holders: number; trades: number; seed: number; until: number; days: number };

export const DEMO_DEFAULTS = { tokens: 20, days: 30, seed: 42 } as const;

/**
 * Loads the demo set; records it in meta (seed, anchor) so the same data can be made again.
 * `deps` is what createServices gives (its ingest path and repos).
 */
export async function loadDemo(
  deps: { ingest: AnyIngest; repos: Pick<Repos, 'meta'> },
  opts: DemoOptions,
  onProgress?: (written: number) => void,
): Promise<DemoCounts> {
  const counts = { tokens: 0, markets: 0, holders: 0, trades: 0 };
  let chunk: NumberedRecord[] = [];
  let line = 0;
  let duplicates = 0;
  const flush = async () => {
    if (chunk.length === 0) return;
    duplicates += (await deps.ingest.write(chunk, { demo: true })).duplicates;
    chunk = [];
    onProgress?.(line);
  };
  for (const record of demoRecords(opts)) {
    line++;
    counts[`${record.type}s` as keyof typeof counts]++;
    chunk.push({ line, record });
    if (chunk.length >= 5000) await flush();
  }
  await flush();
  await deps.repos.meta.set('demo', JSON.stringify(demoMeta(opts)));
  // Only trades can be duplicates (the other records are upserts): count what was loaded.
  return { ...counts, trades: counts.trades - duplicates, seed: opts.seed, until: opts.until, days: opts.days };
}

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
export function storeHoldsOnlyDemo(repos: Pick<Repos, 'demo'>): Promise<boolean> {
  return repos.demo.holdsOnlyDemo();
}

/**
 * Removes every demo token and all of its data (markets, trades, holders, candle and window
 * rollups, events), so they leave trending and search. A running server sees the change at its
 * next request (its caches are dropped on any write by another process). README, Demo data.
 */
export async function removeDemo(deps: { store: StoreHandle; repos: Pick<Repos, 'demo'> }): Promise<DemoRemoval> {
  const removed = await deps.repos.demo.removeDemo();
  // After the commit, as every write tells the caches.
  deps.store.notifyChange({ tokens: 'all' });
  return removed;
}

export { startDemoFeed, createDemoFeed } from './demo-feed.js';

export const defaultDemoOptions = (clock: Clock): DemoOptions => ({ ...DEMO_DEFAULTS, until: nowSeconds(clock) });
