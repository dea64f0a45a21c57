/**
 * The JavaScript cost of a request through our stack, without the network (docs/operations.md,
 * Benchmark): the app's own request handler (`app.callback()`) is handed real `IncomingMessage`
 * and `ServerResponse` objects on an in-memory socket that drops what is written, one request at
 * a time, and the process's user CPU is divided by the answers. The same is done for the bare Koa
 * ceiling (bench/baseline.ts) answering the same bytes. No socket write, no kernel, no client
 * competing for the cores: on a shared machine this is the figure that moves least between runs,
 * and what our middleware, router and route add to Koa itself.
 *
 *   node dist/bench/stack-cost.js [--seconds 3] [--rounds 5] [--trades 100000] [--only poll|open] [--ours-only | --bare-only]
 *
 * `--ours-only` leaves the ceiling out, for a CPU profile of our stack alone
 * (`node --cpu-prof --cpu-prof-dir DIR dist/bench/stack-cost.js --ours-only`); `--bare-only` our
 * stack, for one of the ceiling to set beside it.
 * Uses the newest data set in bench/.data (run the benchmark once first).
 */
import { readdirSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Duplex } from 'node:stream';
import { parseArgs } from 'node:util';
import { BROWSER_ACCEPT_ENCODING, baselineApp, baselineBody, type BaselineBody } from './baseline.js';
import { copyStore, hotToken, planData } from './data.js';
import { createApp } from '../src/app.js';
import { createServices } from '../src/services/index.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { openStore } from '../src/store/sqlite/db.js';
import { projectRoot } from '../src/paths.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string' },
    rounds: { type: 'string' },
    trades: { type: 'string' },
    only: { type: 'string' },
    'ours-only': { type: 'boolean' },
    'bare-only': { type: 'boolean' },
  },
});
const oursOnly = values['ours-only'] === true;
const bareOnly = values['bare-only'] === true;
const seconds = Number(values.seconds ?? 3);
const rounds = Number(values.rounds ?? 5);
const trades = Number(values.trades ?? 100_000);
const dataDir = join(projectRoot, 'bench', '.data');
const plan = planData({ trades, tokens: 50, days: 30, seed: 1, anchor: 1_750_000_000 });
const found = readdirSync(dataDir).find((f) => f.startsWith(`store-t${trades}-`) && f.endsWith('.db'));
if (found === undefined) throw new Error(`no data set of ${trades} trades in ${dataDir}: run the benchmark once`);
const work = join(dataDir, 'stack-cost.db');
copyStore(join(dataDir, found), work);

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

const env = { DATABASE_PATH: work, DEMO_DATA: 'off', DEMO_FEED: 'off', LOG_LEVEL: 'warn', RATE_LIMIT_ANON: '999999999/1' };
const config = loadConfig(env);
const store = openStore(config.databasePath);
const anchorMs = plan.anchor * 1000;
const startMs = Date.now();
const clock = { now: () => anchorMs + (Date.now() - startMs) };
const services = createServices({ store, clock, config });
const ours = createApp({ config, store, clock, logger: createLogger(config.logLevel), services }).callback() as Handler;
const bodies = new Map<string, BaselineBody>();
const bare = baselineApp(bodies).callback() as Handler;

/** Answers one GET of `url` through `handler` on a socket that keeps nothing; resolves with the bytes written. */
function once(handler: Handler, url: string): Promise<number> {
  let written = 0;
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, cb) {
      written += chunk.length;
      cb();
    },
    writev(chunks, cb) {
      for (const c of chunks) written += (c.chunk as Buffer).length;
      cb();
    },
  });
  Object.defineProperty(socket, 'remoteAddress', { value: '127.0.0.1' });
  const req = new IncomingMessage(socket as never);
  req.method = 'GET';
  req.url = url;
  req.headers = { host: '127.0.0.1', 'accept-encoding': BROWSER_ACCEPT_ENCODING };
  req.push(null);
  const res = new ServerResponse(req);
  res.assignSocket(socket as never);
  return new Promise((resolve, reject) => {
    res.once('finish', () => resolve(written));
    res.once('error', reject);
    void handler(req, res);
  });
}

/** User CPU microseconds per answer over `s` seconds of back-to-back requests. */
async function userPerAnswer(handler: Handler, url: string, s: number): Promise<number> {
  const until = Date.now() + s * 1000;
  const u0 = process.cpuUsage().user;
  let n = 0;
  while (Date.now() < until) {
    for (let i = 0; i < 100; i++) await once(handler, url);
    n += 100;
  }
  return (process.cpuUsage().user - u0) / n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const hot = hotToken(plan).address;
const a = plan.anchor;
const paths = {
  poll: `/udf/history?symbol=${hot}&resolution=1&from=${a - 120}&to=${a}&countback=2&currencyCode=USD`,
  open: `/udf/history?symbol=${hot}&resolution=1&from=${a - 18000}&to=${a + 60}&countback=300&currencyCode=USD`,
};

for (const [name, path] of Object.entries(paths)) {
  if (values.only !== undefined && values.only !== name) continue;
  const res = await fetchJson(path);
  bodies.set(name, baselineBody(res, 0));
  const sent = await once(ours, path);
  // Warm-up: compiled code, the cached answer and its compressed form.
  if (!bareOnly) await userPerAnswer(ours, path, 1);
  if (!oursOnly) await userPerAnswer(bare, `/${name}`, 1);
  const o: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i++) {
    o.push(bareOnly ? NaN : await userPerAnswer(ours, path, seconds));
    b.push(oursOnly ? NaN : await userPerAnswer(bare, `/${name}`, seconds));
  }
  process.stdout.write(
    `${name} (${res.length} B, ${sent} B written): ours ${median(o).toFixed(1)} µs user CPU/answer [${o.map((x) => x.toFixed(1)).join(' ')}], ` +
      `bare Koa ${median(b).toFixed(1)} µs [${b.map((x) => x.toFixed(1)).join(' ')}], ours/bare ${(median(o) / median(b)).toFixed(2)}\n`,
  );
}
store.close();

/** The route's plain JSON answer, through our own stack. */
async function fetchJson(path: string): Promise<string> {
  let body = '';
  const socket = new Duplex({ read() {}, write: (_c, _e, cb) => cb() });
  const req = new IncomingMessage(socket as never);
  req.method = 'GET';
  req.url = path;
  req.headers = { host: '127.0.0.1', 'accept-encoding': 'identity' };
  req.push(null);
  const res = new ServerResponse(req);
  res.assignSocket(socket as never);
  const end = res.end.bind(res);
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) body += chunk.toString();
    return end(chunk as never, ...(rest as []));
  }) as typeof res.end;
  await new Promise<void>((resolve) => {
    res.once('finish', () => resolve());
    void ours(req, res);
  });
  return body;
}
process.exit(0);
