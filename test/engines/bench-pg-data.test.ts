/**
 * The benchmark's PostgreSQL data set (bench/pg-data.ts): a tiny SQLite data set built through
 * the ingest path is copied into a database named after it with the same row count in every
 * table, reused on the next call, and each pass's database made from it gets the bench key, the
 * raised enterprise rate and the hot token's subscription, leaving the cached copy untouched.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { buildStore, hotToken, planData } from '../../bench/data.js';
import { ensurePgDataSet, makeWorkDatabase, provisionPg } from '../../bench/pg-data.js';
import { BENCH_PLAN_RPM } from '../../bench/provision.js';
import { databaseUrl, sqliteRowCounts, uniqueSuffix, withDatabase } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'bench-pg-'));
const file = join(dir, `store-enginetest-${uniqueSuffix()}.db`);
const made: string[] = [];

afterAll(async () => {
  const admin = new pg.Client({ connectionString: databaseUrl() });
  await admin.connect();
  try {
    for (const name of made) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  rmSync(dir, { recursive: true, force: true });
});

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

async function pgCounts(url: string, tables: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of tables) out[t] = Number((await query<{ n: string }>(url, `SELECT count(*) AS n FROM "${t}"`))[0]!.n);
  return out;
}

describe('the bench data set on PostgreSQL', () => {
  const plan = planData({ trades: 1200, tokens: 4, days: 2, seed: 3, anchor: 1_750_000_000 });
  const hot = hotToken(plan).address;

  it('copies the SQLite set table for table, reuses the copy, and provisions each pass database made from it', async () => {
    const stats = buildStore(file, plan);
    const want = sqliteRowCounts(file);
    expect(want.trades).toBe(stats.trades);

    const data = await ensurePgDataSet(databaseUrl(), file);
    made.push(data.name);
    expect(data.name).toMatch(/^bench_enginetest_/);
    expect(data.copiedMs).not.toBeNull();
    expect(data.rows).toBe(Object.values(want).reduce((a, b) => a + b, 0));
    expect(await pgCounts(data.url, Object.keys(want))).toEqual(want);

    const again = await ensurePgDataSet(databaseUrl(), file);
    expect(again).toEqual({ name: data.name, url: data.url, copiedMs: null, rows: null });

    const work = await makeWorkDatabase(databaseUrl(), data.name, `cached_${uniqueSuffix()}`);
    made.push(work.name);
    expect(work.url).toBe(withDatabase(databaseUrl(), work.name));
    const key = await provisionPg(work.url, plan.anchor * 1000, hot);
    expect(key.registered).toBe(true);
    expect(key.secret).toMatch(/^\S{20,}$/);
    const counts = await pgCounts(work.url, Object.keys(want));
    expect(counts.trades).toBe(want.trades);
    expect(counts.tenants).toBe(want.tenants! + 1);
    expect(counts.api_keys).toBe(want.api_keys! + 1);
    expect(await query(work.url, `SELECT requests_per_minute AS rpm FROM plans WHERE name = 'enterprise'`)).toEqual([{ rpm: String(BENCH_PLAN_RPM) }]);
    // The cached copy is a template: provisioning a pass database leaves it as copied.
    expect(await pgCounts(data.url, Object.keys(want))).toEqual(want);

    await work.drop();
    expect(await query(databaseUrl(), 'SELECT datname FROM pg_database WHERE datname = $1', [work.name])).toEqual([]);
  });
});
