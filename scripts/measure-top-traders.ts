/**
 * Measures GET /v1/token/:a/top-traders on a store shaped like the (docs/operations.md,
 * Benchmark): one token with a million trades, 285k wallets in its 24 h window. Prints, over HTTP,
 * the first request of a window (which builds its board), the memory the boards hold, then the
 * median and slowest request and the slowest event-loop block while the clock moves one second
 * and a few trades arrive between requests. (The rollup aggregate the route used before, and its
 * wallet_rollups, are gone since migration 013.)
 *
 *   node --expose-gc --import tsx scripts/measure-top-traders.ts [store path, default /tmp/top-traders-measure.db]
 */
import { existsSync } from 'node:fs';
import { openStore } from '../src/store/sqlite/db.js';
import { rebuildReadViews } from '../src/store/sqlite/read-views-repo.js';
import { makeTestApp, fakeClock } from '../test/helpers/make-test-app.js';
import { aTrade, anAddress, homeMarket } from '../test/helpers/builders.js';

const path = process.argv[2] ?? '/tmp/top-traders-measure.db';
const NOW = 1_700_000_000;
const TOKEN = 'So11111111111111111111111111111111111111112';
const WALLETS = 285_000;
const TRADES = 1_000_000;

function fill(): void {
  const store = openStore(path);
  const db = store.db;
  db.prepare(
    `INSERT INTO tokens (id, address, symbol, name, decimals, created_at, updated_at, last_trade_at, price_usd) VALUES (1, ?, 'HOT', 'Hot', 6, 0, ?, ?, 1)`,
  ).run(TOKEN, NOW, NOW);
  const insert = db.prepare(
    `INSERT INTO trades (token_id, block_time, signature, idx, is_buy, price_usd, amount, quote_amount, volume_usd, wallet, market) VALUES (1, ?, ?, 0, ?, 1, 1, 1, ?, ?, 'mkt')`,
  );
  const wallets = Array.from({ length: WALLETS }, (_, i) => `W${i.toString(36).padStart(8, '0')}`.padEnd(40, 'x'));
  db.transaction(() => {
    let recent = 0;
    for (let i = 0; i < TRADES; i++) {
      // 70 % of the trades in the last 24 h, going round every wallet; the rest over 30 days
      const inDay = i % 10 < 7;
      const bt = inDay ? NOW - (i % 86_400) : NOW - 86_400 - ((i * 7919) % (29 * 86_400));
      const wallet = inDay ? wallets[recent++ % WALLETS] : wallets[(i * 7) % WALLETS];
      insert.run(bt, `s${i}`, i % 3 === 0 ? 0 : 1, 1 + ((i * 31) % 977), wallet);
    }
  })();
  rebuildReadViews(db);
  store.close();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/**
 * The longest gap between two ticks of a 2 ms timer, in wall time and in this process's CPU
 * time (on a shared machine a gap can be another process running), not counting `skip` spans.
 */
function gapMonitor() {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let wall = 0;
  let cpu = 0;
  const tick = () => {
    const t = performance.now();
    const c = process.cpuUsage(lastCpu);
    wall = Math.max(wall, t - last);
    cpu = Math.max(cpu, (c.user + c.system) / 1000);
    last = t;
    lastCpu = process.cpuUsage();
  };
  const timer = setInterval(tick, 2);
  return {
    skip<T>(fn: () => T): T {
      const out = fn();
      last = performance.now();
      lastCpu = process.cpuUsage();
      return out;
    },
    stop(): string {
      clearInterval(timer);
      return `${wall.toFixed(1)} ms wall, ${cpu.toFixed(1)} ms CPU`;
    },
  };
}

async function main(): Promise<void> {
  if (!existsSync(path)) {
    const t0 = performance.now();
    fill();
    console.log(`filled ${path} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  const store = openStore(path);
  const wallets = (seconds: number) =>
    store.db
      .prepare('SELECT count(DISTINCT wallet) FROM trades WHERE token_id = 1 AND block_time > ?')
      .pluck()
      .get(NOW - seconds);
  console.log(`wallets in the window: 24h ${wallets(86_400)}, 30d ${wallets(2_592_000)}`);
  const app = makeTestApp({ store, clock: fakeClock(NOW * 1000) });
  // The market the trades below name (aTrade's default): a trade must name a stored market.
  app.ingest([homeMarket(TOKEN)]);
  // warm the app up (routes, schemas, first compilation) on a token it does not know
  await app.http.get(`/v1/token/${TOKEN.replace('S', 'T')}/top-traders?limit=1000`);
  const gc = (globalThis as { gc?: () => void }).gc;
  const held = () => {
    gc?.();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const base = held();
  for (const window of ['24h', '30d']) {
    const buildLoop = gapMonitor();
    const t0 = performance.now();
    const first = await app.http.get(`/v1/token/${TOKEN}/top-traders?window=${window}&limit=1000`);
    const build = performance.now() - t0;
    const buildBlock = buildLoop.stop();
    console.log(`boards so far hold ${((held() - base) / 1e6).toFixed(0)} MB (heap and buffers after a full GC${gc ? '' : ': run node --expose-gc for it'})`);
    const loop = gapMonitor();
    const times: number[] = [];
    for (let i = 0; i < 30; i++) {
      app.clock.advance(1000);
      loop.skip(() => app.ingest(Array.from({ length: 20 }, () => aTrade(TOKEN, { blockTime: app.clock.seconds(), wallet: anAddress('w'), volumeUsd: 5 }))));
      const t1 = performance.now();
      const res = await app.http.get(`/v1/token/${TOKEN}/top-traders?window=${window}&limit=1000&sort=${['volume', 'trades', 'net'][i % 3]}`);
      times.push(performance.now() - t1);
      if (res.status !== 200 || res.body.traders.length !== 1000) throw new Error(`unexpected answer ${res.status}`);
    }
    const block = loop.stop();
    console.log(
      `after ${window}: first request (builds the board) ${build.toFixed(0)} ms (status ${first.status}, slowest event-loop block ${buildBlock}); ` +
        `then median ${median(times).toFixed(1)} ms, slowest ${Math.max(...times).toFixed(1)} ms; slowest event-loop block ${block} (ingests not counted)`,
    );
  }
  app.close();
}

void main();
