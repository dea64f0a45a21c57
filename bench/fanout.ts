/**
 * The fan-out pass (README, Benchmark): the real server on a copy of the bench store, N stream
 * subscribers (one connection each, a third on bars of the hot token at 1, a third at 15, a
 * third on its trades) while 50 trades/s of the hot token are posted to /v1/ingest. Reports
 * ingest-to-receipt p50/p99 (from the start of the ingest request to the client's receipt; the
 * commit is inside that request, so this bounds commit-to-receipt from above), the server's own
 * commit-to-send histogram, server CPU per delivered message, and server memory per idle
 * connection (RSS with N open idle connections minus RSS before, over N).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { openStore } from '../src/store/db.js';
import { createServices } from '../src/services/index.js';
import { copyStore } from './data.js';
import { processSeconds } from './cpu.js';
import { startBenchServer } from './server-control.js';
import { BENCH_PLAN_RPM } from './provision.js';

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
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)`, 'gm'))) {
    buckets.push([m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2])]);
  }
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total === 0) return null;
  const hit = buckets.find(([, n]) => n >= q * total);
  return hit === undefined ? null : hit[0] * 1000;
}

/** Tenants and keys for the subscribers, and one ingest key; the plan's rate raised as the bench does. */
function provisionFanout(path: string, anchorMs: number, tenants: number): { keys: string[]; ingestKey: string } {
  const store = openStore(path);
  try {
    const services = createServices({ store, clock: { now: () => anchorMs } });
    store.db.prepare("UPDATE plans SET requests_per_minute = ? WHERE name = 'enterprise'").run(BENCH_PLAN_RPM);
    const keys: string[] = [];
    for (let i = 0; i < tenants; i++) {
      const t = services.accounts.createTenant({ name: `fanout-${i}`, plan: 'enterprise' });
      keys.push(services.accounts.createKey(t.id, { scopes: ['read'] }).secret);
    }
    const t = services.accounts.createTenant({ name: 'fanout-ingest', plan: 'enterprise' });
    return { keys, ingestKey: services.accounts.createKey(t.id, { scopes: ['read', 'ingest'] }).secret };
  } finally {
    store.close();
  }
}

