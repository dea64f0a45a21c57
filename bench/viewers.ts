/**
 * The viewers pass (docs/operations.md, Benchmark): simulated TradingView charts with the real
 * udf-compatible adapter's request pattern, under the live ingest. A viewer opens its chart at
 * its clock phase (spread over the 10-s poll period): /udf/symbols, then /udf/history with
 * countback 300 and `to` = now + 60 s; then every 10 s a countback-2 poll with `to` = the current
 * second; `currencyCode=USD` on each, and a browser's Accept-Encoding. Hot tokens get most
 * viewers (the token of rank r gets a share in 1/(r+1)). Reports, per viewer count, the
 * latency of every request (p99 must stay under 100 ms) and the server's CPU per viewer-second.
 */
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { BROWSER_ACCEPT_ENCODING, capture } from './baseline.js';
import { processSeconds } from './cpu.js';
import { copyStore, hotToken, type DataPlan } from './data.js';
import { startIngestStream } from './ingest-stream.js';
import { quantile } from './load.js';
import { provision } from './provision.js';
import { startBenchServer } from './server-control.js';
import { startViewersCeiling, type CeilingAnswer, type ViewersCeiling } from './viewers-ceiling.js';

import { demoTokens } from '../src/domain/demo-data.js';

export const POLL_MS = 10_000;
/** Loopback addresses the viewers connect from (127.0.0.2 ...): under the server's per-IP connection cap. */
const CLIENT_IPS = 64;

export type ViewersFigure = {
  viewers: number;
  seconds: number;
  requests: number;
  failed: number;
  p50Ms: number;
  p99Ms: number;
  /** Server CPU (user + system) per viewer and second of the run, in microseconds. */
  cpuMicrosPerViewerSecond: number | null;
  /** Of that, the live ingest's and the timers' own CPU (the server with no viewers), spread over the viewers. */
  ingestMicrosPerViewerSecond?: number | null;
  /** The ceiling's CPU per viewer-second: a bare Koa app serving the same bytes to as many viewers, no ingest. */
  ceilingMicrosPerViewerSecond?: number | null;
  /** Per cent of chart opens (countback 300) and of polls answered from the response cache, or null when the server does not count them. */
  chartHitPercent: number | null;
  pollHitPercent: number | null;
};

type Lookups = Record<string, number>;

/** The server's history_cache_lookups counts (docs/operations.md, Metrics), keyed kind/result. */
async function historyLookups(base: string): Promise<Lookups> {
  const text = await (await fetch(base + '/metrics')).text();
  const out: Lookups = {};
  for (const m of text.matchAll(/^history_cache_lookups\{kind="(\w+)",result="(\w+)"[^}]*\} (\d+)$/gm)) out[`${m[1]}/${m[2]}`] = Number(m[3]);
  return out;
}

const hitPercent = (a: Lookups, b: Lookups, kind: string): number | null => {
  const hit = (b[`${kind}/hit`] ?? 0) - (a[`${kind}/hit`] ?? 0);
  const miss = (b[`${kind}/miss`] ?? 0) - (a[`${kind}/miss`] ?? 0);
  return hit + miss === 0 ? null : (100 * hit) / (hit + miss);
};

