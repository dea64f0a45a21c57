/**
 * The ingest on PostgreSQL writes what the ingest on SQLite writes: the same random batches on a
 * fresh SQLite store and a fresh PostgreSQL database give exactly the same rows in every table
 * ingest writes (record numbers included), the same answers (or the same refusal) and the same
 * candles through the candles repos; and a batch that fails on PostgreSQL leaves nothing of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import pg from 'pg';
import { asyncRepo } from '../../src/store/port/async.js';
import { createCandlesRepo } from '../../src/store/sqlite/candles-repo.js';
import { createMarketCandlesRepo } from '../../src/store/sqlite/market-candles-repo.js';
import { createPgCandlesRepo } from '../../src/store/pg/candles-repo.js';
import { createPgMarketCandlesRepo } from '../../src/store/pg/market-candles-repo.js';
import { parseResolution } from '../../src/domain/resolution.js';
import { IngestRejected } from '../../src/services/ingest.js';
import { clientOf } from '../../src/store/pg/ingest-tx.js';
import { engines, type Engines } from './twins.js';
import {
  batch,
  INGEST_TABLES,
  pgIngest,
  pgTables,
  seedBatch,
  sqliteIngest,
  sqliteTables,
  subscribe,
  testClock,
  TOKENS,
  validTrades,
} from './ingest-support.js';

const lines = (values: unknown[]) => values.map((value, i) => ({ line: i + 1, value }));

/** What one call answered: its result, or the lines it refused. */
async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return { ok: await run() };
  } catch (err) {
    if (err instanceof IngestRejected) return { rejected: err.errors };
    throw err;
  }
}

