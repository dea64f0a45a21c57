/**
 * The simulated live feed: while the store holds only demo data it keeps every demo token
 * trading at the rate, trade size and volatility its history ended with (the model's live rate,
 * rebuilt from the seed the store keeps), through the normal ingest path, so charts, quotes and
 * events move the way the last hours of history did and nothing jumps at the load second. It
 * stops for good (and says so) once real data arrives. README, Demo data.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { nowSeconds } from '../domain/clock.js';
import type { TradeRecord } from '../domain/records.js';
import { demoLiveRates, type DemoOptions, type LiveRate } from '../domain/demo-data.js';
import type { FeedMarket, Repos } from '../store/port/repos.js';
import type { AnyIngest, NumberedRecord } from './ingest.js';
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
  /** Simulates `seconds` of trading at the current time; resolves to the trades written. */
  tick(seconds: number): Promise<number>;
  /** Each demo token's trades per second (by address), as the feed runs them now. */
  rates(): Promise<Map<string, number>>;
  stop(): void;
};

/**
 * What the store keeps of a loaded demo set: enough to make it again, and (with `generation`)
 * for the feed to rebuild each token's live rate. Generation 2 is the history with a busy end
 * (src/domain/demo-activity.ts); a store loaded before it has none, and its feed measures rates.
 */
export type DemoMeta = Pick<DemoOptions, 'seed' | 'until' | 'days' | 'tokens' | 'tradesPerTokenPerDay' | 'hotShare' | 'holdersPerToken'> & {
  generation?: number;
};

/** A store loaded before the live rates were kept: how far back the feed looks to measure them. */
const LOOKBACK = 7 * 86400;
/** Model refresh period, in ticks. */
const REFRESH_TICKS = 300;
/** The first tick also fills at most this many seconds since the newest trade (the load's own time). */
const CATCH_UP_SECONDS = 60;
/** The daily volatility of a token whose model is not known (a store from an older version). */
const MEASURED_DAILY_VOL = 0.06;

type Model = { ratePerSecond: number; medianTradeUsd: number; dailyVol: number; markets: FeedMarket[]; holders: number };

/** What the feed needs: the ingest path, the counters and the demo and meta repos (createServices gives them all). */
export type DemoFeedDeps = { ingest: AnyIngest; clock: Clock; metrics: Metrics; repos: Pick<Repos, 'demo' | 'meta'> };