/** The token index of each viewer: rank r drawn with weight 1/(r+1), deterministic. */
export function viewerTokens(viewers: number, tokens: number): number[] {
  const weights = Array.from({ length: tokens }, (_, r) => 1 / (r + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const out: number[] = [];
  let r = 0;
  let acc = weights[0]! / total;
  for (let i = 0; i < viewers; i++) {
    const u = (i + 0.5) / viewers;
    while (u > acc && r < tokens - 1) acc += weights[++r]! / total;
    out.push(r);
  }
  return out;
}

/** The three requests of a viewer: the UDF routes, or the ceiling's fixed answers. */
export type ViewerPaths = {
  symbols(symbol: string): string;
  open(symbol: string, to: number): string;
  poll(symbol: string, to: number): string;
};

export const UDF_PATHS: ViewerPaths = {
  symbols: (symbol) => `/udf/symbols?symbol=${symbol}&currencyCode=USD`,
  open: (symbol, to) => `/udf/history?symbol=${symbol}&resolution=1&from=${to - 300 * 60}&to=${to}&countback=300&currencyCode=USD`,
  poll: (symbol, to) => `/udf/history?symbol=${symbol}&resolution=1&from=${to - 120}&to=${to}&countback=2&currencyCode=USD`,
};

export const CEILING_PATHS: ViewerPaths = { symbols: () => '/symbols', open: () => '/open', poll: () => '/poll' };

/** Drives `viewers` charts for `seconds` against `base`; `pid` is the server's, for its CPU. */
export async function driveViewers(o: {
  base: string;
  pid: number;
  tokens: readonly string[];
  viewers: number;
  seconds: number;
  serverNow(): number;
  paths?: ViewerPaths;
}): Promise<ViewersFigure> {
  const paths = o.paths ?? UDF_PATHS;
  const latencies: number[] = [];
  let failed = 0;
  // Each viewer is a browser of its own: one connection, kept alive between its polls (browsers
  // keep an idle connection for minutes; fetch's pool closes it after 4 s, so every 10-s poll
  // paid a new connection), from one of CLIENT_IPS loopback addresses as many users would be.
  const agents = Array.from({ length: o.viewers }, (_, i) => new Agent({ keepAlive: true, maxSockets: 1, localAddress: `127.0.0.${2 + (i % CLIENT_IPS)}` }));
  const base = new URL(o.base);
  const get = (viewer: number, path: string) =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      const done = (ok: boolean) => {
        if (!ok) failed++;
        latencies.push(performance.now() - t0);
        resolve();
      };
      const req = request(
        { host: base.hostname, port: base.port, path, agent: agents[viewer], headers: { 'accept-encoding': BROWSER_ACCEPT_ENCODING } },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => done(res.statusCode === 200));
          res.on('error', () => done(false));
        },
      );
      req.on('error', () => done(false));
      req.end();
    });
  const picks = viewerTokens(o.viewers, o.tokens.length);
  const end = Date.now() + o.seconds * 1000;
  const lookups0 = await historyLookups(o.base);
  const cpu0 = processSeconds(o.pid);
  const timers: NodeJS.Timeout[] = [];
  const runs: Promise<void>[] = [];
  for (let i = 0; i < o.viewers; i++) {
    const symbol = o.tokens[picks[i]!]!;
    const phase = (i * POLL_MS) / o.viewers;
    runs.push(
      new Promise<void>((done) => {
        const poll = () => {
          if (Date.now() >= end) return done();
          const to = o.serverNow();
          void get(i, paths.poll(symbol, to));
          timers.push(setTimeout(poll, POLL_MS));
        };
        timers.push(
          setTimeout(() => {
            const to = o.serverNow() + 60;
            void get(i, paths.symbols(symbol))
              .then(() => get(i, paths.open(symbol, to)))
              .then(() => timers.push(setTimeout(poll, POLL_MS)));
          }, phase),
        );
      }),
    );
  }
  await Promise.all(runs);
  for (const t of timers) clearTimeout(t);
  for (const a of agents) a.destroy();
  const cpu1 = processSeconds(o.pid);
  const lookups1 = await historyLookups(o.base);
  latencies.sort((a, b) => a - b);
  return {
    viewers: o.viewers,
    seconds: o.seconds,
    requests: latencies.length,
    failed,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    cpuMicrosPerViewerSecond: cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1e6) / (o.viewers * o.seconds),
    chartHitPercent: hitPercent(lookups0, lookups1, 'chart'),
    pollHitPercent: hitPercent(lookups0, lookups1, 'poll'),
  };
}

