/**
 * The live ingest stream that runs during the load runs: a steady rate of trades, stamped with
 * the server's clock, posted as NDJSON to `POST /v1/ingest` with the bench key, so caches are
 * invalidated as they would be in production. The live ingest trades the hot token alone; the
 * broad ingest (`--ingest broad`) trades every token of the data set in turn, so each post is a
 * block of trades over many tokens, as an indexer's blocks are. A post that is still in flight
 * when the next is due carries its trades over to the next one, so the rate holds.
 */
import { seededRandom } from '../src/domain/demo-data.js';
import { quantile } from './load.js';

/** A token the stream trades: its markets and wallets (of the data set) and its price to start from. */
export type StreamToken = {
  address: string;
  markets: readonly string[];
  wallets: readonly string[];
  startPrice: number;
};

export type StreamOptions = {
  base: string;
  secret: string;
  /**
   * The tokens traded, in turn: the stream's trade k is of token k mod their count, so every
   * post of n trades touches min(n, count) tokens and each token gets the same share.
   */
  tokens: readonly StreamToken[];
  /** Unix seconds on the server's clock. */
  serverNow(): number;
  tradesPerSecond: number;
  intervalMs: number;
  label: string;
};

export type StreamStats = {
  posts: number;
  accepted: number;
  duplicates: number;
  failed: number;
  statusCodes: Record<string, number>;
  meanMs: number;
  maxMs: number;
  /** Posts' median and 99th percentile in ms (issue 33's target: p99 under 50 ms); absent in older results. */
  p50Ms?: number;
  p99Ms?: number;
  seconds: number;
  /** Trades accepted per second over the stream's life. */
  rate: number;
  /** Distinct tokens in the posts, on average (1 for the live ingest). */
  tokensPerPost: number;
  firstError: string | null;
};

export type IngestStream = { stop(): Promise<StreamStats> };

export function startIngestStream(opts: StreamOptions): IngestStream {
  if (opts.tokens.length === 0) throw new Error('the ingest stream needs at least one token');
  const rand = seededRandom(0xbe7c4);
  const prices = opts.tokens.map((t) => t.startPrice);
  let seq = 0;
  let tokensPosted = 0;
  let owed = 0;
  let inFlight: Promise<void> | null = null;
  const startedAt = Date.now();
  const stats: StreamStats = {
    posts: 0,
    accepted: 0,
    duplicates: 0,
    failed: 0,
    statusCodes: {},
    meanMs: 0,
    maxMs: 0,
    seconds: 0,
    rate: 0,
    tokensPerPost: 0,
    firstError: null,
  };
  let totalMs = 0;
  const durations: number[] = [];

  // With one token this draws the same numbers in the same order as the stream always did.
  const record = () => {
    const k = seq % opts.tokens.length;
    const token = opts.tokens[k]!;
    const price = (prices[k] = prices[k]! * Math.exp((rand() - 0.5) * 0.004));
    const volumeUsd = Math.round(Math.exp(2 + rand() * 6) * 100) / 100;
    return {
      type: 'trade',
      token: token.address,
      market: token.markets[Math.floor(rand() * token.markets.length)]!,
      signature: `bench-${opts.label}-${startedAt.toString(36)}-${(seq++).toString(36)}`,
      index: 0,
      blockTime: opts.serverNow(),
      side: rand() < 0.5 ? 'buy' : 'sell',
      priceUsd: price,
      amount: volumeUsd / price,
      quoteAmount: volumeUsd / 150,
      volumeUsd,
      wallet: token.wallets[Math.floor(rand() * token.wallets.length)]!,
    };
  };

  const post = async (count: number) => {
    tokensPosted += Math.min(count, opts.tokens.length);
    const body = Array.from({ length: count }, () => JSON.stringify(record())).join('\n') + '\n';
    const t0 = performance.now();
    try {
      const res = await fetch(`${opts.base}/v1/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', 'x-api-key': opts.secret },
        body,
      });
      const text = await res.text();
      stats.statusCodes[res.status] = (stats.statusCodes[res.status] ?? 0) + 1;
      if (res.status === 200) {
        const r = JSON.parse(text) as { accepted: number; duplicates: number };
        stats.accepted += r.accepted;
        stats.duplicates += r.duplicates;
      } else {
        stats.failed++;
        stats.firstError ??= `${res.status} ${text.slice(0, 200)}`;
      }
    } catch (err) {
      stats.failed++;
      stats.firstError ??= err instanceof Error ? err.message : String(err);
    }
    const ms = performance.now() - t0;
    stats.posts++;
    totalMs += ms;
    durations.push(ms);
    stats.maxMs = Math.max(stats.maxMs, ms);
  };

  const perTick = (opts.tradesPerSecond * opts.intervalMs) / 1000;
  const timer = setInterval(() => {
    owed += perTick;
    if (inFlight !== null) return;
    const count = Math.floor(owed);
    if (count <= 0) return;
    owed -= count;
    inFlight = post(count).finally(() => {
      inFlight = null;
    });
  }, opts.intervalMs);

  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
      stats.seconds = (Date.now() - startedAt) / 1000;
      stats.meanMs = stats.posts > 0 ? totalMs / stats.posts : 0;
      const sorted = durations.sort((a, b) => a - b);
      stats.p50Ms = quantile(sorted, 0.5);
      stats.p99Ms = quantile(sorted, 0.99);
      stats.rate = stats.seconds > 0 ? stats.accepted / stats.seconds : 0;
      stats.tokensPerPost = stats.posts > 0 ? tokensPosted / stats.posts : 0;
      return stats;
    },
  };
}
