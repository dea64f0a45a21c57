/**
 * `npm run bench` (docs/operations.md, Benchmark and performance): builds or reuses the data set, measures the limiter's
 * memory, ingest throughput against bare inserts and the built server's start-up, then for each
 * pass (caches on, caches off) starts the real server on the bench clock, streams live ingest
 * into it and drives every read route and its same-size baseline with autocannon. Prints one
 * table and writes bench/results/latest.json. Progress goes to stderr, the table to stdout.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { projectRoot } from '../src/paths.js';
import { parseBenchArgs, USAGE, type BenchOptions, type IngestKind } from './args.js';
import { processSeconds, watchCpu, type CpuShare } from './cpu.js';
import { BROWSER_ACCEPT_ENCODING, capture } from './baseline.js';
import { copyStore, demoOptions, ensureStore, hotToken, planData, type DataPlan, type DataStats } from './data.js';
import { demoTokens } from '../src/domain/demo-data.js';
import { measureIngest } from './ingest-rate.js';
import { measurePgIngest } from './ingest-pg.js';
import { measureCliIngest } from './ingest-cli.js';
import type { StreamStats, StreamToken } from './ingest-stream.js';
import { startIngestStreamThread } from './ingest-stream-thread.js';
import { formatIngestComparison, ingestComparison } from './ingest-compare.js';
import { driveGroup, type LoadOptions } from './load.js';
import { formatTable, failures, judgeRoute, reportRows, type LimiterFigure, type PassResult, type Report, type RouteRun } from './report.js';
import { benchRoutes, findDeepCursor, routeGroups, type BenchRoute, type CursorWalk } from './routes.js';
import { startBenchServer, type BenchServer } from './server-control.js';
import { runFanout, type FanoutFigure } from './fanout.js';
import { formatHostile, hostileMisses, runHostile, type HostileRow } from './hostile.js';
import { ensureWideStore } from './wide-data.js';
import { provision } from './provision.js';
import { runViewersPass, viewersServed, type ViewersFigure } from './viewers.js';
import { measureStartups, openTargets, type StoreTarget } from './store-target.js';
import { formatStoreComparison, storeComparison } from './store-compare.js';
import { formatIndexer, indexerMisses, runIndexerPass, type IndexerFigure } from './indexer.js';

const DATA_DIR = join(projectRoot, 'bench', '.data');
const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s`;
const say = (msg: string) => process.stderr.write(`[bench ${elapsed()}] ${msg}\n`);

async function limiterMemory(ips: number): Promise<LimiterFigure> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', join(projectRoot, 'dist', 'bench', 'limiter-child.js'), String(ips)], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as LimiterFigure;
}

/** The tokens' prices in the data set (provisioning writes no prices), read from the SQLite file for either store. */
function readPrices(path: string, addresses: readonly string[]): number[] {
  const db = new Database(path, { readonly: true });
  try {
    const price = db.prepare('SELECT price_usd FROM tokens WHERE address = ?').pluck();
    return addresses.map((a) => (price.get(a) as number | null) ?? 1);
  } finally {
    db.close();
  }
}

/** What the pass's ingest trades and how fast: the hot token (live), or every token in turn (broad). */
function streamPlan(ingest: IngestKind, opts: BenchOptions, plan: DataPlan, dataPath: string): { tokens: StreamToken[]; rate: number } {
  const tokens = ingest === 'live' ? [hotToken(plan)] : demoTokens(plan);
  const prices = readPrices(
    dataPath,
    tokens.map((t) => t.address),
  );
  return {
    tokens: tokens.map((t, i) => ({ address: t.address, markets: t.markets, wallets: t.wallets, startPrice: prices[i]! })),
    rate: ingest === 'live' ? opts.ingestRate : opts.broadRate,
  };
}