export async function runFanout(opts: FanoutOptions): Promise<FanoutFigure> {
  const n = opts.subscribers;
  const work = join(opts.dataDir, 'fanout.db');
  copyStore(opts.storePath, work);
  const { keys, ingestKey } = provisionFanout(work, opts.anchorMs, Math.ceil(n / PER_TENANT));
  const server = await startBenchServer({ storePath: work, anchorMs: opts.anchorMs, env: { LOG_LEVEL: 'warn' }, logFile: join(opts.dataDir, 'server-fanout.log') });
  const wsBase = server.base.replace('http', 'ws');
  const sockets: WebSocket[] = [];
  const latencies: number[] = [];
  const sentAt = new Map<string, number>(); // signature or close price -> post start
  let messages = 0;
  let measuring = false;
  let poster: NodeJS.Timeout | null = null;
  try {
    await fetch(`${server.base}/healthz`);
    await pause(1000);
    const rss0 = rssBytes(server.pid);

    opts.say(`fanout ${n}: opening ${n} connections`);
    for (let i = 0; i < n; i += 250) {
      await Promise.all(
        Array.from({ length: Math.min(250, n - i) }, (_, j) => {
          const k = i + j;
          const ws = new WebSocket(`${wsBase}/v1/stream`, { headers: { 'x-api-key': keys[Math.floor(k / PER_TENANT)]! }, localAddress: `127.0.0.${2 + (k % CLIENT_IPS)}`, perMessageDeflate: false });
          sockets.push(ws);
          return new Promise<void>((resolve, reject) => {
            ws.once('open', () => resolve());
            ws.once('error', reject);
            ws.once('unexpected-response', (_q, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
          });
        }),
      );
    }
    await pause(2000);
    const idleBytesPerConnection = (rssBytes(server.pid) - rss0) / n;

    let subscribed = 0;
    const allSubscribed = new Promise<void>((resolve) => {
      sockets.forEach((ws, k) => {
        ws.on('message', (data: Buffer) => {
          const text = data.toString();
          if (text.startsWith('{"op":"subscribed"')) {
            if (++subscribed === n) resolve();
            return;
          }
          if (!measuring) return;
          messages++;
          const now = performance.now();
          // Cheap matching, no full parse: the first trade's signature, or the bar's close.
          const key = text.startsWith('{"op":"trades"') ? /"signature":"([^"]+)"/.exec(text)?.[1] : text.includes('"final":false') ? /"c":([^,}]+)/.exec(text)?.[1] : undefined;
          const t0 = key === undefined ? undefined : sentAt.get(key);
          if (t0 !== undefined) latencies.push(now - t0);
        });
        const sub = k % 3 === 2 ? { channel: 'trades', token: opts.hot.address } : { channel: 'bars', token: opts.hot.address, resolution: k % 3 === 0 ? '1' : '15' };
        ws.send(JSON.stringify({ op: 'subscribe', id: String(k), ...sub }));
      });
    });
    await allSubscribed;
    opts.say(`fanout ${n}: ${n} subscribed; ingesting ${opts.tradesPerSecond} trades/s for ${opts.seconds} s`);

    let seq = 0;
    let price = 1;
    let posted = 0;
    const perPost = Math.max(1, Math.round(opts.tradesPerSecond / POSTS_PER_SECOND));
    const post = async () => {
      const lines: string[] = [];
      const t0 = performance.now();
      for (let i = 0; i < perPost; i++) {
        price = Number((price * (1 + (((seq * 7919) % 13) - 6) / 10_000) + 1e-9 * (seq % 997)).toPrecision(12));
        const signature = `fanout-${n}-${++seq}`;
        if (i === 0) sentAt.set(signature, t0);
        if (i === perPost - 1) sentAt.set(String(price), t0);
        lines.push(JSON.stringify({
          type: 'trade', token: opts.hot.address, market: opts.hot.markets[seq % opts.hot.markets.length], signature, index: 0, blockTime: server.serverNow(),
          side: seq % 2 ? 'buy' : 'sell', priceUsd: price, amount: 100, quoteAmount: 1, volumeUsd: price * 100, wallet: opts.hot.wallets[seq % opts.hot.wallets.length],
        }));
      }
      const res = await fetch(`${server.base}/v1/ingest`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson', 'x-api-key': ingestKey }, body: lines.join('\n') });
      await res.arrayBuffer();
      if (res.ok) posted += perPost;
    };
    const cpu0 = processSeconds(server.pid);
    measuring = true;
    const started = performance.now();
    poster = setInterval(() => void post().catch(() => {}), 1000 / POSTS_PER_SECOND);
    await pause(opts.seconds * 1000);
    clearInterval(poster);
    poster = null;
    await pause(500);
    measuring = false;
    const seconds = (performance.now() - started) / 1000;
    const cpu1 = processSeconds(server.pid);
    const metrics1 = await (await fetch(`${server.base}/metrics`)).text();
    latencies.sort((a, b) => a - b);
    return {
      subscribers: n,
      seconds,
      tradesPosted: posted,
      messages,
      receiptP50Ms: quantile(latencies, 0.5),
      receiptP99Ms: quantile(latencies, 0.99),
      serverDelayP50Ms: histogramQuantile(metrics1, 'stream_delivery_delay_seconds', 0.5),
      serverDelayP99Ms: histogramQuantile(metrics1, 'stream_delivery_delay_seconds', 0.99),
      cpuMicrosPerMessage: cpu0 === null || cpu1 === null || messages === 0 ? null : ((cpu1 - cpu0) * 1e6) / messages,
      idleBytesPerConnection,
    };
  } finally {
    if (poster !== null) clearInterval(poster);
    for (const ws of sockets) ws.terminate();
    await server.stop();
  }
}
