/**
 * The PostgreSQL migration runner against a real server: a fresh database migrates, several
 * instances starting together migrate once, a failed migration leaves nothing behind, and a
 * database newer than the code refuses to start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { loadPgMigrations, migratePg, migratePgUrl, MIGRATION_LOCK_KEY, PgMigrationError } from '../../src/store/pg/migrate.js';
import { SchemaTooNewError } from '../../src/store/sqlite/db.js';
import { freshDatabase, type FreshDatabase } from './support.js';

const files = loadPgMigrations();

async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return c;
}

async function recorded(url: string): Promise<{ version: number; name: string }[]> {
  const c = await connect(url);
  try {
    return (await c.query<{ version: number; name: string }>('SELECT version, name FROM store_migrations ORDER BY version')).rows;
  } finally {
    await c.end();
  }
}

describe('PostgreSQL migrations', () => {
  const dbs: FreshDatabase[] = [];
  const fresh = async (label: string) => {
    const db = await freshDatabase(label);
    dbs.push(db);
    return db;
  };
  beforeAll(() => {
    expect(files.map((m) => m.version)).toEqual(files.map((_, i) => i + 1));
  });
  afterAll(async () => {
    for (const db of dbs) await db.drop();
  });

  it('migrates a fresh database and records every file once; a second run applies nothing', async () => {
    const db = await fresh('fresh');
    const first = await migratePgUrl(db.url);
    expect(first).toEqual({ from: 0, to: files.length, applied: files.map((m) => m.name) });
    expect(await recorded(db.url)).toEqual(files.map((m) => ({ version: m.version, name: m.name })));
    const again = await migratePgUrl(db.url);
    expect(again).toEqual({ from: files.length, to: files.length, applied: [] });

    const c = await connect(db.url);
    try {
      const plans = await c.query('SELECT name, requests_per_minute::int AS rpm FROM plans ORDER BY name');
      expect(plans.rows).toEqual([
        { name: 'enterprise', rpm: 30000 },
        { name: 'free', rpm: 300 },
        { name: 'pro', rpm: 3000 },
      ]);
    } finally {
      await c.end();
    }
  });

  it('applies each migration exactly once when several instances start together', async () => {
    const db = await fresh('race');
    // A third session holds the lock while four migrators start, so all four are waiting on it at
    // once when it is released: without the lock each would find version 0 and apply everything.
    const holder = await connect(db.url);
    await holder.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    const clients = await Promise.all([1, 2, 3, 4].map(() => connect(db.url)));
    try {
      const runs = clients.map((c) => migratePg(c));
      const waiting = async () =>
        (
          await holder.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_locks
             WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          )
        ).rows[0]!.n;
      // The migrators may not all have reached the lock yet; wait until they have.
      let n = await waiting();
      for (let i = 0; i < 200 && n < 4; i++) {
        await new Promise((r) => setTimeout(r, 25));
        n = await waiting();
      }
      expect(n).toBe(4);
      await holder.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
      const results = await Promise.all(runs);
      const applied = results.map((r) => r.applied.length).sort();
      expect(applied).toEqual([0, 0, 0, files.length]);
      expect(results.every((r) => r.to === files.length)).toBe(true);
      expect(await recorded(db.url)).toHaveLength(files.length);
    } finally {
      await holder.end();
      for (const c of clients) await c.end();
    }
  });

  it('rolls a failed migration back whole and records nothing of it', async () => {
    const db = await fresh('fail');
    const good = { version: 1, name: '001-good.sql', sql: 'CREATE TABLE a (x bigint);' };
    const bad = { version: 2, name: '002-bad.sql', sql: 'CREATE TABLE b (x bigint); INSERT INTO b VALUES (1); SELECT * FROM missing_table;' };
    await expect(migratePgUrl(db.url, [good, bad])).rejects.toThrow(PgMigrationError);
    await expect(migratePgUrl(db.url, [good, bad])).rejects.toThrow(/002-bad\.sql failed: relation "missing_table" does not exist/);
    expect(await recorded(db.url)).toEqual([{ version: 1, name: '001-good.sql' }]);
    const c = await connect(db.url);
    try {
      const tables = await c.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1`);
      expect(tables.rows.map((r) => r.table_name)).toEqual(['a', 'store_migrations']);
      // The lock was released: another session can take it at once.
      const free = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [MIGRATION_LOCK_KEY]);
      expect(free.rows[0]!.ok).toBe(true);
    } finally {
      await c.end();
    }
  });

  it('refuses a database whose schema is newer than the code, changing nothing', async () => {
    const db = await fresh('newer');
    await migratePgUrl(db.url);
    const c = await connect(db.url);
    try {
      await c.query(`INSERT INTO store_migrations (version, name) VALUES (${files.length + 1}, '999-from-the-future.sql')`);
    } finally {
      await c.end();
    }
    const run = migratePgUrl(db.url);
    await expect(run).rejects.toThrow(SchemaTooNewError);
    await expect(migratePgUrl(db.url)).rejects.toThrow(`the store's schema version ${files.length + 1} is newer than this code knows (${files.length})`);
    expect(await recorded(db.url)).toHaveLength(files.length + 1);
  });

  it('refuses a database where a version was applied under another file name', async () => {
    const db = await fresh('renamed');
    await migratePgUrl(db.url, [{ version: 1, name: '001-old-name.sql', sql: 'CREATE TABLE a (x bigint);' }]);
    await expect(migratePgUrl(db.url, [{ version: 1, name: '001-new-name.sql', sql: 'CREATE TABLE a (x bigint);' }])).rejects.toThrow(
      'migration 1 was applied as 001-old-name.sql but the code has 001-new-name.sql',
    );
  });
});
