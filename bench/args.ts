/** The benchmark's command-line flags (node:util parseArgs), validated into BenchOptions. */
import { parseArgs } from 'node:util';

export type BenchStoreKind = 'sqlite' | 'postgres';

/**
 * The ingest that runs beside the cached and uncached passes' load: `live`, the hot token's
 * trades (`--ingest-rate`); `broad`, trades over every token of the data set in turn
 * (`--broad-rate`), each post a block of many tokens, as an indexer's are.
 */
export type IngestKind = 'live' | 'broad';

export type BenchOptions = {
  trades: number;
  tokens: number;
  days: number;
  seed: number;
  /** Unix seconds: the data set ends here and the server's clock starts here. */
  anchor: number;
  connections: number;
  /** Measured seconds per route (and as many for its baseline), split over the rounds. */
  duration: number;
  /** Rounds of route, baseline, route, baseline, ... */
  rounds: number;
  /** Seconds of warm-up before each measured run. */
  warmup: number;
  ingestRate: number;
  ingestIntervalMs: number;
  /** The ingests the cached and uncached passes run under, in this order (each pass under each in turn). */
  ingests: IngestKind[];
  /** Trades/s of the broad ingest, spread over every token. */
  broadRate: number;
  /** Trades in the ingest throughput measurement. */
  ingestTrades: number;
  ingestBatch: number;
  /** Trades in the CLI ingest measurement (bench/ingest-cli.ts); 0 leaves it out. */
  ingestCliTrades: number;
  /** Rounds of bare loop then CLI in that measurement. */
  ingestCliRounds: number;
  limiterIps: number;
  startupRuns: number;
  passes: ('cached' | 'uncached' | 'fanout' | 'hostile' | 'viewers' | 'indexer' | 'ingest')[];
  /** The indexer pass's chain: blocks mined and swaps sent per block, and seconds of following. */
  indexerBlocks: number;
  indexerSwapsPerBlock: number;
  indexerFollowSeconds: number;
  /** The stores the cached and uncached passes run on, in this order (each pass on each in turn). */
  stores: BenchStoreKind[];
  /** The PostgreSQL server for the postgres store (its databases are made there); null: a throwaway one. */
  databaseUrl: string | null;
  /** Viewer counts of the viewers pass, one run each. */
  viewers: number[];
  /** Seconds of each viewers run. */
  viewersSeconds: number;
  /** Subscriber counts of the fan-out pass, one run each. */
  fanoutSubscribers: number[];
  /** Measured seconds of each fan-out run. */
  fanoutSeconds: number;
  /** Tokens of the hostile pass's wide store (0: the wide store is left out). */
  wideTokens: number;
  /** Of those, tokens traded in the last 24 h. */
  wideActive: number;
  /** Seconds each kind of request runs in the hostile pass. */
  hostileSeconds: number;
  /** Only routes whose name contains one of these (all when empty). */
  only: string[];
  logLevel: string;
  regenerate: boolean;
  /** Write a CPU profile of each pass's server under bench/.data/profiles/. */
  profile: boolean;
  out: string;
  help: boolean;
};

