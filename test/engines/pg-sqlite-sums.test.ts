/**
 * The sums of PostgreSQL migration 008 give SQLite's sum() and avg() of doubles to the last bit
 * (its compensated summation, NULLs skipped, NULL over no values), where PostgreSQL's own sum()
 * does not: the same random values, in the same order, on both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openStore, type Store } from '../../src/store/sqlite/db.js';
import { engines, type Engines } from './twins.js';

describe('SQLite sums on PostgreSQL', () => {
  let e: Engines;
  let store: Store;
  beforeAll(async () => {
    e = await engines('sums');
    store = openStore(':memory:', { backgroundCheckpoint: false });
    store.db.exec('CREATE TABLE x (i INTEGER PRIMARY KEY, v REAL)');
  });
  afterAll(async () => {
    store?.close();
    await e?.close();
  });

  const onSqlite = (values: (number | null)[]): { sum: number | null; avg: number | null } => {
    store.db.exec('DELETE FROM x');
    const insert = store.db.prepare('INSERT INTO x (i, v) VALUES (?, ?)');
    values.forEach((v, i) => insert.run(i, v));
    return store.db.prepare('SELECT sum(v) AS sum, avg(v) AS avg FROM x').get() as { sum: number | null; avg: number | null };
  };
  const onPg = async (values: (number | null)[], fn = 'sqlite_sum(v ORDER BY i) AS sum, sqlite_avg(v ORDER BY i) AS avg') =>
    (await e.pool.query(`SELECT ${fn} FROM unnest($1::float8[]) WITH ORDINALITY AS u (v, i)`, [values])).rows[0] as { sum: number | null; avg: number | null };

  it('adds up as SQLite does, value for value', async () => {
    const value = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }),
      fc.double({ noNaN: true, min: -1e6, max: 1e6 }),
      fc.integer({ min: -1000, max: 1000 }).map((n) => n / 10),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(value, { freq: 8 }), { maxLength: 30 }), async (values) => {
        expect(await onPg(values)).toEqual(onSqlite(values));
      }),
      { numRuns: 300 },
    );
  });

  it("differs from PostgreSQL's own sum where SQLite compensates", async () => {
    const values = [0.1, 0.2, 0.3];
    expect(onSqlite(values)).toEqual({ sum: 0.6, avg: 0.19999999999999998 });
    expect(await onPg(values)).toEqual({ sum: 0.6, avg: 0.19999999999999998 });
    expect(await onPg(values, 'sum(v) AS sum, avg(v) AS avg')).toEqual({ sum: 0.6000000000000001, avg: 0.20000000000000004 });
    expect(await onPg([])).toEqual({ sum: null, avg: null });
  });
});
