/**
 * The service's Prometheus metrics: one prom-client Registry per set of services (so per app, and
 * tests never collide; there is no global default registry), made by createServices and handed
 * to whatever counts: the HTTP middleware, the ingest path, the webhook worker, the demo feed.
 * Gauges about the store (its size, how many tokens and trades) are read when scraped.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { StoreHandle } from '../store/port/handle.js';
import type { Repos } from '../store/port/repos.js';
import { streamMetrics, type StreamMetrics } from '../stream/metrics.js';

/** Where an ingest batch came from. The CLI runs in its own process, so its counts stay there. */
export type IngestSource = 'http' | 'cli' | 'demo';

/**
 * What one webhook delivery attempt came to (the outbox's words): `delivered` (a 2xx in time),
 * `retry` (it failed and another attempt is scheduled), `failed` (it failed and its 24 h are
 * over: given up), `cancelled` (nothing to deliver to any more).
 */
export type WebhookOutcome = 'delivered' | 'retry' | 'failed' | 'cancelled';

export type Metrics = {
  readonly registry: Registry;
  /** The live stream's counters, in the same registry. */
  readonly stream: StreamMetrics;
  /**
   * History answers looked up in the response cache, by kind (poll: countback 10 or less; chart:
   * any other) and result; plain counts read at scrape time (history_cache_lookups), so a
   * lookup costs an increment, not a labelled metric call.
   */
  readonly historyLookups: Record<'chart' | 'poll', { hit: number; miss: number }>;
  /** One finished HTTP request. `route` is the route's pattern, or 'unmatched'. */
  observeRequest(r: { method: string; route: string; status: number; seconds: number; caller: 'anonymous' | 'tenant' }): void;
  /** One ingest batch that was written. */
  ingested(source: IngestSource, result: { accepted: number; duplicates: number }): void;
  /** Trades inserted by this process's ingest path, whatever the source (an ingest hook calls it). */
  tradesInserted(n: number): void;
  /** One webhook delivery attempt; `seconds` is how long the POST took, when it was made. */
  webhookDelivery(outcome: WebhookOutcome, seconds?: number): void;
  /** The Prometheus text of every metric (process metrics are added on the first call). */
  scrape(): Promise<string>;
  readonly contentType: string;
};

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The metrics of `store`'s services; scraping reads the store's gauges through `repos.stats`.
 * `walBytes` sizes the store's write-ahead log (its engine's walBytes: SQLite's WAL file, 0 elsewhere).
 */
