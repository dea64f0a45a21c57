/**
 * What every engine test needs: the engines' URLs (missing ones fail the test file, never skip
 * it: `npm run test:engines` is run on purpose, with scripts/engines.sh start), a fresh
 * PostgreSQL database per test file (created with a unique name, dropped afterwards) and a
 * Redis key prefix of its own.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import Database from 'better-sqlite3';

function required(name: 'TEST_DATABASE_URL' | 'TEST_REDIS_URL'): string {
  const url = process.env[name];
  if (!url) {
    throw new Error(`${name} is not set: start the engines with scripts/engines.sh start and export what it prints`);
  }
  return url;
}

export const databaseUrl = (): string => required('TEST_DATABASE_URL');
export const redisUrl = (): string => required('TEST_REDIS_URL');

/** A short random name part, so parallel test files never meet. */
export const uniqueSuffix = (): string => `${process.pid}_${randomBytes(4).toString('hex')}`;

/** The same server URL with another database name. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export type FreshDatabase = { url: string; name: string; drop(): Promise<void> };

/** Creates an empty database on the test server; `drop()` removes it (ending its sessions). */
export async function freshDatabase(label: string): Promise<FreshDatabase> {
  const adminUrl = databaseUrl();
  const name = `test_${label}_${uniqueSuffix()}`.toLowerCase();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(adminUrl, name),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A key prefix no other test file uses. */
export const redisPrefix = (label: string): string => `test:${label}:${uniqueSuffix()}:`;

/** The tables of a SQLite store file (its own; SQLite's, virtual and shadow tables left out). */
export function sqliteTables(db: Database.Database): string[] {
  return db.prepare(`SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'`).pluck().all() as string[];
}

/** Rows per table of the SQLite store file at `path`. */
export function sqliteRowCounts(path: string): Record<string, number> {
  const db = new Database(path, { readonly: true });
  try {
    return Object.fromEntries(sqliteTables(db).map((t) => [t, db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get() as number]));
  } finally {
    db.close();
  }
}
