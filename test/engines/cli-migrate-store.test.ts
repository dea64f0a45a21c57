/**
 * `cli migrate-store --to URL` (docs/operations.md, Many instances: moving a store to PostgreSQL):
 * a store made through the CLI arrives in an empty PostgreSQL database table for table; a store
 * another connection has open, a target that is not empty and a wrong call are refused with
 * nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import pg from 'pg';
import { main } from '../../src/cli.js';
import { openStore } from '../../src/store/sqlite/db.js';
import { freshDatabase, sqliteRowCounts, type FreshDatabase } from './support.js';

let dir: string;
let path: string;
let target: FreshDatabase;

async function cli(args: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const code = await main(args, {
    stdout: (s) => void (out += s),
    stderr: (s) => void (err += s),
    stdin: Readable.from(['']),
    env: { DATABASE_PATH: path, ...env },
  });
  return { code, out, err };
}

async function pgCount(table: string): Promise<number> {
  const c = new pg.Client({ connectionString: target.url });
  await c.connect();
  try {
    return Number((await c.query(`SELECT count(*)::int AS n FROM "${table}"`)).rows[0].n);
  } finally {
    await c.end();
  }
}

async function pgTables(): Promise<number> {
  const c = new pg.Client({ connectionString: target.url });
  await c.connect();
  try {
    return Number((await c.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = current_schema()`)).rows[0].n);
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'migrate-store-'));
  path = join(dir, 'tokens.db');
  target = await freshDatabase('migrate_store');
  expect((await cli(['demo', '--tokens', '3', '--days', '1', '--seed', '5'])).code).toBe(0);
  expect((await cli(['tenants', 'create', '--name', 'Acme', '--plan', 'pro'])).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await target?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('cli migrate-store', () => {
  it('refuses a call without --to, or with another kind of URL, as a usage error (exit 2)', async () => {
    const none = await cli(['migrate-store']);
    expect(none.code).toBe(2);
    expect(none.err).toContain('migrate-store needs --to');
    const mysql = await cli(['migrate-store', '--to', 'mysql://localhost/x']);
    expect(mysql.code).toBe(2);
    expect(mysql.err).toContain('--to must be a postgres:// or postgresql:// URL');
    expect(await pgTables()).toBe(0);
  });

  it('refuses a store another connection has open, touching nothing (exit 1)', async () => {
    const held = openStore(path, { backgroundCheckpoint: false });
    try {
      const r = await cli(['migrate-store', '--to', target.url]);
      expect(r.code).toBe(1);
      expect(r.err).toContain('is in use');
    } finally {
      held.close();
    }
    expect(await pgTables()).toBe(0);
  });

  it('copies every table, row for row, into the empty database, and refuses to copy into it again', async () => {
    const before = sqliteRowCounts(path);
    expect(before.trades).toBeGreaterThan(100);
    const r = await cli(['migrate-store', '--to', target.url, '--json']);
    expect(r.err.split('\n').filter((l) => l.startsWith('migrate-store: ')).length).toBeGreaterThan(10);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { from: string; tables: Record<string, number>; rows: number };
    expect(doc.from).toBe(path);
    for (const [table, n] of Object.entries(before)) {
      expect({ table, copied: doc.tables[table] }).toEqual({ table, copied: n });
      expect({ table, rows: await pgCount(table) }).toEqual({ table, rows: n });
    }
    expect(doc.rows).toBe(Object.values(doc.tables).reduce((a, b) => a + b, 0));

    const again = await cli(['migrate-store', '--to', target.url]);
    expect(again.code).toBe(1);
    expect(again.err).toContain('the target database is not empty');
    expect(await pgCount('trades')).toBe(before.trades);
  });
});