export const USAGE = `usage: npm run bench -- [options]
  --trades N            trades in the data set (default 1000000; e.g. 100000, 3000000)
  --tokens N            tokens (default 50); the first, the hot one, holds half the trades
  --days N              days of history (default 30)
  --seed N              generator seed (default 1)
  --anchor T            unix seconds where the data ends and the server clock starts (default 1750000000)
  --connections N       autocannon connections (default 10)
  --duration S          measured seconds per route and as many for its baseline (default 6;
                        the two trades pages, measured together, get twice as long)
  --rounds N            interleaved rounds route, baseline, ... over those seconds (default 3)
  --warmup S            seconds of warm-up of each before the rounds (default 1)
  --ingest-rate N       live ingest trades/s during the load runs (default 50)
  --ingest-interval MS  one ingest post every MS (default 200)
  --ingest I            the ingest beside the cached and uncached passes: live (default), the hot
                        token's trades at --ingest-rate; broad, --broad-rate trades/s over every
                        token in turn (each post a block of many tokens, as an indexer's); or
                        both: each pass under live then under broad, reported side by side
  --broad-rate N        trades/s of the broad ingest over all tokens (default 200)
  --ingest-trades N     trades in the ingest throughput measurement (default 100000, at most --trades)
  --ingest-batch N      trades per transaction in that measurement (default 1000)
  --ingest-cli-trades N trades of the NDJSON file the CLI ingests against a bare insert loop
                        (default 300000, over --tokens tokens; 0 leaves it out)
  --ingest-cli-rounds N rounds of bare loop then CLI there (default 2; the ratio is the median)
  --limiter-ips N       distinct IPs in the limiter memory measurement (default 1000000)
  --startup-runs N      start-ups to time (default 3)
  --pass P              cached, uncached, both (the two), fanout, indexer, all (default: cached,
                        uncached, fanout and indexer) or hostile: the expensive requests one in flight while a
                        probe times /healthz, on the data set and a wide store; or viewers:
                        simulated TradingView charts under the live ingest (opt-in); or ingest:
                        the two ingest figures alone (in process and through the CLI)
  --store S             sqlite (default), postgres: the same data set copied into a PostgreSQL
                        database, or both: each pass on SQLite then on PostgreSQL, side by side
  --database-url URL    the PostgreSQL server for --store postgres (default BENCH_DATABASE_URL;
                        without either a throwaway one is started with scripts/engines.sh)
  --viewers L           viewer counts of the viewers pass (default 500,2000)
  --viewers-seconds S   seconds of each viewers run (default 30: a chart open and two polls each)
  --fanout-subscribers L  subscriber counts of the fan-out pass (default 1000,10000)
  --fanout-seconds S    measured seconds of each fan-out run (default 10)
  --wide-tokens N       tokens of the hostile pass's wide store (default 200000; 0 leaves it out)
  --wide-active N       of those, tokens traded in the last 24 h (default 20000)
  --hostile-seconds S   seconds per kind of request in the hostile pass (default 4)
  --indexer-blocks N    blocks of swaps on the indexer pass's local node (default 2000)
  --indexer-swaps-per-block N  swaps sent per block there (default 18)
  --indexer-follow-seconds S   seconds of head following on 1 s blocks (default 60)
  --only NAME           only the route named NAME, or those whose name contains it (repeatable)
  --log-level L         the server's LOG_LEVEL (default warn; info adds the access log)
  --regenerate          rebuild the cached data set
  --profile             CPU-profile the server of each pass (bench/.data/profiles/<pass>/)
  --out FILE            results JSON (default bench/results/latest.json)`;

