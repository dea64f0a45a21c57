/**
 * Measures a retraction (docs/indexer.md, Reorgs: what a retraction removes) on a store shaped like
 * the benchmark's hot token: one token with a million trades over 30 days (70 % of them in the last
 * 24 h, about 8 a second), ingested through the real ingest path so every rollup exists. Prints the
 * time to retract the trades of the newest 3 seconds (three times: the first prepares the statements), then 12 and 60 (a reorg of a few blocks) and the
 * first overview, history and top-traders reads after each. On SQLite a retraction is one
 * synchronous transaction: its time is the longest any read waits behind it.
 *
 *   node --import tsx scripts/measure-retract.ts [store path, default /tmp/retract-measure.db]
 *
 * With a PostgreSQL URL instead (a copy of that store: `DATABASE_PATH=... cli migrate-store --to URL`)
 * it measures the same retractions there, and the slowest of the reads made meanwhile on other
 * connections (PostgreSQL readers do not wait for the writer).
 */
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { openStore } from '../src/store/sqlite/db.js';
import { openPgStore } from '../src/store/pg/pg-store.js';
import { createServices } from '../src/services/index.js';
import { createApp } from '../src/app.js';
import { createLogger } from '../src/logger.js';
import { loadConfig } from '../src/config.js';
import request from 'supertest';
import { makeTestApp, fakeClock } from '../test/helpers/make-test-app.js';
import type { IngestRecord, TradeRecord } from '../src/domain/records.js';

const path = process.argv[2] ?? '/tmp/retract-measure.db';
const NOW = 1_700_000_000;
const TOKEN = 'So11111111111111111111111111111111111111112';
const TRADES = 1_000_000;
const BATCH = 5000;

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** A well-formed base58 wallet address for wallet number n. */
const wallet = (n: number): string => {
  let s = '';
  for (let x = n; x > 0; x = Math.floor(x / 58)) s = B58[x % 58]! + s;
  return `W${s.padStart(39, '1')}`;
};

const tradeAt = (i: number): TradeRecord => {
  const inDay = i % 10 < 7;
  // The newest trades last, so a reorg removes the newest record numbers too.
  const bt = inDay ? NOW - 86_400 + Math.floor((i / TRADES) * 86_400) : NOW - 86_400 - ((i * 7919) % (29 * 86_400));
  return {
    type: 'trade',
    token: TOKEN,
    market: i % 4 === 0 ? 'Mkt2222222222222222222222222222222222222222' : 'Mkt1111111111111111111111111111111111111111',
    signature: `s${i}`,
    index: 0,
    blockTime: bt,
    side: i % 3 === 0 ? 'sell' : 'buy',
    priceUsd: 1 + ((i * 31) % 977) / 1000,
    amount: 10,
    quoteAmount: 0.1,
    volumeUsd: 1 + ((i * 17) % 500),
    wallet: wallet(i % 50_000),
  };
};