/** The pass: a provisioned copy of the data set, the bench server, live ingest, one run per viewer count. */
export async function runViewersPass(o: {
  dataDir: string;
  storePath: string;
  plan: DataPlan;
  counts: readonly number[];
  seconds: number;
  ingestRate: number;
  logLevel: string;
  /** Where the server writes its CPU profile (`--profile`), if anywhere. */
  profileDir?: string | undefined;
  say(msg: string): void;
}): Promise<ViewersFigure[]> {
  const work = join(o.dataDir, 'work.db');
  copyStore(o.storePath, work);
  const hot = hotToken(o.plan);
  const anchorMs = o.plan.anchor * 1000;
  const { secret } = await provision(work, anchorMs, hot.address);
  const server = await startBenchServer({
    storePath: work,
    anchorMs,
    env: { LOG_LEVEL: o.logLevel, RATE_LIMIT_ANON: '999999999/1' },
    logFile: join(o.dataDir, 'server-viewers.log'),
    ...(o.profileDir === undefined ? {} : { profileDir: o.profileDir }),
  });
  const stream =
    o.ingestRate > 0
      ? startIngestStream({
          base: server.base,
          secret,
          tokens: [{ address: hot.address, markets: hot.markets, wallets: hot.wallets, startPrice: 1 }],
          serverNow: server.serverNow,
          tradesPerSecond: o.ingestRate,
          intervalMs: 200,
          label: 'viewers',
        })
      : null;
  const tokens = demoTokens(o.plan).map((t) => t.address);
  const out: ViewersFigure[] = [];
  let ceiling: ViewersCeiling | null = null;
  try {
    // Unreported: the first requests of a fresh server pay for compiling and for cold pages.
    await driveViewers({ base: server.base, pid: server.pid, tokens, viewers: 100, seconds: 10, serverNow: server.serverNow });
    const now = server.serverNow();
    ceiling = await startViewersCeiling({
      symbols: await answerOf(server.base + UDF_PATHS.symbols(hot.address)),
      open: await answerOf(server.base + UDF_PATHS.open(hot.address, now + 60)),
      poll: await answerOf(server.base + UDF_PATHS.poll(hot.address, now)),
    });
    const onCeiling = (viewers: number, seconds: number) =>
      driveViewers({ base: ceiling!.base, pid: ceiling!.pid, tokens, viewers, seconds, serverNow: server.serverNow, paths: CEILING_PATHS });
    await onCeiling(100, 10);
    // What the server spends with no viewers at all: the ingest, its hooks, the timers.
    const idle0 = processSeconds(server.pid);
    await new Promise((r) => setTimeout(r, o.seconds * 1000));
    const idle1 = processSeconds(server.pid);
    const idleMicrosPerSecond = idle0 === null || idle1 === null ? null : ((idle1 - idle0) * 1e6) / o.seconds;
    o.say(`viewers 0: ${idleMicrosPerSecond === null ? '-' : (idleMicrosPerSecond / 1000).toFixed(1)} ms server CPU a second (the ingest and timers)`);
    for (const viewers of o.counts) {
      const f = await driveViewers({ base: server.base, pid: server.pid, tokens, viewers, seconds: o.seconds, serverNow: server.serverNow });
      const c = await onCeiling(viewers, o.seconds);
      f.ingestMicrosPerViewerSecond = idleMicrosPerSecond === null ? null : idleMicrosPerSecond / viewers;
      f.ceilingMicrosPerViewerSecond = c.cpuMicrosPerViewerSecond;
      o.say(
        `viewers ${viewers}: p50 ${f.p50Ms.toFixed(1)} ms, p99 ${f.p99Ms.toFixed(1)} ms, ${f.requests} requests (${f.failed} failed), ` +
          `${micros(f.cpuMicrosPerViewerSecond)} µs server CPU per viewer-second (the ingest's share ${micros(f.ingestMicrosPerViewerSecond)}; ` +
          `ceiling ${micros(c.cpuMicrosPerViewerSecond)}, its p99 ${c.p99Ms.toFixed(1)} ms), ` +
          `cache hits: chart opens ${pct(f.chartHitPercent)}, polls ${pct(f.pollHitPercent)}`,
      );
      out.push(f);
    }
  } finally {
    await ceiling?.stop();
    await stream?.stop();
    await server.stop();
  }
  return out;
}

/** The server's identity answer at `url` and its header length, for the ceiling to serve. */
async function answerOf(url: string): Promise<CeilingAnswer> {
  const { status, json, headerBytes } = await capture(url);
  if (status !== 200) throw new Error(`viewers ceiling: ${url} answered ${status}`);
  return { json, headerBytes };
}

const micros = (v: number | null | undefined): string => (v === null || v === undefined ? '-' : v.toFixed(1));

const pct = (p: number | null): string => (p === null ? '-' : `${p.toFixed(1)}%`);

/** The largest viewer count served at p99 under 100 ms with no failures, or null. */
export const viewersServed = (figures: readonly ViewersFigure[]): number | null =>
  figures.filter((f) => f.p99Ms < 100 && f.failed === 0).reduce<number | null>((a, f) => (a === null || f.viewers > a ? f.viewers : a), null);
