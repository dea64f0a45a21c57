/**
 * The fan-out pass (docs/operations.md, Benchmark): the real server on a copy of the bench store, N stream
 * subscribers (one connection each, a third on bars of the hot token at 1, a third at 15, a
 * third on its trades) while 50 trades/s of the hot token are posted to /v1/ingest. Reports
 * ingest-to-receipt p50/p99 (from the start of the ingest request to the client's receipt; the
 * commit is inside that request, so this bounds commit-to-receipt from above), the server's own
 * commit-to-send histogram, server CPU per delivered message, and server memory per idle
 * connection (the growth of the server's RSS with N open idle connections, over N, after a warm-up
 * wave of connections opened and closed).
 * The subscribers live in worker threads (bench/fanout-clients.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { projectRoot } from '../src/paths.js';
import { openStore } from '../src/store/sqlite/db.js';
import { createServices } from '../src/services/index.js';
import { copyStore } from './data.js';
import { machineBusySeconds, processSeconds } from './cpu.js';
import { startBenchServer } from './server-control.js';
import { BENCH_PLAN_RPM } from './provision.js';
import type { ClientsJob, FromClients, ToClients } from './fanout-clients.js';

export type FanoutFigure = {
  subscribers: number;
  seconds: number;
  tradesPosted: number;
  messages: number;
  receiptP50Ms: number | null;
  receiptP99Ms: number | null;
  /** The server's stream_delivery_delay_seconds quantiles (bucket upper bounds), ms. */
  serverDelayP50Ms: number | null;
  serverDelayP99Ms: number | null;
  cpuMicrosPerMessage: number | null;
  /** The bench's own CPU (its subscriber threads, mostly) per delivered message, µs. */
  clientCpuMicrosPerMessage: number | null;
  /** Messages the server handed to the sockets while measured (stream_messages_sent_total). */
  serverSent: number | null;
  /** Cores the rest of the machine kept busy meanwhile (other users' work). */
  otherCores: number | null;
  idleBytesPerConnection: number | null;
};

export type FanoutOptions = {
  dataDir: string;
  storePath: string;
  anchorMs: number;
  hot: { address: string; markets: readonly string[]; wallets: readonly string[] };
  subscribers: number;
  seconds: number;
  tradesPerSecond: number;
  /** A folder for a CPU profile of the server (--profile), or none. */
  profileDir?: string | undefined;
  say(msg: string): void;
};

/** Connections per tenant of the enterprise plan. */
const PER_TENANT = 2000;
const POSTS_PER_SECOND = 5;
/** Client addresses to spread connections over (loopback: 127.0.0.2 ...), as many users would be. */
const CLIENT_IPS = 64;

const rssBytes = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function quantile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** A quantile of a Prometheus histogram in the text format: the upper bound of its bucket, ms. */
function histogramQuantile(text: string, name: string, q: number): number | null {
  const buckets: [number, number][] = [];
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"[^}]*\\} (\\d+)`, 'gm'))) {
    buckets.push([m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2])]);
  }
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total === 0) return null;
  const hit = buckets.find(([, n]) => n >= q * total);
  return hit === undefined ? null : hit[0] * 1000;
}

/** The sum of stream_messages_sent_total over its ops, or null when absent. */
function sentTotal(text: string): number | null {
  const counts = [...text.matchAll(/^stream_messages_sent_total\{[^}]*\} (\d+)/gm)].map((m) => Number(m[1]));
  return counts.length === 0 ? null : counts.reduce((a, b) => a + b, 0);
}

