/**
 * Ingests arriving at two instances at once (two pools on one PostgreSQL database) lose and
 * duplicate nothing: every trade is stored once, and the derived rows (candle and market rollups,
 * wallets' last trades, tokens' last trades, one trade_commits row per transaction) agree with the
 * stored trades as if the batches had come one at a time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createPgPool } from '../../src/store/pg/pool.js';
import type pg from 'pg';
import { engines, type Engines } from './twins.js';
import { pgIngest, seedBatch, testClock, validTrades } from './ingest-support.js';

const lines = (values: unknown[]) => values.map((value, i) => ({ line: i + 1, value }));
const one = async (pool: pg.Pool, sql: string): Promise<unknown> => Object.values((await pool.query(sql)).rows[0] as object)[0];

describe('concurrent ingest on PostgreSQL', () => {
  let e: Engines;
  let other: pg.Pool;
  beforeAll(async () => {
    e = await engines('ingest_conc');
    other = createPgPool({ url: e.db.url, instanceId: 'second', max: 4 });
  });
  afterAll(async () => {
    await other?.end();
    await e?.close();
  });

  it('stores each trade once and keeps every derived row exact', async () => {
    const clock = testClock();
    const a = pgIngest(e.pool, clock);
    const b = pgIngest(other, clock);
    await a.ingest(lines(seedBatch()));
    // Both instances get overlapping batches: every trade of `shared` arrives at both.
    const shared = fc.sample(validTrades, { numRuns: 10, seed: 3 });
    const own = fc.sample(validTrades, { numRuns: 20, seed: 4 });
    const results = await Promise.all([
      (async () => {
        for (const [i, batch] of shared.entries()) await a.ingest(lines([...batch, ...own[i]!]));
      })(),
      (async () => {
        for (const [i, batch] of shared.entries()) await b.ingest(lines([...own[10 + i]!, ...batch]));
      })(),
    ]);
    expect(results).toHaveLength(2);
    const keys = new Set([...shared, ...own].flat().map((t) => `${t.signature} ${t.index}`));
    const trades = Number(await one(e.pool, 'SELECT count(*) FROM trades'));
    expect(trades).toBe(keys.size);
    expect(Number(await one(e.pool, 'SELECT count(DISTINCT (signature, idx)) FROM trades'))).toBe(trades);
    for (const res of [1, 60, 86400]) {
      expect(Number(await one(e.pool, `SELECT sum(n) FROM candles WHERE res = ${res}`))).toBe(trades);
      expect(Number(await one(e.pool, `SELECT sum(n) FROM market_candles WHERE res = ${res}`))).toBe(trades);
    }
    expect(Number(await one(e.pool, 'SELECT sum(n) FROM market_rollups WHERE res = 60'))).toBe(trades);
    expect(
      await one(e.pool, 'SELECT count(*) FROM (SELECT token_id, wallet FROM trades GROUP BY 1, 2 EXCEPT SELECT token_id, wallet FROM wallet_last) x'),
    ).toBe(0);
    // Each token's last trade is its newest in trade order.
    expect(
      await one(
        e.pool,
        `SELECT count(*) FROM tokens k WHERE k.last_trade_id IS DISTINCT FROM
           (SELECT id FROM trades t WHERE t.token_id = k.id ORDER BY block_time DESC, id DESC LIMIT 1)`,
      ),
    ).toBe(0);
    // One commit row per transaction that added trades: 20 batches, each added some.
    const ends = (await e.pool.query<{ last_id: number }>('SELECT last_id FROM trade_commits ORDER BY last_id')).rows.map((r) => r.last_id);
    expect(ends.length).toBeGreaterThanOrEqual(10);
    expect(ends.at(-1)).toBe(Number(await one(e.pool, 'SELECT max(id) FROM trades')));
  });
});
