/**
 * The instance's PostgreSQL pool against a real server: bigint and numeric values arrive as
 * numbers (a value a number cannot hold is an error, never a rounded number), connections carry
 * the instance's name, the pg module's global parsers stay untouched, and the errors that mean
 * "database unavailable" are told apart from the ones that mean a bad statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import pg from 'pg';
import { createPgPool, isUnavailable } from '../../src/store/pg/pool.js';
import { migratePg } from '../../src/store/pg/migrate.js';
import { freshDatabase, type FreshDatabase } from './support.js';

describe('PostgreSQL pool', () => {
  let db: FreshDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await freshDatabase('pool');
    pool = createPgPool({ url: db.url, instanceId: 'test-instance-7' });
    const c = await pool.connect();
    try {
      await migratePg(c);
    } finally {
      c.release();
    }
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('gives record numbers, times, counts and sums as numbers', async () => {
    await pool.query(`INSERT INTO tokens (address, symbol, name, decimals, created_at, updated_at) VALUES ('A1', 'AB', 'Alpha', 6, 1750000000, 1750000000123)`);
    await pool.query(`INSERT INTO tokens (address, symbol, name, decimals, created_at, updated_at) VALUES ('B2', 'BC', 'Beta', 9, 1750000001, 1750000000456)`);
    const rows = await pool.query('SELECT id, decimals, created_at, updated_at FROM tokens ORDER BY id');
    expect(rows.rows).toEqual([
      { id: 1, decimals: 6, created_at: 1750000000, updated_at: 1750000000123 },
      { id: 2, decimals: 9, created_at: 1750000001, updated_at: 1750000000456 },
    ]);
    const agg = await pool.query('SELECT count(*) AS n, sum(decimals) AS s, max(updated_at) AS m FROM tokens');
    expect(agg.rows[0]).toEqual({ n: 2, s: 15, m: 1750000000456 });
  });

  it('refuses a bigint a JavaScript number cannot hold exactly, and the pool keeps working', async () => {
    await expect(pool.query('SELECT 9007199254740993::bigint AS big')).rejects.toThrow(
      'bigint 9007199254740993 is beyond what a JavaScript number holds exactly',
    );
    expect((await pool.query('SELECT 9007199254740991::bigint AS max')).rows[0]).toEqual({ max: Number.MAX_SAFE_INTEGER });
  });

  it('names its connections after the instance and leaves the global parsers alone', async () => {
    const me = await pool.query('SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()');
    expect(me.rows[0]).toEqual({ application_name: 'test-instance-7' });
    const plain = new pg.Client({ connectionString: db.url });
    await plain.connect();
    try {
      expect((await plain.query('SELECT 5::bigint AS n')).rows[0]).toEqual({ n: '5' });
    } finally {
      await plain.end();
    }
  });

  it('tells an unreachable or lost database from a bad statement', async () => {
    // Nothing listens on a port just released.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const nowhere = createPgPool({ url: `postgres://postgres@127.0.0.1:${port}/x`, instanceId: 'nowhere', connectTimeoutMs: 1000 });
    const refused = await nowhere.query('SELECT 1').catch((e: unknown) => e);
    await nowhere.end();
    expect(isUnavailable(refused)).toBe(true);

    const bad = await pool.query('SELEC 1').catch((e: unknown) => e);
    expect((bad as { code?: string }).code).toBe('42601');
    expect(isUnavailable(bad)).toBe(false);
    const missing = await pool.query('SELECT * FROM no_such_table').catch((e: unknown) => e);
    expect(isUnavailable(missing)).toBe(false);

    // A server-side end of the session (what a restart does to every connection).
    const victim = await pool.connect();
    const pid = (await victim.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    const sleeping = victim.query('SELECT pg_sleep(10)').catch((e: unknown) => e);
    await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    const lost = await sleeping;
    victim.release(true);
    expect(isUnavailable(lost)).toBe(true);
    // The pool connects again for the next query.
    expect((await pool.query('SELECT 1::bigint AS one')).rows[0]).toEqual({ one: 1 });
  });
});
