/**
 * Copying a SQLite store into PostgreSQL: a store filled through the real services (demo data,
 * tenants, keys, a revoked key, a subscription with a webhook, events and pending deliveries,
 * sessions, the cursor secret) arrives row for row in every table, new record numbers continue
 * above the copied ones, and a non-empty target or an unmigrated store is refused with nothing
 * written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { loadMigrations, migrate, openStore } from '../../src/store/sqlite/db.js';
import { cursorSecret } from '../../src/store/sqlite/meta-repo.js';
import { loadDemo } from '../../src/services/demo.js';
import { demoRecords } from '../../src/domain/demo-data.js';
import { copySqliteToPg, CopyRefused } from '../../src/store/pg/copy-store.js';
import { createPgPool } from '../../src/store/pg/pool.js';
import { makeTestApp } from '../helpers/make-test-app.js';
import { aTrade } from '../helpers/builders.js';
import { freshDatabase, sqliteTables, type FreshDatabase } from './support.js';

/** Every row of every table of the SQLite file, as comparable strings, sorted. */
function sqliteRows(path: string): Record<string, string[]> {
  const db = new Database(path, { readonly: true });
  try {
    return Object.fromEntries(sqliteTables(db).map((t) => [t, (db.prepare(`SELECT * FROM "${t}"`).raw().all() as unknown[][]).map(show).sort()]));
  } finally {
    db.close();
  }
}

const show = (row: unknown[]): string => JSON.stringify(row.map((v) => (Buffer.isBuffer(v) ? `bytes:${v.toString('hex')}` : v)));

describe('copying a SQLite store into PostgreSQL', () => {
  let dir: string;
  let path: string;
  let target: FreshDatabase;
  let pool: pg.Pool;
  let eventSeq = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'copy-store-'));
    path = join(dir, 'tokens.db');
    const store = openStore(path, { backgroundCheckpoint: false });
    const t = makeTestApp({ store, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    const opts = { tokens: 3, days: 1, seed: 7, until: t.clock.seconds() };
    const first = [...demoRecords(opts)].find((r) => r.type === 'token')!.address;
    // A new trade names a stored market: one of the demo set's for that token.
    const firstMarket = [...demoRecords(opts)].flatMap((r) => (r.type === 'market' && r.token === first ? [r.address] : []))[0]!;
    const { tenantId, keyId } = t.makeKey({ plan: 'pro' });
    await t.services.accounts.createKey(tenantId, { name: 'second' });
    await t.services.accounts.revokeKey(keyId);
    await t.services.accounts.setEmail(tenantId, 'Ops@Example.com');
    await t.services.accounts.setPassword(tenantId, 'correct horse battery staple');
    await t.services.subscriptions.register(tenantId, first, 'http://127.0.0.1:9/hook');
    await loadDemo(t.services, opts);
    t.ingest([
      aTrade(first, { market: firstMarket, blockTime: opts.until - 5, signature: 'late-1' }),
      aTrade(first, { market: firstMarket, blockTime: opts.until - 4, signature: 'late-2' }),
    ]);
    await t.services.sessions.create(tenantId);
    await t.services.signInThrottle.begin('203.0.113.9', 'ops@example.com');
    cursorSecret(store.db);
    // Pruned events leave SQLite's AUTOINCREMENT counter above the highest id left.
    store.db.prepare('DELETE FROM events WHERE id = (SELECT max(id) FROM events)').run();
    eventSeq = store.db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'events'`).pluck().get() as number;
    t.close();

    target = await freshDatabase('copy');
    pool = createPgPool({ url: target.url, instanceId: 'copy-test' });
  });
  afterAll(async () => {
    await pool?.end();
    await target?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies every table row for row', async () => {
    const want = sqliteRows(path);
    // The store exercises what the copy must carry.
    for (const t of [
      'tokens',
      'trades',
      'candles',
      'api_keys',
      'subscriptions',
      'webhook_secrets',
      'events',
      'webhook_deliveries',
      'dashboard_sessions',
      'sign_in_failures',
      'meta',
      'udf_listing',
    ]) {
      expect(want[t]?.length, t).toBeGreaterThan(0);
    }
    const client = await pool.connect();
    let result;
    try {
      result = await copySqliteToPg({ sqlitePath: path, client });
    } finally {
      client.release();
    }
    expect(result.tables).toEqual(Object.fromEntries(Object.entries(want).map(([t, rows]) => [t, rows.length])));
    for (const [t, rows] of Object.entries(want)) {
      const got = await pool.query({ text: `SELECT * FROM "${t}"`, rowMode: 'array' });
      expect(got.rows.map((r: unknown[]) => show(r)).sort(), t).toEqual(rows);
    }
  });

  it('continues record numbers above the copied ones, events above the pruned ones too', async () => {
    const maxTrade = (await pool.query('SELECT max(id) AS m FROM trades')).rows[0].m as number;
    const token = (await pool.query('SELECT id FROM tokens ORDER BY id LIMIT 1')).rows[0].id as number;
    const trade = await pool.query(
      `INSERT INTO trades (token_id, block_time, signature, idx, is_buy, price_usd, amount, quote_amount, volume_usd, wallet, market)
       VALUES ($1, 1, 'after-copy', 0, 1, 1, 1, 1, 1, 'w', 'm') RETURNING id`,
      [token],
    );
    expect(trade.rows[0].id).toBe(maxTrade + 1);
    const tenant = (await pool.query('SELECT id FROM tenants LIMIT 1')).rows[0].id as string;
    const event = await pool.query(`INSERT INTO events (tenant_id, token, created_at, data) VALUES ($1, 'x', 1, '{}') RETURNING id`, [tenant]);
    expect(event.rows[0].id).toBe(eventSeq + 1);
    // The triggers are on again: a new token gets its listing row.
    await pool.query(`INSERT INTO tokens (address, symbol, name, decimals, created_at, updated_at) VALUES ('NEW1', 'NEW', 'New', 6, 1, 1)`);
    expect((await pool.query(`SELECT dex FROM udf_listing l JOIN tokens t ON t.id = l.token_id WHERE t.address = 'NEW1'`)).rows).toEqual([{ dex: '' }]);
  });

  it('refuses a database that is not empty, writing nothing', async () => {
    const before = (await pool.query('SELECT count(*) AS n FROM trades')).rows[0].n as number;
    const client = await pool.connect();
    try {
      await expect(copySqliteToPg({ sqlitePath: path, client })).rejects.toThrow(CopyRefused);
      await expect(copySqliteToPg({ sqlitePath: path, client })).rejects.toThrow(/not empty \(table \w+ has rows\)/);
    } finally {
      client.release();
    }
    expect((await pool.query('SELECT count(*) AS n FROM trades')).rows[0].n).toBe(before);
  });

  it('refuses a store whose schema is not the latest, before touching the database', async () => {
    const old = join(dir, 'old.db');
    const db = new Database(old);
    migrate(db, loadMigrations().slice(0, -1));
    db.close();
    const empty = await freshDatabase('copy_old');
    const c = new pg.Client({ connectionString: empty.url });
    await c.connect();
    try {
      // Migration numbers may skip (several are written at once), so the one before is read, not latest - 1.
      const [before, latest] = loadMigrations()
        .slice(-2)
        .map((m) => m.version);
      await expect(copySqliteToPg({ sqlitePath: old, client: c })).rejects.toThrow(
        `the SQLite store is at schema version ${before} and this code's is ${latest}`,
      );
      const tables = await c.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = current_schema()`);
      expect(tables.rows[0].n).toBe(0);
    } finally {
      await c.end();
      await empty.drop();
    }
  });
});
