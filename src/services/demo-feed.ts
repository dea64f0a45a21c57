/**
 * The simulated live feed: while the store holds only demo data it keeps every demo token
 * trading at the rate, trade size and quote currency of that token's own recent history, through
 * the normal ingest path, so charts, quotes and events move the way the history did. It stops
 * for good (and says so) once real data arrives. README, Demo data.
 */
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/db.js';
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import type { IngestRecord } from '../domain/records.js';
import { createDemoRepo, type FeedMarket } from '../store/demo-repo.js';
import type { Ingest, NumberedRecord } from './ingest.js';
import type { Metrics } from './metrics.js';

export type DemoFeedOptions = {
  /** Wall-clock milliseconds between ticks (default 1000). */
  intervalMs?: number;
  /** Called once when the feed stops because the store no longer holds only demo data. */
  onStop?: (reason: string) => void;
  /** Uniform [0, 1) numbers; injected by tests for repeatable runs. */
  random?: () => number;
};

export type DemoFeed = {
  /** Simulates `seconds` of trading at the current time; returns the trades written. */
  tick(seconds: number): number;
  stop(): void;
};

/** How far back the feed looks to learn a token's rate and trade size. */
const LOOKBACK = 7 * 86400;
/** Model refresh period, in ticks. */
const REFRESH_TICKS = 300;

type Model = { tokenId: number; ratePerSecond: number; avgVolumeUsd: number; markets: FeedMarket[]; holders: number };

/** Ingests demo trades for every demo token; the caller runs `tick` on a timer. */
export function createDemoFeed(deps: { store: Store; ingest: Ingest; clock: Clock; metrics: Metrics }, opts: DemoFeedOptions = {}): DemoFeed {
  const repo = createDemoRepo(deps.store.db);
  const random = opts.random ?? Math.random;
  const gaussian = () => Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());
  const models = new Map<number, Model>();
  let ticks = 0;
  let solUsd: number | null = null;
  // Active from the start when there is demo data to feed; otherwise once some is loaded.
  let active = repo.holdsOnlyDemo();
  let stopped = false;

  /** A token's rate and trade size over the week before its last trade (not before now: a store loaded days ago would show none). */
  function model(t: { id: number; createdAt: number; lastTradeAt: number }): Model {
    let m = models.get(t.id);
    if (m !== undefined && ticks % REFRESH_TICKS !== 0) return m;
    const since = t.lastTradeAt - LOOKBACK;
    const recent = repo.recent(t.id, since);
    // From the first trade seen: a demo set shorter than the lookback has no trades before it.
    const span = Math.max(3600, t.lastTradeAt - Math.max(since, t.createdAt, recent.firstTime ?? since));
    m = {
      tokenId: t.id,
      ratePerSecond: recent.trades / span,
      avgVolumeUsd: recent.avgVolumeUsd ?? 100,
      markets: repo.markets(t.id),
      holders: repo.holderCount(t.id),
    };
    models.set(t.id, m);
    if (solUsd === null) solUsd = repo.solPrice(t.id) ?? null;
    return m;
  }

  /** A Poisson count with mean `mean` (normal approximation for large means). */
  function poisson(mean: number): number {
    if (mean > 500) return Math.max(0, Math.round(mean + Math.sqrt(mean) * gaussian()));
    const limit = Math.exp(-mean);
    let k = 0;
    for (let p = random(); p > limit; p *= random()) k++;
    return k;
  }

  function tick(seconds: number): number {
    if (stopped) return 0;
    const held = repo.composition();
    if (held.tokens === 0 || held.real > 0) {
      if (active) {
        stopped = true;
        opts.onStop?.(held.real > 0 ? 'real data arrived' : 'the demo data was removed');
      }
      return 0;
    }
    active = true;
    ticks++;
    const now = nowSeconds(deps.clock);
    const records: NumberedRecord[] = [];
    solUsd = solUsd === null ? null : solUsd * Math.exp(0.0004 * gaussian());
    for (const t of repo.feedTokens()) {
      const m = model({ id: t.id, createdAt: t.createdAt, lastTradeAt: t.lastTradeAt ?? now });
      const n = poisson(m.ratePerSecond * seconds);
      const perDay = Math.max(1, m.ratePerSecond * 86400);
      let price = t.price;
      const liquidity = m.markets.reduce((s, mk) => s + mk.liquidityUsd, 0);
      for (let k = 0; k < n && m.markets.length > 0; k++) {
        const step = (0.06 / Math.sqrt(perDay)) * gaussian();
        price *= Math.exp(step);
        // Log-normal values whose mean is the history's mean trade value.
        const raw = (m.avgVolumeUsd / Math.exp(0.605)) * Math.exp(1.1 * gaussian());
        const volumeUsd = Math.round(Math.min(Math.max(50, liquidity * 0.02), Math.max(1, raw)) * 100) / 100;
        const market = pickMarket(m.markets, random() * liquidity);
        const wallet = repo.holderAt(t.id, Math.floor(Math.pow(random(), 1.6) * m.holders)) ?? market.address;
        const quoteAmount = market.quoteSymbol === 'SOL' ? volumeUsd / (solUsd ?? 150) : volumeUsd;
        const record: IngestRecord = {
          type: 'trade',
          token: t.address,
          market: market.address,
          signature: `demo-${randomBytes(24).toString('hex')}`,
          index: 0,
          blockTime: now,
          side: step > 0 === random() < 0.8 ? 'buy' : 'sell',
          priceUsd: price,
          amount: volumeUsd / price,
          quoteAmount,
          volumeUsd,
          wallet,
        };
        records.push({ line: records.length + 1, record });
      }
    }
    if (records.length === 0) return 0;
    const result = deps.ingest.write(records);
    deps.metrics.ingested('demo', result);
    return result.accepted;
  }

  return {
    tick,
    stop: () => {
      stopped = true;
    },
  };
}

function pickMarket(markets: FeedMarket[], at: number): FeedMarket {
  let left = at;
  for (const m of markets) if ((left -= m.liquidityUsd) <= 0) return m;
  return markets[markets.length - 1]!;
}

/** Runs the feed every `intervalMs` (each tick simulates that much time). Returns a stop function. */
export function startDemoFeed(deps: { store: Store; ingest: Ingest; clock: Clock; metrics: Metrics }, opts: DemoFeedOptions = {}): () => void {
  const intervalMs = opts.intervalMs ?? 1000;
  let timer: NodeJS.Timeout | null = null;
  const feed = createDemoFeed(deps, {
    ...opts,
    onStop: (reason) => {
      if (timer) clearInterval(timer);
      opts.onStop?.(reason);
    },
  });
  timer = setInterval(() => {
    try {
      feed.tick(intervalMs / 1000);
    } catch {
      // The feed is decoration; a failed tick (store closing, busy) is retried next time.
    }
  }, intervalMs);
  timer.unref();
  return () => {
    feed.stop();
    if (timer) clearInterval(timer);
  };
}
