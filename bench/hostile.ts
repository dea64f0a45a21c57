/**
 * The hostile pass (docs/operations.md, Benchmark): the known expensive requests, one kind at a time, sent
 * back to back with one request in flight (the sustained anonymous rate) and with parameters that
 * change on every request so no cache answers them, while a probe thread asks `/healthz` every
 * 20 ms and the server's resident memory is sampled. Per kind it reports the slowest probe
 * (target < 100 ms) and the largest resident set (target < 1 GB, an upper bound of the heap).
 * A first phase sends nothing: its slowest probe is the machine's own noise (a busy shared
 * machine delays a probe with nothing expensive running). Each phase also reads the server's own
 * largest event-loop delay (prom-client's nodejs_eventloop_lag_max_seconds from /metrics, reset by
 * each scrape), which leaves out the probe thread's and the loopback's share of that noise but not
 * the server's waits for a core: for those, its main thread's time on and waiting for a core, and
 * its longest turns with their CPU (bench/server-gauges.ts).
 */
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { projectRoot } from '../src/paths.js';
import type { ProbeSample } from './probe-worker.js';
import { address } from './wide-data.js';
import { rssMb, serverGauges, type PhaseGauges } from './server-gauges.js';
import type { TurnStats } from './turn-monitor.js';
import { pingFlood, slowReaders } from './slow-readers.js';

export type HostileKind = { id: string; next: (i: number) => { method: 'GET' | 'POST'; path: string; body?: string; headers?: Record<string, string> } };

export type HostileRow = {
  store: string;
  kind: string;
  requests: number;
  /** Answers by status, e.g. { "200": 12 }; 0 is a failed request. */
  statuses: Record<string, number>;
  slowestRequestMs: number;
  slowestProbeMs: number;
  probes: number;
  maxRssMb: number;
  /** The server's largest event-loop delay in the phase (its /metrics), when it could be read. */
  serverLoopMaxMs?: number;
  /**
   * The server's main thread in the phase (Linux schedstat): ms on a core, and ms ready to run but
   * waiting for one; then a step of c ms of CPU took about c * (1 + waited / ran) of wall time.
   */
  serverRanMs?: number;
  serverWaitedMs?: number;
  /** The server's longest event-loop turn in the phase, that turn's main-thread CPU, and the most CPU of any turn. */
  serverTurn?: TurnStats;
};

/** The phase that sends nothing: the machine's own noise. */
export const IDLE_KIND = 'nothing (noise floor)';

export const PROBE_TARGET_MS = 100;
const SETTLE_MS = 2000;
export const RSS_TARGET_MB = 1024;

/** What the kinds need to know of the store and the server. */
export type HostileTarget = { hot: string; anchor: number; secret: string; serverNow: () => number };

/**
 * The market the hostile ingest batches trade on, as each batch's first record: a trade must name
 * a market that is stored or earlier in its batch (docs/api.md, Data and ingest), and the hot
 * token's own markets differ between the data set and the wide store. No liquidity, so the hot
 * token's answers do not move; after the first batch the record changes nothing.
 */
