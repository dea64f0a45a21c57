/**
 * How long one `POST /v1/ingest` of the hostile pass holds the server's event loop
 * (docs/operations.md, Benchmark, hostile pass): the real server runs in this process on a copy of
 * a store, a worker thread posts 20,000-trade batches one after another (its own loop, so the
 * client's work is not counted), and a 1 ms timer here records every gap between two of its
 * ticks: a gap is one stretch the loop could not run anything else, with the main thread's CPU
 * time in it (Linux schedstat) and the garbage collections that fell in it. `--warm S` first sends the
 * pass's other expensive kinds S seconds each, so the heap is as large as in the pass.
 *
 *   node dist/bench/ingest-stalls.js --store bench/.data/wide-….db --hot <address> --anchor <unix s>
 *     [--batches 4] [--trades 20000] [--warm 0] [--top 8] [--stalls-out FILE]
 * Run it under `node --cpu-prof`, with `--stalls-out`, to see what the longest stretches ran
 * (their `atUs` is on the profile's clock).
 */
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { start } from '../src/server.js';
import { provision } from './provision.js';
import { hostileKinds, hostileMarketLine } from './hostile.js';
import { address } from './wide-data.js';
import { mainThreadCpuMs } from './turn-monitor.js';

type Stall = { atUs: number; at: number; ms: number; cpuMs: number; gcMs: number; gcKinds: string; batch: number };

const GC_KIND: Record<number, string> = { 1: 'scavenge', 2: 'mark-compact', 4: 'incremental', 8: 'weak' };

const { values } = parseArgs({
  options: {
    store: { type: 'string' },
    hot: { type: 'string' },
    anchor: { type: 'string' },
    batches: { type: 'string', default: '4' },
    trades: { type: 'string', default: '20000' },
    warm: { type: 'string', default: '0' },
    top: { type: 'string', default: '8' },
    'stalls-out': { type: 'string' },
  },
});
if (values.store === undefined || values.hot === undefined || values.anchor === undefined) throw new Error('--store, --hot and --anchor are required');
const anchor = Number(values.anchor);
const trades = Number(values.trades);

