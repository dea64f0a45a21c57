/**
 * The ingest's deferred writes on PostgreSQL (src/store/pg/deferred-writes.ts, combined.ts): parts
 * renumbered into one statement; a deferred write is in the table before the transaction's next
 * statement runs, rides as CTEs of a carrying read, goes out before the commit, and fails the
 * transaction when it fails; a callback query is refused while writes wait.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { combined } from '../../src/store/pg/combined.js';
import { carrying, defer, deferringClient, flush } from '../../src/store/pg/deferred-writes.js';
import { pgTransaction } from '../../src/store/pg/pg-repo.js';
import { freshDatabase, type FreshDatabase } from './support.js';

let db: FreshDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  db = await freshDatabase('deferred');
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  await pool.query('CREATE TABLE a (k int PRIMARY KEY, v text NOT NULL)');
  await pool.query('CREATE TABLE b (k int PRIMARY KEY)');
});

afterAll(async () => {
  await pool.end();
  await db.drop();
});

const insertA = (k: number, v: string) => ({ sql: 'INSERT INTO a (k, v) VALUES ($1, $2)', params: [k, v] });
const keys = async (table: string) => (await pool.query<{ k: number }>(`SELECT k FROM ${table} ORDER BY k`)).rows.map((r) => r.k);

describe('combined()', () => {
  it('renumbers each part after the parts before it and names them', () => {
    expect(combined([insertA(1, 'x'), { sql: 'DELETE FROM b WHERE k = $1', params: [7], name: 'gone' }], 'SELECT $1::int')).toEqual({
      text: 'WITH p1 AS (INSERT INTO a (k, v) VALUES ($1, $2)),\ngone AS (DELETE FROM b WHERE k = $3)\nSELECT $1::int',
      values: [1, 'x', 7],
    });
    expect(() => combined([{ sql: 'SELECT $2', params: [1] }])).toThrow('parameter $2 of a part with 1');
  });
});

describe('deferred writes', () => {
  it('are written before the next statement, carried by a read, and before the commit', async () => {
    await pgTransaction(pool, null, async (raw) => {
      const client = deferringClient(raw);
      await defer(client, [insertA(1, 'one'), { sql: 'INSERT INTO b (k) VALUES ($1)', params: [1] }]);
      expect((await raw.query('SELECT count(*)::int AS n FROM a')).rows[0].n).toBe(0);
      // The next statement on the deferring client sees them.
      expect((await client.query('SELECT v FROM a WHERE k = 1')).rows).toEqual([{ v: 'one' }]);
      await defer(client, [insertA(2, 'two')]);
      // A carrying read goes out with them, on the snapshot from before them.
      expect(await carrying<{ n: number }>(client, [insertA(3, 'three')], 'SELECT count(*)::int AS n FROM b WHERE k >= $1', [0])).toEqual([{ n: 1 }]);
      await defer(client, [insertA(4, 'four')]);
      await flush(client);
    });
    expect(await keys('a')).toEqual([1, 2, 3, 4]);
    expect(await keys('b')).toEqual([1]);
  });

  it('fail the transaction with the statement that sends them, and nothing of it stays', async () => {
    await expect(
      pgTransaction(pool, null, async (raw) => {
        const client = deferringClient(raw);
        await client.query('INSERT INTO b (k) VALUES (2)');
        await defer(client, [insertA(1, 'again')]);
        await client.query('SELECT 1');
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await keys('b')).toEqual([1]);
  });

  it('refuse a callback query while they wait, and run at once on a client that does not defer', async () => {
    await pgTransaction(pool, null, async (raw) => {
      const client = deferringClient(raw);
      await defer(client, [insertA(5, 'five')]);
      expect(() => client.query('SELECT 1', () => undefined)).toThrow('a callback query while ingest writes wait');
      await flush(client);
      await defer(raw, [insertA(6, 'six')]);
      expect((await raw.query('SELECT count(*)::int AS n FROM a WHERE k IN (5, 6)')).rows[0].n).toBe(2);
    });
  });
});
