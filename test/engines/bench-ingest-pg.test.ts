/**
 * The bench's ingest figure on PostgreSQL (bench/ingest-pg.ts): the real path and the bare
 * multi-row insert store the same trades in databases of their own, dropped afterwards, and the
 * real path writes the same events as bench/ingest-rate.ts's SQLite run of the same set. No
 * timing is asserted (speed belongs in `npm run bench`), only that the figures are made of the
 * rows they claim.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { demoOptions, planData } from '../../bench/data.js';
import { measurePgIngest } from '../../bench/ingest-pg.js';
import { measureIngest, splitRecords } from '../../bench/ingest-rate.js';
import { databaseUrl } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'bench-ingest-pg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the PostgreSQL ingest figure', () => {
  it('stores every trade on both sides, writes the events SQLite writes, and leaves no database behind', async () => {
    const opts = demoOptions(planData({ trades: 3000, tokens: 5, days: 2, seed: 7, anchor: 1_750_000_000 }));
    const trades = splitRecords(opts).trades.length;
    const onPg = await measurePgIngest(databaseUrl(), opts, 700);
    const onSqlite = await measureIngest(dir, opts, 700);

    expect(onPg.trades).toBe(trades);
    expect(onPg.trades).toBe(onSqlite.trades);
    expect(onPg.batch).toBe(700);
    expect(onPg.bare).toBe('multi-row insert');
    expect(onPg.registered).toBe(true);
    expect(onPg.events).toBe(onSqlite.events);
    expect(onPg.events).toBeGreaterThan(0);
    expect(onPg.ratio).toBeCloseTo(onPg.bareMs / onPg.realMs, 9);
    expect(onPg.batchP50Ms).toBeLessThanOrEqual(onPg.batchP99Ms);

    const admin = new pg.Client({ connectionString: databaseUrl() });
    await admin.connect();
    try {
      const left = await admin.query('SELECT datname FROM pg_database WHERE datname LIKE $1', [`bench_ingest_%_${process.pid}`]);
      expect(left.rows).toEqual([]);
    } finally {
      await admin.end();
    }
  });
});
