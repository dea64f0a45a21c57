/**
 * The benchmark's reorg measurement (docs/indexer.md, Reorgs): on a working copy of the
 * benchmark's store (one million trades by default, half of them the hot token's), the retraction
 * the indexer makes for a 3-block reorg on the hot token (its newest trades, as many a block as
 * asked; its token and market records written back with the position rollback, as the indexer
 * writes them), timed, while a worker thread reads the hot token through the HTTP API of a
 * server in this process (overview, trades, bars, top traders, prices) without pause. The server
 * is the indexer's process, as with INDEXER_CONFIG: its reads wait behind the retraction's
 * transaction. Figures: the retraction's time, the longest read in flight during it (target: no
 * read waits more than 100 ms behind it) against the longest before it, and the overview answers
 * during it: each must be the store before or after the retraction, never between.
 * Run alone: `npx tsx bench/reorg.ts [--trades N] [--per-block N]`.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createServices } from '../src/services/index.js';
import { openStore } from '../src/store/sqlite/db.js';
import { projectRoot } from '../src/paths.js';
import type { IngestRecord } from '../src/domain/records.js';
import type { Retraction } from '../src/store/port/retract.js';
import { copyStore, ensureStore, hotToken, planData } from './data.js';

export type ReorgFigure = {
  storeTrades: number;
  hotTrades: number;
  blocks: number;
  /** Trades the retraction removed. */
  removed: number;
  retractMs: number;
  /** Reads in flight while the retraction ran, and the longest of them. */
  readsDuring: number;
  readMaxDuringMs: number;
  /** The longest read of the second before it (the same reads, no retraction). */
  readMaxBeforeMs: number;
  /**
   * Overview answers from its start on: the store before the retraction, after it, or neither
   * (must be 0); `stale`: answers begun after it ended that still show the store before (must be 0).
   */
  answers: { before: number; after: number; neither: number; stale: number };
};

export type ReorgOptions = { storePath: string; workPath: string; hot: string; anchor: number; blocks: number; perBlock: number; say(line: string): void };

type Read = { route: string; start: number; ms: number; trades24h: number | null };

/** The readers: 4 loops, each one request after another over the routes, timed in wall-clock ms. */
const READER = `
const { parentPort, workerData } = require('node:worker_threads');
const reads = [];
let stop = false;
parentPort.on('message', () => { stop = true; });
const loop = async (offset) => {
  for (let i = offset; !stop; i++) {
    const route = workerData.routes[i % workerData.routes.length];
    const start = performance.timeOrigin + performance.now();
    const res = await fetch(workerData.base + route);
    const body = await res.json();
    const ms = performance.timeOrigin + performance.now() - start;
    reads.push({ route, start, ms, trades24h: body && body.windows ? body.windows['24h'].trades : null });
    // Warm: every route read a few times (caches filled, connections open).
    if (offset === 0 && i === workerData.routes.length * 4) parentPort.postMessage('warm');
  }
};
Promise.all([0, 1, 2, 3].map(loop)).then(() => parentPort.postMessage(reads));
`;