/** Tenants and keys for the subscribers, and one ingest key; the plan's rate raised as the bench does. */
async function provisionFanout(path: string, anchorMs: number, tenants: number): Promise<{ keys: string[]; ingestKey: string }> {
  const store = openStore(path);
  try {
    const services = createServices({ store, clock: { now: () => anchorMs } });
    store.db.prepare("UPDATE plans SET requests_per_minute = ? WHERE name = 'enterprise'").run(BENCH_PLAN_RPM);
    const keys: string[] = [];
    for (let i = 0; i < tenants; i++) {
      const t = await services.accounts.createTenant({ name: `fanout-${i}`, plan: 'enterprise' });
      keys.push((await services.accounts.createKey(t.id, { scopes: ['read'] })).secret);
    }
    const t = await services.accounts.createTenant({ name: 'fanout-ingest', plan: 'enterprise' });
    return { keys, ingestKey: (await services.accounts.createKey(t.id, { scopes: ['read', 'ingest'] })).secret };
  } finally {
    store.close();
  }
}

/** Worker threads holding the subscribers (the machine's cores, at least 1). */
const WORKERS = Math.max(1, Math.min(4, availableParallelism()));

type Pool = { workers: Worker[]; all(type: FromClients['type']): Promise<FromClients[]>; send(m: ToClients): void };

/** Subscribers number `first` to `end - 1`, split over the worker threads. */
function startClients(job: Omit<ClientsJob, 'from' | 'to'>, first: number, end: number): Pool {
  const workers: Worker[] = [];
  const n = end - first;
  for (let w = 0; w < WORKERS; w++) {
    const from = first + Math.floor((n * w) / WORKERS);
    const to = first + Math.floor((n * (w + 1)) / WORKERS);
    workers.push(new Worker(join(projectRoot, 'dist', 'bench', 'fanout-clients.js'), { workerData: { ...job, from, to } satisfies ClientsJob }));
  }
  return {
    workers,
    send: (m) => workers.forEach((w) => w.postMessage(m)),
    all: (type) =>
      Promise.all(
        workers.map(
          (w) =>
            new Promise<FromClients>((resolve, reject) => {
              const on = (m: FromClients) => {
                if (m.type === 'failed') reject(new Error(m.message));
                else if (m.type === type) {
                  w.off('message', on);
                  resolve(m);
                }
              };
              w.on('message', on);
            }),
        ),
      ),
  };
}

