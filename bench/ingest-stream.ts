/**
 * The live ingest stream that runs during the load runs: a steady rate of trades of the hot
 * token, stamped with the server's clock, posted as NDJSON to `POST /v1/ingest` with the bench
 * key, so caches are invalidated as they would be in production. A post that is still in flight
 * when the next is due carries its trades over to the next one, so the rate holds.
 */
import { seededRandom } from '../src/domain/demo-data.js';

export type StreamOptions = {
  base: string;
  secret: string;
  token: string;
  markets: readonly string[];
  wallets: readonly string[];
  startPrice: number;
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
  seconds: number;
  /** Trades accepted per second over the stream's life. */
  rate: number;
  firstError: string | null;
};

export type IngestStream = { stop(): Promise<StreamStats> };

export function startIngestStream(opts: StreamOptions): IngestStream {
  const rand = seededRandom(0xbe7c4);
  let price = opts.startPrice;
  let seq = 0;
  let owed = 0;
  let inFlight: Promise<void> | null = null;
  const startedAt = Date.now();
  const stats: StreamStats = { posts: 0, accepted: 0, duplicates: 0, failed: 0, statusCodes: {}, meanMs: 0, maxMs: 0, seconds: 0, rate: 0, firstError: null };
  let totalMs = 0;

  const record = () => {
    price *= Math.exp((rand() - 0.5) * 0.004);
    const volumeUsd = Math.round(Math.exp(2 + rand() * 6) * 100) / 100;
    return {
      type: 'trade',
      token: opts.token,
      market: opts.markets[Math.floor(rand() * opts.markets.length)]!,
      signature: `bench-${opts.label}-${startedAt.toString(36)}-${(seq++).toString(36)}`,
      index: 0,
      blockTime: opts.serverNow(),
      side: rand() < 0.5 ? 'buy' : 'sell',
      priceUsd: price,
      amount: volumeUsd / price,
      quoteAmount: volumeUsd / 150,
      volumeUsd,
      wallet: opts.wallets[Math.floor(rand() * opts.wallets.length)]!,
    };
  };

  const post = async (count: number) => {
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
      stats.rate = stats.seconds > 0 ? stats.accepted / stats.seconds : 0;
      return stats;
    },
  };
}