async function main(): Promise<void> {
  const fresh = !existsSync(path);
  const store = openStore(path);
  const t = makeTestApp({ store, clock: fakeClock(NOW * 1000) });
  if (fresh) {
    const head: IngestRecord[] = [
      {
        type: 'token',
        address: TOKEN,
        symbol: 'HOT',
        name: 'Hot',
        decimals: 6,
        totalSupply: 1e9,
        circulatingSupply: 1e9,
        createdAt: NOW - 40 * 86_400,
        logoUri: null,
      },
    ];
    const started = performance.now();
    for (let i = 0; i < TRADES; i += BATCH) {
      const batch: IngestRecord[] = i === 0 ? [...head] : [];
      for (let j = i; j < Math.min(TRADES, i + BATCH); j++) batch.push(tradeAt(j));
      t.ingest(batch);
      // No server here runs the checkpointer: keep the WAL from growing to gigabytes.
      if ((i / BATCH) % 20 === 19) store.db.pragma('wal_checkpoint(TRUNCATE)');
    }
    console.log(`ingested ${TRADES} trades in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  const newest = store.db.prepare('SELECT max(block_time) FROM trades').pluck().get() as number;
  // Warm the boards and caches a reorg must correct.
  for (const path of [
    `/v1/token/${TOKEN}/overview`,
    `/v1/token/${TOKEN}/top-traders?window=24h`,
    `/udf/history?symbol=${TOKEN}&resolution=1&countback=300&to=${NOW + 1}`,
  ]) {
    await t.http.get(path);
  }
  let upTo = newest;
  for (const seconds of [3, 3, 3, 12, 60]) {
    const from = upTo - seconds + 1;
    const keys = store.db.prepare('SELECT signature, idx AS "index" FROM trades WHERE block_time >= ? AND block_time <= ?').all(from, upTo) as {
      signature: string;
      index: number;
    }[];
    const started = performance.now();
    const r = await t.services.ingest.retract({ trades: keys, markets: [], tokens: [], records: [] });
    const ms = performance.now() - started;
    const reads: string[] = [];
    for (const [name, p] of [
      ['overview', `/v1/token/${TOKEN}/overview`],
      ['top-traders 24h', `/v1/token/${TOKEN}/top-traders?window=24h`],
      ['history 1', `/udf/history?symbol=${TOKEN}&resolution=1&countback=300&to=${NOW + 1}`],
    ] as const) {
      const s = performance.now();
      await t.http.get(p);
      reads.push(`${name} ${(performance.now() - s).toFixed(1)} ms`);
    }
    console.log(`retract the newest ${seconds} s (${r.removed} trades): ${ms.toFixed(1)} ms; first reads after: ${reads.join(', ')}`);
    upTo = from - 1;
  }
  store.close();
}

/** The retractions on a PostgreSQL copy of the store, with reads running meanwhile. */
async function mainPg(url: string): Promise<void> {
  const config = loadConfig({ DATABASE_URL: url, DEMO_DATA: 'off', DEMO_FEED: 'off', LOG_LEVEL: 'silent' });
  const store = await openPgStore(url, { instanceId: 'measure' });
  const clock = fakeClock(NOW * 1000);
  const services = createServices({ store, clock, config });
  const app = createApp({ config, store, clock, services, logger: createLogger('silent') });
  const http = request(app.callback());
  const reads = [
    `/v1/token/${TOKEN}/overview`,
    `/v1/token/${TOKEN}/top-traders?window=24h`,
    `/udf/history?symbol=${TOKEN}&resolution=1&countback=300&to=${NOW + 1}`,
  ];
  for (const p of reads) await http.get(p);
  const newest = Number((await store.pool.query<{ n: number }>('SELECT max(block_time) AS n FROM trades')).rows[0]!.n);
  let upTo = newest;
  for (const seconds of [3, 3, 3, 12, 60]) {
    const from = upTo - seconds + 1;
    const keys = (
      await store.pool.query<{ signature: string; index: number }>('SELECT signature, idx AS "index" FROM trades WHERE block_time >= $1 AND block_time <= $2', [
        from,
        upTo,
      ])
    ).rows;
    // Reads of a price that needs no cache (prices at a time) in a loop while the retraction runs.
    let done = false;
    let slowest = 0;
    let count = 0;
    const reader = (async () => {
      while (!done) {
        const s = performance.now();
        await http.get(`/v1/prices/at?addresses=${TOKEN}&time=${NOW}`);
        slowest = Math.max(slowest, performance.now() - s);
        count++;
      }
    })();
    const started = performance.now();
    const r = await services.ingest.retract({ trades: keys, markets: [], tokens: [], records: [] });
    const ms = performance.now() - started;
    done = true;
    await reader;
    const after: string[] = [];
    for (const p of reads) {
      const s = performance.now();
      await http.get(p);
      after.push(`${(performance.now() - s).toFixed(1)} ms`);
    }
    console.log(
      `postgres: retract the newest ${seconds} s (${r.removed} trades): ${ms.toFixed(1)} ms; ${count} reads meanwhile, slowest ${slowest.toFixed(1)} ms; first reads after (overview, top traders, history): ${after.join(', ')}`,
    );
    upTo = from - 1;
  }
  await app.deps.coord.close();
  await store.close();
}

if (path.startsWith('postgres')) await mainPg(path);
else await main();