const int = (name: string, raw: string | undefined, fallback: number, min: number, max: number): number => {
  if (raw === undefined) return fallback;
  if (!/^(0|[1-9][0-9]*)$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new Error(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(raw);
};

/** Parses argv (and BENCH_DATABASE_URL of `env`); throws an Error with a one-line message on bad usage. */
export function parseBenchArgs(argv: string[], env: { BENCH_DATABASE_URL?: string } = {}): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      trades: { type: 'string' },
      tokens: { type: 'string' },
      days: { type: 'string' },
      seed: { type: 'string' },
      anchor: { type: 'string' },
      connections: { type: 'string' },
      duration: { type: 'string' },
      rounds: { type: 'string' },
      warmup: { type: 'string' },
      'ingest-rate': { type: 'string' },
      'ingest-interval': { type: 'string' },
      ingest: { type: 'string' },
      'broad-rate': { type: 'string' },
      'ingest-trades': { type: 'string' },
      'ingest-batch': { type: 'string' },
      'ingest-cli-trades': { type: 'string' },
      'ingest-cli-rounds': { type: 'string' },
      'limiter-ips': { type: 'string' },
      'startup-runs': { type: 'string' },
      pass: { type: 'string' },
      'fanout-subscribers': { type: 'string' },
      'fanout-seconds': { type: 'string' },
      'wide-tokens': { type: 'string' },
      'wide-active': { type: 'string' },
      'hostile-seconds': { type: 'string' },
      viewers: { type: 'string' },
      store: { type: 'string' },
      'database-url': { type: 'string' },
      'viewers-seconds': { type: 'string' },
      only: { type: 'string', multiple: true },
      'log-level': { type: 'string' },
      'indexer-blocks': { type: 'string' },
      'indexer-swaps-per-block': { type: 'string' },
      'indexer-follow-seconds': { type: 'string' },
      regenerate: { type: 'boolean' },
      profile: { type: 'boolean' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const trades = int('trades', values.trades, 1_000_000, 1000, 50_000_000);
  const pass = values.pass ?? 'all';
  if (!['cached', 'uncached', 'both', 'fanout', 'all', 'hostile', 'viewers', 'indexer', 'ingest'].includes(pass))
    throw new Error('--pass must be cached, uncached, both, fanout, indexer, all, hostile or viewers, or ingest (the ingest figures alone)');
  const fanoutSubscribers = (values['fanout-subscribers'] ?? '1000,10000').split(',').map((v) => int('fanout-subscribers', v, 0, 1, 18_000));
  const wideTokens = int('wide-tokens', values['wide-tokens'], 200_000, 0, 2_000_000);
  const store = values.store ?? 'sqlite';
  if (!['sqlite', 'postgres', 'both'].includes(store)) throw new Error('--store must be sqlite, postgres or both');
  const databaseUrl = values['database-url'] ?? (env.BENCH_DATABASE_URL || null);
  if (databaseUrl !== null && !/^postgres(ql)?:\/\/[^/]/.test(databaseUrl)) {
    throw new Error(`${values['database-url'] === undefined ? 'BENCH_DATABASE_URL' : '--database-url'} must be a postgres:// URL with a host`);
  }
  const ingest = values.ingest ?? 'live';
  if (!['live', 'broad', 'both'].includes(ingest)) throw new Error('--ingest must be live, broad or both');
  const logLevel = values['log-level'] ?? 'warn';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) throw new Error('--log-level must be a pino level');
  return {
    trades,
    tokens: int('tokens', values.tokens, 50, 2, 10_000),
    days: int('days', values.days, 30, 2, 3650),
    seed: int('seed', values.seed, 1, 0, 2 ** 31),
    anchor: int('anchor', values.anchor, 1_750_000_000, 1_000_000_000, 4_000_000_000),
    connections: int('connections', values.connections, 10, 1, 1000),
    duration: int('duration', values.duration, 6, 1, 600),
    rounds: int('rounds', values.rounds, 3, 1, 60),
    warmup: int('warmup', values.warmup, 1, 0, 60),
    ingestRate: int('ingest-rate', values['ingest-rate'], 50, 0, 100_000),
    ingestIntervalMs: int('ingest-interval', values['ingest-interval'], 200, 10, 60_000),
    ingests: ingest === 'both' ? ['live', 'broad'] : [ingest as IngestKind],
    broadRate: int('broad-rate', values['broad-rate'], 200, 1, 100_000),
    ingestTrades: Math.min(trades, int('ingest-trades', values['ingest-trades'], 100_000, 1000, 10_000_000)),
    ingestBatch: int('ingest-batch', values['ingest-batch'], 1000, 1, 100_000),
    ingestCliTrades: int('ingest-cli-trades', values['ingest-cli-trades'], 300_000, 0, 10_000_000),
    ingestCliRounds: int('ingest-cli-rounds', values['ingest-cli-rounds'], 2, 1, 20),
    limiterIps: int('limiter-ips', values['limiter-ips'], 1_000_000, 1, 100_000_000),
    startupRuns: int('startup-runs', values['startup-runs'], 3, 0, 100),
    passes: pass === 'all' ? ['cached', 'uncached', 'fanout', 'indexer'] : pass === 'both' ? ['cached', 'uncached'] : [pass as BenchOptions['passes'][number]],
    indexerBlocks: int('indexer-blocks', values['indexer-blocks'], 2000, 10, 100_000),
    indexerSwapsPerBlock: int('indexer-swaps-per-block', values['indexer-swaps-per-block'], 18, 1, 500),
    indexerFollowSeconds: int('indexer-follow-seconds', values['indexer-follow-seconds'], 60, 0, 3600),
    stores: store === 'both' ? ['sqlite', 'postgres'] : [store as BenchStoreKind],
    databaseUrl,
    viewers: (values.viewers ?? '500,2000').split(',').map((v) => int('viewers', v, 0, 1, 20_000)),
    viewersSeconds: int('viewers-seconds', values['viewers-seconds'], 30, 10, 600),
    fanoutSubscribers,
    fanoutSeconds: int('fanout-seconds', values['fanout-seconds'], 10, 1, 600),
    wideTokens,
    wideActive: Math.min(wideTokens, int('wide-active', values['wide-active'], 20_000, 0, 2_000_000)),
    hostileSeconds: int('hostile-seconds', values['hostile-seconds'], 4, 1, 120),
    only: values.only ?? [],
    logLevel,
    regenerate: values.regenerate ?? false,
    profile: values.profile ?? false,
    out: values.out ?? 'bench/results/latest.json',
    help: values.help ?? false,
  };
}
