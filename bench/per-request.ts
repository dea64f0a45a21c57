/**
 * Server CPU per answer of the adapter's two cached requests (docs/operations.md, Benchmark): the
 * countback-2 poll and the countback-300 chart open, anonymous, with a browser's Accept-Encoding,
 * against the bare Koa ceiling serving the same bytes in the same process, interleaved round by
 * round. No live ingest: this is the fixed cost of a request, not of the data. Beside all CPU, it
 * prints user-mode CPU alone: the figure that moves least with the machine's load.
 *
 *   node dist/bench/per-request.js [--rounds 5] [--seconds 3] [--only poll|open] [--profile DIR] [--ours-only | --bare-only]
 *
 * Uses the newest data set in bench/.data (run the benchmark once first).
 */
import autocannon from 'autocannon';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BROWSER_ACCEPT_ENCODING } from './baseline.js';
import { processSeconds, processUserSeconds } from './cpu.js';
import { copyStore, hotToken, planData } from './data.js';
import { startBenchServer } from './server-control.js';
import { projectRoot } from '../src/paths.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    profile: { type: 'string' },
    trades: { type: 'string' },
    only: { type: 'string' },
    'ours-only': { type: 'boolean' },
    'bare-only': { type: 'boolean' },
  },
});
const rounds = Number(values.rounds ?? 5);
const seconds = Number(values.seconds ?? 3);
const dataDir = join(projectRoot, 'bench', '.data');
const trades = Number(values.trades ?? 100_000);
const plan = planData({ trades, tokens: 50, days: 30, seed: 1, anchor: 1_750_000_000 });
const store = readdirSync(dataDir).find((f) => f.startsWith(`store-t${trades}-`) && f.endsWith('.db'));
if (store === undefined) throw new Error(`no data set of ${trades} trades in ${dataDir}: run the benchmark once`);
const work = join(dataDir, 'per-request.db');
copyStore(join(dataDir, store), work);

const hot = hotToken(plan).address;
const anchor = plan.anchor;
const paths = {
  poll: `/udf/history?symbol=${hot}&resolution=1&from=${anchor - 120}&to=${anchor}&countback=2&currencyCode=USD`,
  open: `/udf/history?symbol=${hot}&resolution=1&from=${anchor - 18000}&to=${anchor + 60}&countback=300&currencyCode=USD`,
};
const headers = { 'accept-encoding': BROWSER_ACCEPT_ENCODING };

const server = await startBenchServer({
  storePath: work,
  anchorMs: anchor * 1000,
  env: { LOG_LEVEL: 'warn', RATE_LIMIT_ANON: '999999999/1' },
  logFile: join(dataDir, 'server-per-request.log'),
  ...(values.profile === undefined ? {} : { profileDir: values.profile }),
});

/** Server CPU microseconds per answer of `url` over `s` seconds at 10 connections (all, and user mode only). */
async function cpuPerAnswer(url: string, s: number): Promise<{ us: number; user: number; rps: number }> {
  const cpu0 = processSeconds(server.pid)!;
  const user0 = processUserSeconds(server.pid)!;
  const r = await autocannon({ url, connections: 10, headers, duration: s });
  const cpu1 = processSeconds(server.pid)!;
  const user1 = processUserSeconds(server.pid)!;
  return { us: ((cpu1 - cpu0) * 1e6) / r.requests.total, user: ((user1 - user0) * 1e6) / r.requests.total, rps: r.requests.total / r.duration };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  for (const [name, path] of Object.entries(paths)) {
    if (values.only !== undefined && values.only !== name) continue;
    const first = await fetch(server.base + path, { headers: { 'accept-encoding': 'identity' } });
    const json = await first.text();
    let headerBytes = 0;
    first.headers.forEach((v, k) => (headerBytes += k.length + v.length + 4));
    await server.setBaseline(name, json, headerBytes);
    const sent = await fetch(server.base + path, { headers });
    const bytes = (await sent.arrayBuffer()).byteLength;
    // Warm-up of both sides: compiled code, cached answer and its compressed form.
    await cpuPerAnswer(server.base + path, 1);
    await cpuPerAnswer(`${server.baselineBase}/${name}`, 1);
    const ours: number[] = [];
    const bare: number[] = [];
    const oursUser: number[] = [];
    const bareUser: number[] = [];
    const oursRps: number[] = [];
    const bareRps: number[] = [];
    const none = { us: NaN, user: NaN, rps: NaN };
    for (let i = 0; i < rounds; i++) {
      // --bare-only: a profile of the ceiling alone, to set beside an --ours-only one.
      const a = values['bare-only'] === true ? none : await cpuPerAnswer(server.base + path, seconds);
      // --ours-only: a profile of our stack alone (the ceiling shares the process).
      const b = values['ours-only'] === true ? none : await cpuPerAnswer(`${server.baselineBase}/${name}`, seconds);
      ours.push(a.us);
      bare.push(b.us);
      oursUser.push(a.user);
      bareUser.push(b.user);
      oursRps.push(a.rps);
      bareRps.push(b.rps);
    }
    process.stdout.write(
      `${name} (${json.length} B, ${bytes} B sent as ${sent.headers.get('content-encoding') ?? 'identity'}): ` +
        `ours ${median(ours).toFixed(0)} µs/answer [${ours.map((x) => x.toFixed(0)).join(' ')}], ` +
        `bare Koa ${median(bare).toFixed(0)} µs [${bare.map((x) => x.toFixed(0)).join(' ')}], ratio ${(median(bare) / median(ours)).toFixed(2)}; ` +
        `user mode ${median(oursUser).toFixed(0)} vs ${median(bareUser).toFixed(0)} µs [${oursUser.map((x) => x.toFixed(0)).join(' ')} / ${bareUser.map((x) => x.toFixed(0)).join(' ')}]; ` +
        `req/s ${median(oursRps).toFixed(0)} vs ${median(bareRps).toFixed(0)} (${(median(oursRps) / median(bareRps)).toFixed(2)})\n`,
    );
  }
} finally {
  await server.stop();
}