export async function runFanout(opts: FanoutOptions): Promise<FanoutFigure> {
  const n = opts.subscribers;
  const work = join(opts.dataDir, 'fanout.db');
  copyStore(opts.storePath, work);
  const { keys, ingestKey } = await provisionFanout(work, opts.anchorMs, Math.ceil(n / PER_TENANT));
  const server = await startBenchServer({
    storePath: work,
    anchorMs: opts.anchorMs,
    env: { LOG_LEVEL: 'warn' },
    logFile: join(opts.dataDir, 'server-fanout.log'),
    profileDir: opts.profileDir,
  });
  const job = { wsBase: server.base.replace('http', 'ws'), keys, perTenant: PER_TENANT, token: opts.hot.address, clientIps: CLIENT_IPS };
  let poster: NodeJS.Timeout | null = null;
  let pools: Pool[] = [];
  try {
    await fetch(`${server.base}/healthz`);
    await pause(1000);
    // Memory per idle connection: a first wave of connections opened and closed grows the heap
    // to its working size (what the first upgrades cost once), then RSS before and after N.
    const warm = startClients(job, 0, Math.min(n, 1000));
    await warm.all('open');
    warm.send({ type: 'close' });
    await pause(500);
    await Promise.all(warm.workers.map((w) => w.terminate()));
    await pause(1500);
    opts.say(`fanout ${n}: opening ${n} connections in ${WORKERS} worker threads`);
    const rss0 = rssBytes(server.pid);
    pools.push(startClients(job, 0, n));
    await pools[0]!.all('open');
    await pause(1500);
    const idleBytesPerConnection = (rssBytes(server.pid) - rss0) / n;

    for (const p of pools) p.send({ type: 'subscribe' });
    await Promise.all(pools.map((p) => p.all('subscribed')));
    opts.say(`fanout ${n}: ${n} subscribed; ingesting ${opts.tradesPerSecond} trades/s for ${opts.seconds} s`);

    let seq = 0;
    let price = 1;
    let posted = 0;
    const perPost = Math.max(1, Math.round(opts.tradesPerSecond / POSTS_PER_SECOND));
    const post = async () => {
      const lines: string[] = [];
      const sent: string[] = [];
      for (let i = 0; i < perPost; i++) {
        price = Number((price * (1 + (((seq * 7919) % 13) - 6) / 10_000) + 1e-9 * (seq % 997)).toPrecision(12));
        const signature = `fanout-${n}-${++seq}`;
        if (i === 0) sent.push(signature);
        if (i === perPost - 1) sent.push(String(price));
        lines.push(
          JSON.stringify({
            type: 'trade',
            token: opts.hot.address,
            market: opts.hot.markets[seq % opts.hot.markets.length],
            signature,
            index: 0,
            blockTime: server.serverNow(),
            side: seq % 2 ? 'buy' : 'sell',
            priceUsd: price,
            amount: 100,
            quoteAmount: 1,
            volumeUsd: price * 100,
            wallet: opts.hot.wallets[seq % opts.hot.wallets.length],
          }),
        );
      }
      const at = performance.timeOrigin + performance.now();
      for (const p of pools) p.send({ type: 'sent', keys: sent, at });
      const res = await fetch(`${server.base}/v1/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', 'x-api-key': ingestKey },
        body: lines.join('\n'),
      });
      await res.arrayBuffer();
      if (res.ok) posted += perPost;
    };
    for (const p of pools) p.send({ type: 'measure', on: true });
    await pause(100);
    const sent0 = sentTotal(await (await fetch(`${server.base}/metrics`)).text());
    const cpu0 = processSeconds(server.pid);
    const own0 = process.cpuUsage();
    const busy0 = machineBusySeconds();
    const started = performance.now();
    poster = setInterval(() => void post().catch(() => {}), 1000 / POSTS_PER_SECOND);
    await pause(opts.seconds * 1000);
    clearInterval(poster);
    poster = null;
    await pause(1000);
    const seconds = (performance.now() - started) / 1000;
    const cpu1 = processSeconds(server.pid);
    const own = process.cpuUsage(own0);
    const busy1 = machineBusySeconds();
    for (const p of pools) p.send({ type: 'measure', on: false });
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    const sent1 = sentTotal(metrics);
    const ownSeconds = (own.user + own.system) / 1e6;
    for (const p of pools) p.send({ type: 'report' });
    const reports = (await Promise.all(pools.map((p) => p.all('report')))).flat() as Extract<FromClients, { type: 'report' }>[];
    const messages = reports.reduce((a, r) => a + r.messages, 0);
    const delays = reports.flatMap((r) => r.delays).sort((a, b) => a - b);
    return {
      subscribers: n,
      seconds,
      tradesPosted: posted,
      messages,
      receiptP50Ms: quantile(delays, 0.5),
      receiptP99Ms: quantile(delays, 0.99),
      serverDelayP50Ms: histogramQuantile(metrics, 'stream_delivery_delay_seconds', 0.5),
      serverDelayP99Ms: histogramQuantile(metrics, 'stream_delivery_delay_seconds', 0.99),
      cpuMicrosPerMessage: cpu0 === null || cpu1 === null || messages === 0 ? null : ((cpu1 - cpu0) * 1e6) / messages,
      clientCpuMicrosPerMessage: messages === 0 ? null : (ownSeconds * 1e6) / messages,
      serverSent: sent0 === null || sent1 === null ? null : sent1 - sent0,
      otherCores: busy0 === null || busy1 === null || cpu0 === null || cpu1 === null ? null : (busy1 - busy0 - (cpu1 - cpu0) - ownSeconds) / seconds,
      idleBytesPerConnection,
    };
  } finally {
    if (poster !== null) clearInterval(poster);
    for (const p of pools) p.send({ type: 'close' });
    await Promise.all(pools.flatMap((p) => p.workers.map((w) => w.terminate())));
    pools = [];
    await server.stop();
  }
}