/** Ingests demo trades for every demo token; the caller runs `tick` on a timer. */
export function createDemoFeed(deps: DemoFeedDeps, opts: DemoFeedOptions = {}): DemoFeed {
  const repo = deps.repos.demo;
  const meta = deps.repos.meta;
  const random = opts.random ?? Math.random;
  const gaussian = () => Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());
  const models = new Map<number, Model>();
  let ticks = 0;
  let solUsd: number | null = null;
  let live: { meta: string | undefined; rates: Map<string, LiveRate> } = { meta: undefined, rates: new Map() };
  // Active from the start when there is demo data to feed; otherwise once some is loaded. Asked
  // now, answered by the first tick (a store that cannot answer counts as no demo data).
  const initially = repo.holdsOnlyDemo().catch(() => false);
  let active: boolean | null = null;
  let stopped = false;
  let caughtUp = false;

  /** The live rates of the loaded set, rebuilt from its options when they change (a reload). */
  async function liveRates(): Promise<Map<string, LiveRate>> {
    const value = await meta.get('demo');
    if (value === live.meta) return live.rates;
    const kept = parseMeta(value);
    const rates = kept !== undefined && (kept.generation ?? 1) >= 2 ? demoLiveRates(kept) : new Map<string, LiveRate>();
    live = { meta: value, rates };
    return rates;
  }

  /** A token's model: its live rate when the store keeps it, else measured over the week before its last trade. */
  async function model(t: { id: number; address: string; createdAt: number; lastTradeAt: number }): Promise<Model> {
    let m = models.get(t.id);
    if (m !== undefined && ticks % REFRESH_TICKS !== 0) return m;
    const known = (await liveRates()).get(t.address);
    const base = { markets: await repo.markets(t.id), holders: await repo.holderCount(t.id) };
    if (known !== undefined) {
      m = { ...base, ratePerSecond: known.perSecond, medianTradeUsd: known.medianTradeUsd, dailyVol: known.dailyVol };
    } else {
      const since = t.lastTradeAt - LOOKBACK;
      const recent = await repo.recent(t.id, since);
      // From the first trade seen: a demo set shorter than the lookback has no trades before it.
      const span = Math.max(3600, t.lastTradeAt - Math.max(since, t.createdAt, recent.firstTime ?? since));
      // Log-normal values (sigma 1.1) whose mean is the history's mean: median = mean / e^0.605.
      m = { ...base, ratePerSecond: recent.trades / span, medianTradeUsd: (recent.avgVolumeUsd ?? 100) / Math.exp(0.605), dailyVol: MEASURED_DAILY_VOL };
    }
    models.set(t.id, m);
    if (solUsd === null) solUsd = (await repo.solPrice(t.id)) ?? null;
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

  async function tick(seconds: number): Promise<number> {
    if (stopped) return 0;
    active ??= await initially;
    const held = await repo.composition();
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
    // Trades are drawn first, each with the rank of the holder that makes it; the wallets of
    // those ranks are then read at once per token (no store call per trade).
    const drawn: { record: TradeRecord; token: number; at: number }[] = [];
    const wallets: Promise<(string | undefined)[]>[] = [];
    solUsd = solUsd === null ? null : solUsd * Math.exp(0.0004 * gaussian());
    const tokens = await repo.feedTokens();
    // Loading the set takes seconds after its anchor: the first tick trades them too (spread over
    // them), so the rate does not dip at the load second. Later ticks trade at `now`.
    const newest = Math.max(...tokens.map((t) => t.lastTradeAt ?? now));
    const span = caughtUp ? seconds : Math.max(seconds, Math.min(now - newest, seconds + CATCH_UP_SECONDS));
    caughtUp = true;
    for (const t of tokens) {
      const m = await model({ id: t.id, address: t.address, createdAt: t.createdAt, lastTradeAt: t.lastTradeAt ?? now });
      const n = poisson(m.ratePerSecond * span);
      const times = Array.from({ length: n }, () => (span > seconds ? now - Math.floor(random() * span) : now)).sort((a, b) => a - b);
      // The tick's share of a day's variance, split over its trades (a walk in time, as in the history).
      const sigma = m.dailyVol * Math.sqrt(span / 86400 / Math.max(1, n));
      let price = t.price;
      const ranks: number[] = [];
      const liquidity = m.markets.reduce((s, mk) => s + mk.liquidityUsd, 0);
      for (let k = 0; k < n && m.markets.length > 0; k++) {
        const step = sigma * gaussian();
        price *= Math.exp(step);
        const raw = m.medianTradeUsd * Math.exp(1.1 * gaussian());
        const volumeUsd = Math.round(Math.min(Math.max(50, liquidity * 0.02), Math.max(1, raw)) * 100) / 100;
        const market = pickMarket(m.markets, random() * liquidity);
        ranks.push(Math.floor(Math.pow(random(), 1.6) * m.holders));
        const quoteAmount = market.quoteSymbol === 'SOL' ? volumeUsd / (solUsd ?? 150) : volumeUsd;
        const record: TradeRecord = {
          type: 'trade',
          token: t.address,
          market: market.address,
          signature: `demo-${randomBytes(24).toString('hex')}`,
          index: 0,
          blockTime: times[k]!,
          side: step > 0 === random() < 0.8 ? 'buy' : 'sell',
          priceUsd: price,
          amount: volumeUsd / price,
          quoteAmount,
          volumeUsd,
          wallet: market.address,
        };
        drawn.push({ record, token: wallets.length, at: ranks.length - 1 });
      }
      // One read of the largest holdings down to the lowest rank drawn: on PostgreSQL a read per
      // trade is thousands of queries for a busy tick, more than the pool lets wait for a connection.
      if (ranks.length > 0) {
        const top = repo.topHolders(t.id, ranks.reduce((a, b) => Math.max(a, b), 0) + 1);
        wallets.push(top.then((owners) => ranks.map((rank) => owners[rank])));
      }
    }
    if (drawn.length === 0) return 0;
    // A trade's wallet is its holder's, or its market's address when the token has no holder of that rank.
    const byToken = await Promise.all(wallets);
    const records: NumberedRecord[] = [];
    for (const d of drawn) {
      const wallet = byToken[d.token]![d.at];
      records.push({ line: records.length + 1, record: wallet === undefined ? d.record : { ...d.record, wallet } });
    }
    const result = await deps.ingest.write(records);
    deps.metrics.ingested('demo', result);
    return result.accepted;
  }

  return {
    tick,
    async rates() {
      const tokens = await repo.feedTokens();
      const models = await Promise.all(tokens.map((t) => model({ ...t, lastTradeAt: t.lastTradeAt ?? nowSeconds(deps.clock) })));
      return new Map(tokens.map((t, i) => [t.address, models[i]!.ratePerSecond]));
    },
    stop: () => {
      stopped = true;
    },
  };
}

/** The kept options of the loaded set; undefined when absent or unreadable (then rates are measured). */
function parseMeta(value: string | undefined): DemoMeta | undefined {
  if (value === undefined) return undefined;
  try {
    const kept = JSON.parse(value) as DemoMeta;
    return Number.isInteger(kept.tokens) && Number.isInteger(kept.seed) ? kept : undefined;
  } catch {
    return undefined;
  }
}

function pickMarket(markets: FeedMarket[], at: number): FeedMarket {
  let left = at;
  for (const m of markets) if ((left -= m.liquidityUsd) <= 0) return m;
  return markets[markets.length - 1]!;
}

/** Runs the feed every `intervalMs` (each tick simulates that much time); a tick still running when the next is due makes that one skip. Returns a stop function. */
export function startDemoFeed(deps: DemoFeedDeps, opts: DemoFeedOptions = {}): () => void {
  const intervalMs = opts.intervalMs ?? 1000;
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  const feed = createDemoFeed(deps, {
    ...opts,
    onStop: (reason) => {
      if (timer) clearInterval(timer);
      opts.onStop?.(reason);
    },
  });
  timer = setInterval(() => {
    if (running) return;
    running = true;
    feed
      .tick(intervalMs / 1000)
      // The feed is decoration; a failed tick (store closing, busy, unreachable) is retried next time.
      .catch(() => undefined)
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => {
    feed.stop();
    if (timer) clearInterval(timer);
  };
}