async function runPass(
  name: 'cached' | 'uncached',
  ingest: IngestKind,
  opts: BenchOptions,
  plan: DataPlan,
  target: StoreTarget,
  dataPath: string,
  stats: DataStats,
): Promise<PassResult> {
  const anchorMs = plan.anchor * 1000;
  const hot = hotToken(plan);
  const broad = ingest === 'broad';
  const work = await target.preparePass(broad ? `${name}_broad` : name, anchorMs, hot.address);
  const { secret, registered } = work;
  if (!registered) say('WARNING: the services have no subscriptions: the live ingest writes no events');
  const feed = streamPlan(ingest, opts, plan, dataPath);
  const label = `${broad ? `${name} broad` : name}${target.kind === 'sqlite' ? '' : ' on postgres'}`;
  // Files and folders of the pass: `cached`, `postgres-cached-broad`, ...
  const fileKey = `${target.kind === 'sqlite' ? '' : 'postgres-'}${name}${broad ? '-broad' : ''}`;

  const env: Record<string, string> = { LOG_LEVEL: opts.logLevel, RATE_LIMIT_ANON: '999999999/1' };
  if (name === 'uncached') env.CACHE = 'off';
  const logFile = join(DATA_DIR, `server-${fileKey}.log`);
  say(
    `${label}: starting the server, ${broad ? `the broad ingest (${feed.rate} trades/s over ${feed.tokens.length} tokens)` : `the live ingest (${feed.rate} trades/s of the hot token)`} (load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
  const cpu = watchCpu();
  const profileDir = opts.profile ? join(DATA_DIR, 'profiles', fileKey) : undefined;
  let server: BenchServer;
  try {
    server = await startBenchServer({ storePath: work.storePath, databaseUrl: work.databaseUrl, anchorMs, env, logFile, profileDir });
  } catch (err) {
    await work.dispose();
    throw err;
  }
  if (profileDir !== undefined) say(`${label}: the server's CPU profile goes to ${profileDir}`);
  const stream =
    feed.rate > 0
      ? // On a thread of its own, so a post's time is not the load generator's (ingest-stream-thread.ts).
        startIngestStreamThread({
          base: server.base,
          secret,
          tokens: feed.tokens,
          anchorMs: server.anchorMs,
          clockStartMs: server.clockStartMs,
          tradesPerSecond: feed.rate,
          intervalMs: opts.ingestIntervalMs,
          label: fileKey,
        })
      : null;
  const headers = { 'x-api-key': secret, 'accept-encoding': BROWSER_ACCEPT_ENCODING };
  const load: LoadOptions = { connections: opts.connections, duration: opts.duration, warmup: opts.warmup, rounds: opts.rounds, headers };
  const routes: RouteRun[] = [];
  let walk: CursorWalk = { cursor: null, depth: 0, pages: 0, error: 'not walked' };
  let streamStats: StreamStats | null = null;
  let share: CpuShare = { seconds: 0, otherCores: null, ownCores: 0 };
  let databaseCores: number | null = null;
  try {
    walk = await findDeepCursor(server.base, hot.address, Math.floor(stats.hotTrades / 2), { 'x-api-key': secret });
    if (walk.error) say(`WARNING: no deep trades cursor: ${walk.error}`);
    const all = benchRoutes(hot.address, plan.anchor, walk.cursor);
    const chosen = opts.only.length === 0 ? all : all.filter((r) => opts.only.some((o) => matchesOnly(r.id, o, all)));
    for (const group of routeGroups(chosen)) {
      // The deep-vs-first figure has a 10 % margin: the trades pages get twice the rounds, so
      // run-to-run noise stays well inside it.
      const groupLoad = group.length > 1 ? { ...load, duration: load.duration * 2, rounds: load.rounds * 2 } : load;
      routes.push(...(await runRoutes(name, label, server, group, groupLoad, secret)));
    }
  } finally {
    streamStats = stream ? await stream.stop() : null;
    // PostgreSQL's sessions of this pass are the store's work, not other processes': counted apart.
    const dbPids = await work.databasePids().catch(() => []);
    const dbSeconds = dbPids.reduce((sum, pid) => sum + (processSeconds(pid) ?? 0), 0);
    share = cpu.stop([server.pid, ...dbPids]);
    if (target.kind === 'postgres' && dbPids.length > 0 && share.seconds > 0) databaseCores = dbSeconds / share.seconds;
    await server.stop();
    await work.dispose();
  }
  if (share.otherCores !== null && share.otherCores > 0.25) {
    say(`${label}: other processes used ${share.otherCores.toFixed(2)} cores during this pass: the figures are pessimistic`);
  }
  if (streamStats && streamStats.failed > 0) say(`WARNING: ${streamStats.failed} of ${streamStats.posts} ingest posts failed: ${streamStats.firstError}`);
  return {
    name,
    store: target.kind,
    ...(broad ? { ingest } : {}),
    routes,
    stream: streamStats,
    deepCursor: { depth: walk.depth, pages: walk.pages, error: walk.error },
    otherCores: share.otherCores,
    databaseCores,
  };
}

/** The hostile pass on one store: provisioned copy, bench server, every expensive kind of request. */
async function runHostileOn(label: string, opts: BenchOptions, storePath: string, hot: string, anchor: number): Promise<HostileRow[]> {
  const work = join(DATA_DIR, 'work.db');
  copyStore(storePath, work);
  const { secret } = await provision(work, anchor * 1000, hot);
  say(`hostile ${label}: starting the server`);
  const server = await startBenchServer({
    storePath: work,
    anchorMs: anchor * 1000,
    env: { LOG_LEVEL: opts.logLevel, RATE_LIMIT_ANON: '999999999/1' },
    logFile: join(DATA_DIR, `server-hostile-${label}.log`),
  });
  try {
    return await runHostile({
      store: label,
      base: server.base,
      pid: server.pid,
      target: { hot, anchor, secret, serverNow: server.serverNow },
      seconds: opts.hostileSeconds,
      say,
      readTurns: server.readTurns,
    });
  } finally {
    await server.stop();
  }
}

/** The hostile pass: on the data set, then on the wide store (docs/operations.md, Benchmark). */
async function hostilePass(opts: BenchOptions, plan: DataPlan, storePath: string): Promise<HostileRow[]> {
  const rows = await runHostileOn('bench', opts, storePath, hotToken(plan).address, plan.anchor);
  if (opts.wideTokens === 0) return rows;
  say(`wide store: ${opts.wideTokens.toLocaleString('en')} tokens, ${opts.wideActive.toLocaleString('en')} traded in the last 24 h`);
  let last = 0;
  const wide = ensureWideStore(DATA_DIR, { tokens: opts.wideTokens, active: opts.wideActive, anchor: plan.anchor }, (n) => {
    if (Date.now() - last > 5000) {
      last = Date.now();
      say(`  generating: ${n.toLocaleString('en')} tokens written`);
    }
  });
  say(wide.generatedMs === null ? 'wide store reused' : `wide store generated in ${(wide.generatedMs / 1000).toFixed(1)} s`);
  return [...rows, ...(await runHostileOn(`${Math.round(opts.wideTokens / 1000)}k tokens`, opts, wide.path, wide.hot, plan.anchor))];
}

/**
 * Routes with their baselines, whose fixed bodies are copies of the routes' answers, measured as
 * one interleaved group (the trades pages go together, so the deep page is compared with the
 * first under the same conditions).
 */
async function runRoutes(
  pass: 'cached' | 'uncached',
  label: string,
  server: BenchServer,
  routes: readonly BenchRoute[],
  load: LoadOptions,
  secret: string,
): Promise<RouteRun[]> {
  const urls: string[] = [];
  const samples: number[] = [];
  for (const route of routes) {
    const url = server.base + route.path;
    const sample = await capture(url, { 'x-api-key': secret, 'accept-encoding': BROWSER_ACCEPT_ENCODING });
    const name = `b${baselineCount++}`;
    await server.setBaseline(name, sample.json, sample.headerBytes);
    urls.push(url, `${server.baselineBase}/${name}`);
    samples.push(sample.status);
  }
  const results = await driveGroup(urls, load);
  return routes.map((route, i) => {
    const result = results[2 * i]!;
    const baseline = results[2 * i + 1]!;
    const target = pass === 'cached' ? route.cachedTarget : route.uncachedTarget;
    const run = judgeRoute(route.id, route.path, result, baseline, target);
    const ratio = run.ratio === null ? '-' : run.ratio.toFixed(2);
    say(
      `${label}: ${route.id.padEnd(18)} ${result.rps.toFixed(0).padStart(6)} req/s, baseline ${baseline.rps.toFixed(0).padStart(6)}, ratio ${ratio}` +
        (samples[i] !== 200 ? `  <-- ${samples[i]} on the sample request` : '') +
        (run.problem ? `  <-- ${run.problem}` : ''),
    );
    return run;
  });
}

let baselineCount = 0;

/** An --only value picks the route of exactly that name, or else every route whose name contains it. */
function matchesOnly(id: string, only: string, all: readonly BenchRoute[]): boolean {
  return all.some((r) => r.id === only) ? id === only : id.includes(only);
}

async function main(): Promise<void> {
  let opts: BenchOptions;
  try {
    opts = parseBenchArgs(process.argv.slice(2), process.env);
  } catch (err) {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
    process.exit(2);
  }
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  mkdirSync(DATA_DIR, { recursive: true });
  const report: Report & { hostile?: HostileRow[] } = { passes: [], ingest: null, startup: null, postgresStartup: null, limiter: null, errors: {} };
  const onSqlite = opts.stores.includes('sqlite');
  const passesOnly = opts.passes.every((p) => p === 'hostile' || p === 'fanout' || p === 'viewers' || p === 'indexer');
  const ingestOnly = opts.passes.every((p) => p === 'ingest');

  const plan = planData({ trades: opts.trades, tokens: opts.tokens, days: opts.days, seed: opts.seed, anchor: opts.anchor });
  say(
    `data set: ${opts.trades.toLocaleString('en')} trades over ${opts.tokens} tokens and ${opts.days} days, anchor ${new Date(opts.anchor * 1000).toISOString()}`,
  );
  let lastReport = 0;
  const data = ensureStore(DATA_DIR, plan, {
    regenerate: opts.regenerate,
    onProgress: (n) => {
      if (n > 0 && Date.now() - lastReport > 5000) {
        lastReport = Date.now();
        say(`  generating: ${n.toLocaleString('en')} trades written`);
      }
    },
  });
  const s = data.stats;
  say(
    `${data.generatedMs === null ? 'reused' : `generated in ${(data.generatedMs / 1000).toFixed(1)} s:`} ${s.trades.toLocaleString('en')} trades, ` +
      `hot token ${s.hotTrades.toLocaleString('en')} (${((s.hotTrades / s.trades) * 100).toFixed(1)} %, ${s.hotTrades24h.toLocaleString('en')} in the last 24 h), ` +
      `${(s.bytes / 1e6).toFixed(0)} MB`,
  );

  // The fan-out or hostile pass alone skips the measurements that do not concern it.
  if (!passesOnly && !ingestOnly) {
    say(`limiter memory for ${opts.limiterIps.toLocaleString('en')} IPs`);
    try {
      report.limiter = await limiterMemory(opts.limiterIps);
    } catch (err) {
      report.errors.limiter = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    }
  }
  if (!passesOnly) {
    say(`ingest: ${opts.ingestTrades.toLocaleString('en')} trades, real path vs bare inserts`);
    try {
      const ingestPlan = planData({ trades: opts.ingestTrades, tokens: opts.tokens, days: opts.days, seed: opts.seed, anchor: opts.anchor });
      report.ingest = await measureIngest(DATA_DIR, demoOptions(ingestPlan), opts.ingestBatch);
    } catch (err) {
      report.errors.ingest = err instanceof Error ? err.message : String(err);
    }
    if (opts.ingestCliTrades > 0) {
      say(`ingest: ${opts.ingestCliTrades.toLocaleString('en')} trades through the CLI (an NDJSON file, whole process) vs a bare insert loop`);
      try {
        const cliPlan = planData({ trades: opts.ingestCliTrades, tokens: opts.tokens, days: opts.days, seed: opts.seed, anchor: opts.anchor });
        report.ingestCli = await measureCliIngest(DATA_DIR, demoOptions(cliPlan), undefined, opts.ingestCliRounds);
      } catch (err) {
        report.errors.ingestCli = err instanceof Error ? err.message : String(err);
      }
    }
  }

  // The stores the cached and uncached passes run on; PostgreSQL's is the same data set copied.
  const { targets, postgres, error, serverUrl } = await openTargets({
    stores: passesOnly ? opts.stores.filter((k) => k === 'sqlite') : opts.stores,
    databaseUrl: opts.databaseUrl,
    dataDir: DATA_DIR,
    dataPath: data.path,
    regenerate: opts.regenerate,
    say,
  });
  if (error !== null) report.errors.postgres = error;

  // The same trades on PostgreSQL, in databases of their own on the pass's server (bench/ingest-pg.ts).
  if (serverUrl !== null && !passesOnly) {
    say(`ingest on postgres: ${opts.ingestTrades.toLocaleString('en')} trades, real path vs bare multi-row inserts`);
    report.pgIngest = null;
    try {
      const ingestPlan = planData({ trades: opts.ingestTrades, tokens: opts.tokens, days: opts.days, seed: opts.seed, anchor: opts.anchor });
      report.pgIngest = await measurePgIngest(serverUrl, demoOptions(ingestPlan), opts.ingestBatch);
    } catch (err) {
      report.errors.pgIngest = err instanceof Error ? err.message : String(err);
    }
  }

  if (opts.startupRuns > 0 && !passesOnly && !ingestOnly) {
    Object.assign(report, await measureStartups(targets, opts.startupRuns, plan.anchor * 1000, hotToken(plan).address, say));
  }

  const fanout: FanoutFigure[] = [];
  let viewers: ViewersFigure[] = [];
  let indexer: IndexerFigure | null = null;
  for (const pass of opts.passes) {
    if (pass === 'ingest') continue;
    if (pass === 'indexer') {
      // Its own local node and stores (SQLite); the reorg measurement alone uses the data set.
      try {
        indexer = await runIndexerPass({
          blocks: opts.indexerBlocks,
          swapsPerBlock: opts.indexerSwapsPerBlock,
          followSeconds: opts.indexerFollowSeconds,
          // The reorg measurement is on the data set's store (its hot token), on a working copy.
          reorgStore: { path: data.path, workPath: join(DATA_DIR, 'reorg.db'), hot: hotToken(plan).address, anchor: plan.anchor },
          say,
        });
      } catch (err) {
        report.errors.indexer = err instanceof Error ? err.message : String(err);
        say(`ERROR in the indexer pass: ${report.errors.indexer}`);
      }
      continue;
    }
    if (pass === 'viewers' || pass === 'fanout' || pass === 'hostile') {
      if (opts.stores.includes('postgres')) say(`the ${pass} pass runs on SQLite only for now: not on postgres`);
      if (!onSqlite) continue;
    } else {
      // Each pass under each ingest on each store in turn (SQLite, then PostgreSQL), so the two see the same hour.
      for (const ingest of opts.ingests) {
        for (const target of targets) {
          const key = `${target.kind === 'sqlite' ? '' : 'postgres '}${pass}${ingest === 'broad' ? ' broad' : ''}`;
          try {
            report.passes.push(await runPass(pass, ingest, opts, plan, target, data.path, s));
          } catch (err) {
            report.errors[key] = err instanceof Error ? err.message : String(err);
            say(`ERROR in the ${key} pass: ${report.errors[key]}`);
          }
        }
      }
      continue;
    }
    try {
      if (pass === 'viewers') {
        viewers = await runViewersPass({
          dataDir: DATA_DIR,
          storePath: data.path,
          plan,
          counts: opts.viewers,
          seconds: opts.viewersSeconds,
          ingestRate: opts.ingestRate,
          logLevel: opts.logLevel,
          profileDir: opts.profile ? join(DATA_DIR, 'profiles', 'viewers') : undefined,
          say,
        });
      } else if (pass === 'fanout') {
        const hot = hotToken(plan);
        for (const subscribers of opts.fanoutSubscribers) {
          const f = await runFanout({
            dataDir: DATA_DIR,
            storePath: data.path,
            anchorMs: plan.anchor * 1000,
            hot,
            subscribers,
            seconds: opts.fanoutSeconds,
            tradesPerSecond: opts.ingestRate || 50,
            profileDir: opts.profile ? join(DATA_DIR, 'profiles', `fanout-${subscribers}`) : undefined,
            say,
          });
          say(`fanout ${subscribers}: ${JSON.stringify(f)}`);
          fanout.push(f);
        }
      } else report.hostile = await hostilePass(opts, plan, data.path);
    } catch (err) {
      report.errors[pass] = err instanceof Error ? err.message : String(err);
      say(`ERROR in the ${pass} pass: ${report.errors[pass]}`);
    }
  }

  for (const target of targets) await target.close().catch((err: unknown) => say(`WARNING: ${target.kind} store: ${String(err)}`));
  // The working copies are as big as the data set; the cached store stays for the next run.
  for (const db of ['work.db', 'fanout.db']) for (const suffix of ['', '-wal', '-shm']) rmSync(join(DATA_DIR, db) + suffix, { force: true });

  const rows = reportRows(report);
  process.stdout.write(`\n${formatTable(rows)}\n\n`);
  const compared = storeComparison(report.passes);
  if (compared.length > 0) process.stdout.write(`the same data set on both stores:\n${formatStoreComparison(compared)}\n\n`);
  const byIngest = ingestComparison(report.passes);
  if (byIngest.length > 0) process.stdout.write(`ratio to the ceiling under the live and the broad ingest:\n${formatIngestComparison(byIngest)}\n\n`);
  if (report.hostile !== undefined) process.stdout.write(`${formatHostile(report.hostile)}\n\n`);
  const failed = [
    ...failures(rows).map((r) => ({ figure: r.store === 'postgres' ? `${r.figure} (postgres)` : r.figure })),
    ...hostileMisses(report.hostile ?? []).map((r) => ({ figure: `hostile ${r.store}: ${r.kind}` })),
    ...indexerMisses(indexer).map((figure) => ({ figure })),
  ];
  process.stdout.write(
    failed.length === 0 ? 'every figure meets its target\n' : `${failed.length} figure(s) miss their target: ${failed.map((r) => r.figure).join('; ')}\n`,
  );
  for (const f of fanout) {
    const ms = (v: number | null) => (v === null ? '-' : `${v.toFixed(1)} ms`);
    process.stdout.write(
      `fan-out ${f.subscribers} subscribers: receipt p50 ${ms(f.receiptP50Ms)} p99 ${ms(f.receiptP99Ms)} (target p99 < 100 ms), ` +
        `server commit-to-send p50 <= ${ms(f.serverDelayP50Ms)} p99 <= ${ms(f.serverDelayP99Ms)}, ${f.messages} messages, ` +
        `${f.cpuMicrosPerMessage === null ? '-' : f.cpuMicrosPerMessage.toFixed(1)} µs server CPU per message, ` +
        `(${f.serverSent ?? '-'} sent; clients ${f.clientCpuMicrosPerMessage?.toFixed(1) ?? '-'} µs CPU per message; others busy ${f.otherCores?.toFixed(2) ?? '-'} cores), ` +
        `${f.idleBytesPerConnection === null ? '-' : (f.idleBytesPerConnection / 1024).toFixed(1)} KB per idle connection (target < 20 KB)\n`,
    );
  }
  if (indexer !== null) process.stdout.write(`${formatIndexer(indexer)}\n`);
  if (viewers.length > 0) process.stdout.write(`viewers served at p99 < 100 ms: ${viewersServed(viewers) ?? 'none of those tried'}\n`);
  for (const [k, v] of Object.entries(report.errors)) process.stdout.write(`error (${k}): ${v}\n`);

  const out = resolve(projectRoot, opts.out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    JSON.stringify(
      {
        finishedAt: new Date().toISOString(),
        seconds: (Date.now() - t0) / 1000,
        machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? null, memoryBytes: totalmem(), node: process.version, loadAverage: loadavg() },
        options: opts,
        data: { plan, stats: s, generatedMs: data.generatedMs },
        stores: opts.stores,
        postgres,
        storeComparison: compared,
        ingestComparison: byIngest,
        ...report,
        fanout,
        viewers,
        indexer,
        rows,
      },
      null,
      2,
    ) + '\n',
  );
  say(`results written to ${out} (${((Date.now() - t0) / 1000).toFixed(0)} s in all)`);
}

main().catch((err: unknown) => {
  process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