export function createMetrics(
  store: Pick<StoreHandle, 'isOpen'>,
  repos: Pick<Repos, 'stats'>,
  opts: { walBytes: () => number } = { walBytes: () => 0 },
): Metrics {
  const registry = new Registry();
  const registers = [registry];

  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new Counter({ name, help, labelNames, registers });
  const histogram = <L extends string>(name: string, help: string, buckets: number[], labelNames: readonly L[] = []) =>
    new Histogram({ name, help, labelNames, buckets, registers });

  const requests = counter('http_requests_total', 'HTTP requests answered, by method, route pattern (or "unmatched") and status.', [
    'method',
    'route',
    'status',
  ]);
  const duration = histogram(
    'http_request_duration_seconds',
    'Time from receiving a request to its answer being ready (before the body is sent).',
    LATENCY_BUCKETS,
    ['method', 'route'],
  );
  const limited = counter(
    'http_rate_limited_total',
    'Requests refused with 429 by the rate limiter, by kind of caller (anonymous IP bucket or tenant bucket).',
    ['caller'],
  );
  const ingestBatches = counter('ingest_batches_total', 'Ingest batches written by this process, by source.', ['source']);
  const ingestRecords = counter(
    'ingest_records_total',
    'Ingested records written by this process, by source and outcome (accepted, or duplicate trades counted and skipped).',
    ['source', 'outcome'],
  );
  const trades = counter('ingest_trades_inserted_total', 'Trades inserted by this process through the ingest path, from any source (HTTP, demo feed).');
  const webhooks = counter(
    'webhook_deliveries_total',
    'Webhook delivery attempts, by outcome: delivered (2xx in time), retry (failed, retry scheduled), failed (failed, given up), cancelled.',
    ['outcome'],
  );
  const webhookDuration = histogram('webhook_delivery_duration_seconds', 'Time taken by webhook delivery attempts.', [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]);
  for (const outcome of ['delivered', 'retry', 'failed', 'cancelled'] as const) webhooks.inc({ outcome }, 0);
  const historyLookups = { chart: { hit: 0, miss: 0 }, poll: { hit: 0, miss: 0 } };
  new Gauge({
    name: 'history_cache_lookups',
    help: 'History answers (/udf/history, /v1/token/:address/candles) looked up in the response cache since start, by kind (poll: countback <= 10; chart: any other) and result.',
    labelNames: ['kind', 'result'],
    registers,
    collect() {
      for (const kind of ['chart', 'poll'] as const) for (const result of ['hit', 'miss'] as const) this.set({ kind, result }, historyLookups[kind][result]);
    },
  });

  const { stats } = repos;

  // Read when scraped; a closed or unreachable store (the server stopping, the database away)
  // leaves them as they were: a scrape still answers.
  const gauge = (name: string, help: string, read: () => number | null | Promise<number | null>) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const v = await Promise.resolve()
          .then(read)
          .catch(() => null);
        if (v !== null) this.set(v);
      },
    });
  const ifOpen = (read: () => Promise<number | null>) => () => (store.isOpen() ? read() : null);
  gauge(
    'store_size_bytes',
    'Size of the store: SQLite, page_count * page_size of the main database file (the WAL is separate); PostgreSQL, pg_database_size().',
    ifOpen(stats.sizeBytes),
  );
  gauge('store_wal_bytes', 'Size of the SQLite write-ahead log file (0 for an in-memory or PostgreSQL store).', opts.walBytes);
  gauge('store_tokens', 'Tokens in the store.', ifOpen(stats.tokens));
  gauge('store_trades', 'Trades in the store.', ifOpen(stats.trades));
  // The engines' states (docs/operations.md, Many instances): the store is read when scraped;
  // redis_up is set by the Redis wiring (src/coord/wiring.ts), 0 while Redis is down or not configured.
  gauge('store_up', 'Whether the store answers a query (1) or not (0).', async () => {
    try {
      return store.isOpen() && (await stats.answers()) ? 1 : 0;
    } catch {
      return 0;
    }
  });
  new Gauge({ name: 'redis_up', help: 'Whether the Redis bus to the other instances is live (1) or not (0: down, or no REDIS_URL).', registers });
  // Counted by the bus wiring (src/coord/wiring.ts): messages on the notice channel that are not notices, ignored.
  counter('bus_notices_malformed_total', 'Messages on the change-notice channel (Redis or LISTEN/NOTIFY) that could not be read, ignored.');
  gauge('webhook_deliveries_pending', 'Webhook deliveries waiting in the outbox (due now or scheduled for a retry).', ifOpen(stats.pendingDeliveries));

  let processMetrics = false;

  return {
    registry,
    stream: streamMetrics(registry),
    historyLookups,
    contentType: registry.contentType,
    observeRequest({ method, route, status, seconds, caller }) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ method, route }, seconds);
      if (status === 429) limited.inc({ caller });
    },
    ingested(source, result) {
      ingestBatches.inc({ source });
      ingestRecords.inc({ source, outcome: 'accepted' }, result.accepted);
      ingestRecords.inc({ source, outcome: 'duplicate' }, result.duplicates);
    },
    tradesInserted(n) {
      if (n > 0) trades.inc(n);
    },
    webhookDelivery(outcome, seconds) {
      webhooks.inc({ outcome });
      if (seconds !== undefined) webhookDuration.observe(seconds);
    },
    async scrape() {
      // Process metrics start observers (GC, event loop): only for a registry that is scraped.
      if (!processMetrics) {
        processMetrics = true;
        collectDefaultMetrics({ register: registry });
      }
      return registry.metrics();
    },
  };
}