/** The hostile pass's batch (bench/hostile.ts), built here so every batch has new signatures. */
function batchBody(b: number, now: number): string {
  const lines: string[] = [hostileMarketLine(values.hot!)];
  for (let k = 0; k < trades; k++) {
    lines.push(
      JSON.stringify({
        type: 'trade',
        token: values.hot,
        market: address('HostieMkt', 1),
        signature: `stalls-${process.pid}-${b}-${k}`,
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
  }
  return `${lines.join('\n')}\n`;
}

const POSTER = `
const { parentPort, workerData } = require('node:worker_threads');
parentPort.on('message', async (body) => {
  const t0 = performance.now();
  const res = await fetch(workerData.url, { method: 'POST', body, headers: { 'x-api-key': workerData.secret, 'content-type': 'application/x-ndjson' } });
  const text = await res.text();
  parentPort.postMessage({ status: res.status, ms: performance.now() - t0, text: text.slice(0, 200) });
});`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main(): Promise<void> {
  const work = join(tmpdir(), `ingest-stalls-${process.pid}.db`);
  copyFileSync(values.store!, work);
  const { secret } = await provision(work, anchor * 1000, values.hot!);
  const clockStart = Date.now();
  const clock = { now: () => anchor * 1000 + (Date.now() - clockStart) };
  const running = await start(
    {
      ...process.env,
      DATABASE_PATH: work,
      PORT: '0',
      HOST: '127.0.0.1',
      DEMO_DATA: 'off',
      DEMO_FEED: 'off',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_ANON: '999999999/1',
    },
    clock,
  );
  const port = (running.server.address() as { port: number }).port;
  const base = `http://127.0.0.1:${port}`;
  try {
    const warm = Number(values.warm);
    if (warm > 0) {
      const serverNow = () => Math.floor(clock.now() / 1000);
      for (const kind of hostileKinds({ hot: values.hot!, anchor, secret, serverNow })) {
        if (kind.id.startsWith('ingest')) continue;
        const from = Date.now();
        for (let i = 0; Date.now() - from < warm * 1000; i++) {
          const r = kind.next(i);
          await (await fetch(base + r.path, { method: r.method, body: r.body, headers: r.headers })).arrayBuffer();
        }
      }
      console.log(`warmed: heap used ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB`);
    }

    const gcs: PerformanceEntry[] = [];
    const obs = new PerformanceObserver((list) => gcs.push(...list.getEntries()));
    obs.observe({ entryTypes: ['gc'] });
    const stalls: Stall[] = [];
    let batch = -1;
    let last = performance.now();
    let lastCpu = mainThreadCpuMs() ?? 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      const cpu = mainThreadCpuMs() ?? 0;
      if (now - last > 5) {
        const cpuMs = cpu - lastCpu;
        stalls.push({ atUs: Number(process.hrtime.bigint() / 1000n) - (now - last) * 1000, at: last, ms: now - last, cpuMs, gcMs: 0, gcKinds: '', batch });
      }
      last = now;
      lastCpu = cpu;
    }, 1);

    const poster = new Worker(POSTER, { eval: true, workerData: { url: `${base}/v1/ingest`, secret } });
    const answers: { status: number; ms: number; text: string; cpuMs: number }[] = [];
    for (let b = 0; b < Number(values.batches); b++) {
      const body = batchBody(b, Math.floor(clock.now() / 1000));
      await new Promise((r) => setTimeout(r, 200));
      batch = b;
      const cpu0 = process.cpuUsage();
      const answer = await new Promise<{ status: number; ms: number; text: string }>((resolve) => {
        poster.once('message', resolve);
        poster.postMessage(body);
      });
      const cpu = process.cpuUsage(cpu0);
      answers.push({ ...answer, cpuMs: (cpu.user + cpu.system) / 1000 });
      batch = -1;
    }
    clearInterval(ticker);
    await poster.terminate();
    await new Promise((r) => setTimeout(r, 50));
    obs.disconnect();
    for (const s of stalls) {
      const inside = gcs.filter((g) => g.startTime >= s.at && g.startTime < s.at + s.ms);
      s.gcMs = inside.reduce((m, g) => m + g.duration, 0);
      s.gcKinds = [...new Set(inside.map((g) => GC_KIND[(g as { detail?: { kind?: number } }).detail?.kind ?? 0] ?? '?'))].join('+');
    }
    if (values['stalls-out'] !== undefined) writeFileSync(values['stalls-out'], JSON.stringify(stalls));
    for (const [i, a] of answers.entries()) {
      const mine = stalls.filter((s) => s.batch === i);
      console.log(
        `batch ${i}: ${a.status} in ${a.ms.toFixed(0)} ms (${((trades / a.ms) * 1000).toFixed(0)} trades/s, process CPU ${a.cpuMs.toFixed(0)} ms); longest stretch ${Math.max(0, ...mine.map((s) => s.ms)).toFixed(1)} ms, ` +
          `most CPU in one stretch ${Math.max(0, ...mine.map((s) => s.cpuMs)).toFixed(1)} ms, ` +
          `stretches > 20 ms: ${mine.filter((s) => s.ms > 20).length} ${a.status === 200 ? '' : a.text}`,
      );
    }
    console.log(
      `median answer ${median(answers.map((a) => a.ms)).toFixed(0)} ms, median CPU ${median(answers.map((a) => a.cpuMs)).toFixed(0)} ms; heap used ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB`,
    );
    const majors = gcs.filter((g) => (g as { detail?: { kind?: number } }).detail?.kind === 2);
    console.log(`gc: ${gcs.length} pauses, ${majors.length} mark-compact (longest ${Math.max(0, ...majors.map((g) => g.duration)).toFixed(1)} ms)`);
    for (const s of [...stalls].sort((a, b) => b.ms - a.ms).slice(0, Number(values.top))) {
      console.log(`  stretch ${s.ms.toFixed(1)} ms (batch ${s.batch}): cpu ${s.cpuMs.toFixed(1)} ms, gc ${s.gcMs.toFixed(1)} ms ${s.gcKinds}`);
    }
  } finally {
    await running.stop();
    for (const suffix of ['', '-wal', '-shm']) rmSync(work + suffix, { force: true });
  }
}

await main();