export function hostileMarketLine(hot: string): string {
  return JSON.stringify({
    type: 'market',
    address: address('HostieMkt', 1),
    token: hot,
    quoteAddress: address('HostieQt', 1),
    quoteSymbol: 'USDC',
    dex: 'raydium',
    liquidityUsd: 0,
    createdAt: 1_600_000_000,
  });
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const letters = (i: number, n: number) => Array.from({ length: n }, (_, k) => LETTERS[(i * 7 + k * 11 + Math.floor(i / 26)) % 26]).join('');

/** The expensive kinds of request, each varying its parameters with the request number `i`. */
export function hostileKinds(t: HostileTarget): HostileKind[] {
  const discovery = ['trending', 'gainers', 'losers'];
  const windows = ['1h', '6h', '24h'];
  const traderWindows = ['24h', '7d', '30d'];
  const sorts = ['volume', 'trades', 'net'];
  let batch = 0;
  return [
    { id: 'search', next: (i) => ({ method: 'GET', path: `/v1/search?limit=100&q=${i % 2 === 0 ? 'a' : letters(i, 1 + (i % 3))}` }) },
    {
      id: 'trending/gainers/losers',
      next: (i) => ({ method: 'GET', path: `/v1/market/${discovery[i % 3]}?window=${windows[Math.floor(i / 3) % 3]}&limit=100&minLiquidityUsd=${i}` }),
    },
    { id: 'new', next: () => ({ method: 'GET', path: '/v1/market/new?limit=100' }) },
    {
      id: 'top traders 24h/7d/30d',
      next: (i) => ({ method: 'GET', path: `/v1/token/${t.hot}/top-traders?window=${traderWindows[i % 3]}&sort=${sorts[Math.floor(i / 3) % 3]}&limit=100` }),
    },
    { id: 'udf search', next: (i) => ({ method: 'GET', path: `/udf/search?limit=30&query=${letters(i, 1 + (i % 2))}` }) },
    { id: 'udf config', next: () => ({ method: 'GET', path: '/udf/config' }) },
    {
      id: 'history 1S countback 5000',
      next: (i) => ({ method: 'GET', path: `/udf/history?symbol=${t.hot}&resolution=1S&from=${t.anchor - 86400}&to=${t.anchor - i * 7}&countback=5000` }),
    },
    {
      id: 'ingest 20,000 trades',
      next: () => {
        const b = batch++;
        const now = t.serverNow();
        const lines = Array.from({ length: 20_000 }, (_, k) =>
          JSON.stringify({
            type: 'trade',
            token: t.hot,
            market: address('HostieMkt', 1),
            signature: `hostile-${process.pid}-${b}-${k}`,
            index: 0,
            blockTime: now - 3600 + (k % 3600),
            side: k % 2 === 0 ? 'buy' : 'sell',
            priceUsd: 1 + (k % 10) / 100,
            amount: 10,
            quoteAmount: 0.1,
            volumeUsd: 10,
            wallet: address('HostieWa', k % 500),
          }),
        );
        return {
          method: 'POST',
          path: '/v1/ingest',
          body: `${hostileMarketLine(t.hot)}\n${lines.join('\n')}\n`,
          headers: { 'x-api-key': t.secret, 'content-type': 'application/x-ndjson' },
        };
      },
    },
  ];
}

/**
 * Holds `count` connections that send the headers of a 10 MB sign-in body and then 1 MB of it,
 * never the rest, until `ms` have passed (or the server closes them).
 */
async function halfSentBodies(base: string, count: number, ms: number): Promise<Record<string, number>> {
  const { hostname, port } = new URL(base);
  const sockets: Socket[] = [];
  const outcome: Record<string, number> = { held: 0, closed: 0 };
  const chunk = 'x'.repeat(64 * 1024);
  for (let i = 0; i < count; i++) {
    const s = connect(Number(port), hostname);
    s.on('error', () => {});
    s.on('close', () => outcome.closed!++);
    s.on('data', () => {});
    s.write(`POST /dashboard/api/sign-in HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{"email":"`);
    for (let k = 0; k < 16; k++) s.write(chunk);
    sockets.push(s);
  }
  await new Promise((r) => setTimeout(r, ms));
  outcome.held = sockets.filter((s) => !s.destroyed).length;
  for (const s of sockets) s.destroy();
  return outcome;
}

/** Runs every kind for `seconds` against the server at `base` (process `pid`), one in flight. */
export async function runHostile(opts: {
  store: string;
  base: string;
  pid: number;
  target: HostileTarget;
  seconds: number;
  say: (m: string) => void;
  /** The server's turn monitor (BenchServer.readTurns), when it has one. */
  readTurns?: () => Promise<TurnStats>;
}): Promise<HostileRow[]> {
  const worker = new Worker(join(projectRoot, 'dist', 'bench', 'probe-worker.js'), { workerData: { base: opts.base, intervalMs: 20 } });
  const rows: HostileRow[] = [];
  const phases: {
    kind: string;
    from: number;
    to: number;
    rss: number;
    gauges: PhaseGauges;
    row: Omit<HostileRow, 'slowestProbeMs' | 'probes' | 'maxRssMb' | 'store' | 'kind'>;
  }[] = [];
  let rss = 0;
  const gauges = serverGauges(opts);
  const sampler = setInterval(() => (rss = Math.max(rss, rssMb(opts.pid))), 50);
  // A freshly started server (and the probe thread) settle first, so the first kind does not
  // carry the start-up's own work. The first scrape starts the server's loop-delay observer.
  await gauges.begin();
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  try {
    rss = rssMb(opts.pid);
    await gauges.begin();
    const idleFrom = Date.now();
    await new Promise((r) => setTimeout(r, opts.seconds * 1000));
    phases.push({
      kind: IDLE_KIND,
      from: idleFrom,
      to: Date.now(),
      rss,
      gauges: await gauges.end(),
      row: { requests: 0, statuses: {}, slowestRequestMs: 0 },
    });
    for (const kind of hostileKinds(opts.target)) {
      rss = rssMb(opts.pid);
      await gauges.begin();
      const from = Date.now();
      const statuses: Record<string, number> = {};
      let slowest = 0;
      let i = 0;
      while (Date.now() - from < opts.seconds * 1000) {
        const r = kind.next(i++);
        const t0 = performance.now();
        let status = 0;
        try {
          const res = await fetch(opts.base + r.path, { method: r.method, body: r.body, headers: r.headers });
          await res.arrayBuffer();
          status = res.status;
        } catch {
          status = 0;
        }
        slowest = Math.max(slowest, performance.now() - t0);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
      const to = Date.now();
      phases.push({ kind: kind.id, from, to, rss, gauges: await gauges.end(), row: { requests: i, statuses, slowestRequestMs: slowest } });
      opts.say(`hostile ${opts.store}: ${kind.id.padEnd(26)} ${String(i).padStart(5)} requests, slowest ${slowest.toFixed(0)} ms, ${JSON.stringify(statuses)}`);
    }
    rss = rssMb(opts.pid);
    await gauges.begin();
    const from = Date.now();
    const outcome = await halfSentBodies(opts.base, 64, opts.seconds * 1000);
    const to = Date.now();
    phases.push({
      kind: 'half-sent 10 MB bodies x64',
      from,
      to,
      rss,
      gauges: await gauges.end(),
      row: { requests: 64, statuses: outcome, slowestRequestMs: 0 },
    });
    opts.say(`hostile ${opts.store}: half-sent bodies: ${JSON.stringify(outcome)}`);
    // The stream's slow readers and ping flood (bench/slow-readers.ts): peak RSS while they hold.
    const attack = {
      base: opts.base,
      pid: opts.pid,
      hot: opts.target.hot,
      ingestKey: opts.target.secret,
      serverNow: opts.target.serverNow,
      holdMs: opts.seconds * 1000,
      say: opts.say,
    };
    for (const run of [
      () => slowReaders({ ...attack, key: opts.target.secret, count: 100 }),
      () => slowReaders({ ...attack, count: 500, addresses: 50 }),
      () => pingFlood({ ...attack, count: 8 }),
    ]) {
      await gauges.begin();
      const at = Date.now();
      const r = await run();
      phases.push({
        kind: r.attack,
        from: at,
        to: Date.now(),
        rss: r.rssPeakMb,
        gauges: await gauges.end(),
        row: {
          requests: r.connections,
          statuses: { opened: r.connections, cut: r.cut, afterCloseMb: Math.round(r.rssAfterCloseMb), ...r.refused },
          slowestRequestMs: 0,
        },
      });
    }
  } finally {
    clearInterval(sampler);
  }
  const samples = await new Promise<ProbeSample[]>((resolve) => {
    worker.once('message', resolve);
    worker.postMessage('stop');
  });
  await worker.terminate();
  for (const p of phases) {
    const mine = samples.filter((s) => s.at >= p.from && s.at < p.to);
    rows.push({
      store: opts.store,
      kind: p.kind,
      ...p.row,
      slowestProbeMs: mine.reduce((m, s) => Math.max(m, s.status === 200 ? s.ms : Infinity), 0),
      probes: mine.length,
      maxRssMb: p.rss,
      ...(p.gauges.loop === null ? {} : { serverLoopMaxMs: p.gauges.loop }),
      ...(p.gauges.sched === null ? {} : { serverRanMs: p.gauges.sched.ran, serverWaitedMs: p.gauges.sched.waited }),
      ...(p.gauges.turns === null ? {} : { serverTurn: p.gauges.turns }),
    });
  }
  return rows;
}

/** The rows that miss a target. */
export const hostileMisses = (rows: readonly HostileRow[]): HostileRow[] =>
  rows.filter((r) => !(r.slowestProbeMs < PROBE_TARGET_MS && r.maxRssMb < RSS_TARGET_MB));

/** The hostile rows as a text table, each judged against its targets. */
export function formatHostile(rows: readonly HostileRow[]): string {
  const head = [
    'store',
    'request kind',
    'requests',
    'slowest request',
    'slowest probe',
    'server loop max',
    'server ran / waited',
    'longest turn (CPU) / most CPU',
    'max RSS',
    'verdict',
  ];
  const body = rows.map((r) => [
    r.store,
    r.kind,
    String(r.requests),
    `${r.slowestRequestMs.toFixed(0)} ms`,
    `${Number.isFinite(r.slowestProbeMs) ? r.slowestProbeMs.toFixed(0) : 'failed'} ms`,
    r.serverLoopMaxMs === undefined ? '-' : `${r.serverLoopMaxMs.toFixed(0)} ms`,
    r.serverRanMs === undefined || r.serverWaitedMs === undefined ? '-' : `${r.serverRanMs.toFixed(0)} / ${r.serverWaitedMs.toFixed(0)} ms`,
    r.serverTurn === undefined
      ? '-'
      : `${r.serverTurn.longestMs.toFixed(0)} (${r.serverTurn.longestCpuMs.toFixed(0)}) / ${r.serverTurn.mostCpuMs.toFixed(0)} ms`,
    `${r.maxRssMb.toFixed(0)} MB`,
    r.slowestProbeMs < PROBE_TARGET_MS && r.maxRssMb < RSS_TARGET_MB ? 'ok' : 'MISS',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  return [head, ...body].map((cells) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n');
}