const now = (): number => performance.timeOrigin + performance.now();
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function measureReorg(opts: ReorgOptions): Promise<ReorgFigure> {
  copyStore(opts.storePath, opts.workPath);
  const store = openStore(opts.workPath);
  const clock = { now: () => opts.anchor * 1000 };
  const config = loadConfig({ DATABASE_PATH: opts.workPath, DEMO_DATA: 'off', DEMO_FEED: 'off', LOG_LEVEL: 'silent' });
  const services = createServices({ store, clock, config });
  const app = createApp({ config, store, clock, services, logger: createLogger('silent') });
  const server = createServer(app.callback());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let worker: Worker | null = null;
  try {
    const count = (sql: string, ...args: unknown[]) =>
      store.db
        .prepare(sql)
        .pluck()
        .get(...args) as number;
    const hotId = count('SELECT id FROM tokens WHERE address = ?', opts.hot);
    const newest = store.db
      .prepare('SELECT signature, idx FROM trades WHERE token_id = ? ORDER BY id DESC LIMIT ?')
      .all(hotId, opts.blocks * opts.perBlock) as { signature: string; idx: number }[];
    // What the indexer writes back beside the removal: the token's record and its markets'.
    const overview = (await (await fetch(`${base}/v1/token/${opts.hot}/overview`)).json()) as Record<string, unknown>;
    const markets = (await (await fetch(`${base}/v1/token/${opts.hot}/markets`)).json()) as { markets: Record<string, unknown>[] };
    const records: IngestRecord[] = [
      {
        type: 'token',
        address: opts.hot,
        symbol: overview.symbol as string,
        name: overview.name as string,
        decimals: overview.decimals as number,
        totalSupply: overview.totalSupply as number | null,
        circulatingSupply: overview.circulatingSupply as number | null,
        createdAt: overview.createdAt as number,
        logoUri: null,
      },
      ...markets.markets.map((m): IngestRecord => ({
        type: 'market',
        address: m.address as string,
        token: opts.hot,
        quoteAddress: m.quoteAddress as string,
        quoteSymbol: m.quoteSymbol as string,
        dex: m.dex as string,
        liquidityUsd: m.liquidityUsd as number,
        createdAt: m.createdAt as number,
      })),
    ];
    const retraction: Retraction = { trades: newest.map((t) => ({ signature: t.signature, index: t.idx })), markets: [], tokens: [], records };
    const from = opts.anchor - 3600;
    const routes = [
      `/v1/token/${opts.hot}/overview`,
      `/v1/token/${opts.hot}/trades?limit=100`,
      `/udf/history?symbol=${opts.hot}&resolution=1&from=${from}&to=${opts.anchor}`,
      `/v1/token/${opts.hot}/top-traders?window=24h`,
      `/v1/prices?addresses=${opts.hot}`,
    ];
    worker = new Worker(READER, { eval: true, workerData: { base, routes } });
    const w = worker;
    await new Promise((resolve) => w.once('message', resolve));
    const collected = new Promise<Read[]>((resolve) => w.once('message', resolve));
    await pause(1000);
    const t0 = now();
    const result = await services.ingest.retract(retraction, {
      within: (tx) => services.repos.indexer.rollback(tx, { chain: 'bench', to: { number: 1, hash: '0x01' }, restore: [], now: opts.anchor }),
    });
    const t1 = now();
    await pause(1000);
    worker.postMessage('stop');
    const reads = await collected;
    const during = reads.filter((r) => r.start < t1 && r.start + r.ms > t0);
    const before = reads.filter((r) => r.start + r.ms <= t0 && r.start >= t0 - 1000);
    const beforeTrades = reads.find((r) => r.trades24h !== null && r.start + r.ms <= t0)?.trades24h ?? null;
    const answers = { before: 0, after: 0, neither: 0, stale: 0 };
    for (const r of reads) {
      if (r.trades24h === null || r.start + r.ms <= t0) continue;
      if (r.trades24h === beforeTrades) {
        answers.before++;
        if (r.start >= t1) answers.stale++;
      } else if (beforeTrades !== null && r.trades24h === beforeTrades - result.removed) answers.after++;
      else answers.neither++;
    }
    const max = (xs: Read[]) => Math.round(Math.max(0, ...xs.map((r) => r.ms)));
    return {
      storeTrades: count('SELECT count(*) FROM trades') + result.removed,
      hotTrades: count('SELECT count(*) FROM trades WHERE token_id = ?', hotId) + result.removed,
      blocks: opts.blocks,
      removed: result.removed,
      retractMs: Math.round((t1 - t0) * 10) / 10,
      readsDuring: during.length,
      readMaxDuringMs: max(during),
      readMaxBeforeMs: max(before),
      answers,
    };
  } finally {
    await worker?.terminate();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    store.close();
  }
}

/** The target the benchmark holds the measurement to. */
export function reorgMisses(f: ReorgFigure | null): string[] {
  if (f === null) return [];
  const misses: string[] = [];
  if (!(f.readMaxDuringMs <= 100)) misses.push(`reorg: a read waited ${f.readMaxDuringMs} ms behind the retraction (target <= 100 ms)`);
  if (f.answers.neither > 0) misses.push(`reorg: ${f.answers.neither} overview answers were neither the store before nor after the retraction`);
  if (f.answers.stale > 0) misses.push(`reorg: ${f.answers.stale} overview answers begun after the retraction still showed the store before it`);
  return misses;
}

export function formatReorg(f: ReorgFigure): string {
  return [
    `reorg: ${f.blocks} blocks, ${f.removed} trades of the hot token (${f.hotTrades.toLocaleString('en')} of ${f.storeTrades.toLocaleString('en')} trades) removed in ${f.retractMs} ms`,
    `  reads during it: ${f.readsDuring}, the longest ${f.readMaxDuringMs} ms (target <= 100 ms; ${f.readMaxBeforeMs} ms before it); overview answers from then on before/after/neither ${f.answers.before}/${f.answers.after}/${f.answers.neither}, stale ${f.answers.stale}`,
  ].join('\n');
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const { values } = parseArgs({ options: { trades: { type: 'string' }, 'per-block': { type: 'string' } } });
  const plan = planData({ trades: Number(values.trades ?? 1_000_000), tokens: 50, days: 30, seed: 1, anchor: 1_750_000_000 });
  const dir = join(projectRoot, 'bench', '.data');
  const say = (l: string) => process.stderr.write(`${l}\n`);
  say(`data set: ${plan.trades.toLocaleString('en')} trades (generated once, then reused from ${dir})`);
  const data = ensureStore(dir, plan);
  const figure = await measureReorg({
    storePath: data.path,
    workPath: join(dir, 'reorg.db'),
    hot: hotToken(plan).address,
    anchor: plan.anchor,
    blocks: 3,
    perBlock: Number(values['per-block'] ?? 10),
    say,
  });
  process.stdout.write(`${JSON.stringify(figure, null, 2)}\n${formatReorg(figure)}\n`);
}