describe('ingest on PostgreSQL', () => {
  let e: Engines;
  beforeAll(async () => {
    e = await engines('ingest');
  });
  afterAll(async () => {
    await e?.close();
  });

  const fresh = async () => {
    await e.truncate(Object.keys(INGEST_TABLES).concat(['subscriptions', 'tenants']));
    const store = e.sqlite();
    await subscribe(store, e.pool);
    return store;
  };

  it('writes the same rows in every table as SQLite for the same random batches', async () => {
    const seen = { trades: 0, deliveries: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 6 }), async (batches) => {
        const store = await fresh();
        try {
          const clock = testClock();
          const lite = sqliteIngest(store, clock);
          const pgi = pgIngest(e.pool, clock);
          for (const values of [seedBatch(), ...batches]) {
            clock.ms += 7_000;
            const want = await outcome(async () => lite.writeSliced(await lite.validate(lines(values))));
            const got = await outcome(() => pgi.ingest(lines(values)));
            expect(got).toEqual(want);
            if ('rejected' in (want as object)) seen.refused++;
          }
          const tables = sqliteTables(store);
          expect(await pgTables(e.pool)).toEqual(tables);
          seen.trades += tables.trades!.length;
          seen.deliveries += tables.webhook_deliveries!.length;
        } finally {
          store.close();
        }
      }),
      // 40 runs: with 25, a draw of mostly refused or tradeless batches once wrote 88 trades in all
      // (a loaded engines run), under the floor below that says the comparison covered trades.
      { numRuns: 40 },
    );
    // The runs wrote what they are meant to compare (trades, events and their deliveries), and
    // some batches were refused on both.
    expect(seen.trades).toBeGreaterThan(100);
    expect(seen.deliveries).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });

  it('gives the same candles through the candles repos', async () => {
    const store = await fresh();
    try {
      const clock = testClock();
      const lite = sqliteIngest(store, clock);
      const pgi = pgIngest(e.pool, clock);
      const batches = fc.sample(batch, { numRuns: 12, seed: 17 });
      for (const values of [seedBatch(), ...batches]) {
        await outcome(async () => lite.writeSliced(await lite.validate(lines(values))));
        await outcome(() => pgi.ingest(lines(values)));
      }
      const lc = asyncRepo(createCandlesRepo(store.db));
      const pc = createPgCandlesRepo(e.pool);
      const lm = asyncRepo(createMarketCandlesRepo(store.db));
      const pm = createPgMarketCandlesRepo(e.pool);
      const markets = store.db.prepare<[], string>('SELECT address FROM market_keys').pluck().all();
      let bars = 0;
      for (const key of ['1S', '15S', '60', '1D', '1M']) {
        const res = parseResolution(key)!;
        for (const q of [
          { mode: 'countback' as const, to: 1_700_000_400, countback: 3 },
          { mode: 'countback' as const, to: 1_700_000_400, countback: 5000 },
          { mode: 'range' as const, from: 1_690_000_000, to: 1_700_000_100 },
        ]) {
          for (const tokenId of [1, 2, 3, 4, 5]) {
            const ls = { rows: 0 };
            const ps = { rows: 0 };
            const want = await lc.readBars(tokenId, res, q, ls);
            expect(await pc.readBars(tokenId, res, q, ps)).toEqual(want);
            expect(ps.rows).toBe(ls.rows);
            bars += want.length;
            expect(await pc.newestBarBefore(tokenId, res, q.to)).toBe(await lc.newestBarBefore(tokenId, res, q.to));
            for (const m of q.mode === 'range' ? markets : []) {
              for (const cur of ['usd', 'native'] as const) {
                expect(await pm.readBars(tokenId, m, cur, res, q)).toEqual(await lm.readBars(tokenId, m, cur, res, q));
                expect(await pm.lastPrice(tokenId, m, cur)).toBe(await lm.lastPrice(tokenId, m, cur));
              }
              expect(await pm.newestBarBefore(tokenId, m, res, q.to)).toBe(await lm.newestBarBefore(tokenId, m, res, q.to));
              expect(await pm.marketToken(m)).toBe(await lm.marketToken(m));
            }
          }
        }
      }
      expect(bars).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  });

  it('sends a post of trades of a stored token as BEGIN, the trades, two carrying reads and COMMIT', async () => {
    await fresh();
    // The statements every connection of this pool sends, in order.
    const sent: string[] = [];
    const pool = new pg.Pool({ connectionString: e.db.url, max: 4 });
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...a: unknown[]) => unknown;
      Object.assign(client, {
        query: (...a: unknown[]) => {
          const q = a[0];
          sent.push(typeof q === 'string' ? q : (q as { text: string }).text);
          return query(...a);
        },
      });
    });
    try {
      const clock = testClock();
      const pgi = pgIngest(pool, clock);
      await pgi.ingest(lines(seedBatch()));
      // TOKENS[2] is stored and nobody subscribes to it; the first post also numbers its markets.
      const post = (n: number) =>
        fc.sample(validTrades, { numRuns: 1, seed: 11 })[0]!.map((t, i) => ({ ...t, token: TOKENS[2], signature: `post${n}-${i}`, index: 0 }));
      await pgi.ingest(lines(post(1)));
      sent.length = 0;
      expect(await pgi.ingest(lines(post(2)))).toEqual({ accepted: post(2).length, duplicates: 0 });
      const tx = sent.slice(sent.findIndex((q) => q.startsWith('BEGIN')));
      expect(tx).toHaveLength(5);
      expect(tx[0]).toMatch(/^BEGIN; SELECT pg_advisory_xact_lock/);
      expect(tx[1]).toMatch(/INSERT INTO trades/);
      // The subscribed addresses, with the rollups deferred until then.
      expect(tx[2]).toMatch(/INSERT INTO candles[\s\S]*FROM subscriptions/);
      // The discovery read, with the read views and the trade commit: nothing is left for a statement before COMMIT.
      expect(tx[3]).toMatch(/INSERT INTO wallet_last[\s\S]*INSERT INTO trade_commits[\s\S]*FROM tokens t LEFT JOIN token_search/);
      expect(tx[4]).toBe('COMMIT');
    } finally {
      await pool.end();
    }
  });

  it('refuses a batch with a bad record in the middle and writes nothing of it', async () => {
    const store = await fresh();
    store.close();
    const pgi = pgIngest(e.pool, testClock());
    await pgi.ingest(lines(seedBatch()));
    const before = await pgTables(e.pool);
    const good = fc.sample(validTrades, { numRuns: 3, seed: 5 }).flat();
    const bad = [...good, { type: 'trade', token: TOKENS[5], market: 'nope' }, ...good];
    const refused = await outcome(() => pgi.ingest(lines(bad)));
    expect(refused).toMatchObject({ rejected: [{ line: good.length + 1 }] });
    expect(await pgTables(e.pool)).toEqual(before);
  });

  it('rolls back every slice already written when a later slice fails', async () => {
    await fresh();
    const clock = testClock();
    const pgi = pgIngest(e.pool, clock);
    await pgi.ingest(lines(seedBatch()));
    const before = await pgTables(e.pool);
    let slices = 0;
    pgi.addHook(({ first }) => {
      if (!first) throw new Error('second slice fails');
      slices++;
    });
    const long = fc.sample(validTrades, { numRuns: 80, seed: 9 }).flat();
    expect(long.length).toBeGreaterThan(300);
    await expect(pgi.ingest(lines(long))).rejects.toThrow('second slice fails');
    expect(slices).toBe(1);
    expect(await pgTables(e.pool)).toEqual(before);
  });

  it('writes nothing when its connection is killed mid-ingest, and the pool carries on', async () => {
    await fresh();
    const pgi = pgIngest(e.pool, testClock());
    await pgi.ingest(lines(seedBatch()));
    const before = await pgTables(e.pool);
    const admin = new pg.Client({ connectionString: e.db.url });
    await admin.connect();
    try {
      pgi.addHook(async ({ first }, tx) => {
        if (first) return;
        const client = clientOf(tx);
        const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      });
      const long = fc.sample(validTrades, { numRuns: 80, seed: 9 }).flat();
      expect(long.length).toBeGreaterThan(300);
      await expect(pgi.ingest(lines(long))).rejects.toThrow();
      expect(await pgTables(e.pool)).toEqual(before);
    } finally {
      await admin.end();
    }
  });
});
