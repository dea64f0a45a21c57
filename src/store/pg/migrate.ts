/**
 * Migrations of the PostgreSQL store (docs/operations.md, Many instances): the numbered files of
 * src/store/pg/migrations/, applied in order, each in its own transaction together with its row
 * in `store_migrations`, forward only. Several instances starting together against one database
 * migrate it once: the whole run holds a session-level advisory lock, so the others wait for it
 * and then find nothing left to apply. A database whose schema is newer than the code refuses to
 * start, as a SQLite store does (the same SchemaTooNewError).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { projectRoot } from '../../paths.js';
import { SchemaTooNewError } from '../port/engine.js';

export const pgMigrationsDir = join(projectRoot, 'src', 'store', 'pg', 'migrations');

/**
 * The advisory lock key of a migration run (any bigint no other lock of the service uses; the
 * periodic jobs' locks will be numbered apart from it).
 */
export const MIGRATION_LOCK_KEY = '7301746852145370001';

/** The oldest PostgreSQL the schema is written for (identity columns, trusted pg_trgm, DROP DATABASE ... FORCE in the tests). */
export const MIN_SERVER_VERSION_NUM = 150000;

export type PgMigration = { version: number; name: string; sql: string };

export class PgMigrationError extends Error {}

export function loadPgMigrations(dir = pgMigrationsDir): PgMigration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}-[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), name: f, sql: readFileSync(join(dir, f), 'utf8') }));
}

/** What a run did: the version found, the version left, and the files it applied. */
export type PgMigrateResult = { from: number; to: number; applied: string[] };

/**
 * Migrates the database `client` is connected to. The client must be a dedicated connection (a
 * `pg.Client`, or one checked out of a pool), because the lock belongs to its session.
 */
export async function migratePg(client: pg.ClientBase, migrations = loadPgMigrations()): Promise<PgMigrateResult> {
  const versionNum = Number((await client.query<{ v: string }>('SELECT current_setting($1) AS v', ['server_version_num'])).rows[0]?.v);
  if (!(versionNum >= MIN_SERVER_VERSION_NUM)) {
    throw new PgMigrationError(`PostgreSQL ${Math.floor(versionNum / 10000)} is too old: the store needs 15 or later`);
  }
  await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
  try {
    await client.query(
      `CREATE TABLE IF NOT EXISTS store_migrations (
         version    integer PRIMARY KEY,
         name       text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const done = (await client.query<{ version: number; name: string }>('SELECT version, name FROM store_migrations ORDER BY version')).rows;
    const from = done.at(-1)?.version ?? 0;
    const latest = migrations.at(-1)?.version ?? 0;
    if (from > latest) {
      throw new SchemaTooNewError(`the store's schema version ${from} is newer than this code knows (${latest}); upgrade the service`);
    }
    for (const row of done) {
      const known = migrations.find((m) => m.version === row.version);
      if (known && known.name !== row.name) {
        throw new PgMigrationError(`migration ${row.version} was applied as ${row.name} but the code has ${known.name}`);
      }
    }
    const applied: string[] = [];
    for (const m of migrations) {
      if (m.version <= from) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO store_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new PgMigrationError(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(m.name);
    }
    return { from, to: Math.max(from, latest), applied };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
  }
}

/**
 * Connects to `url`, migrates, disconnects (the CLI's and the server's start-up path). Connecting
 * gives up after 10 s, so a start against a database that does not answer fails instead of hanging.
 */
export async function migratePgUrl(url: string, migrations?: PgMigration[]): Promise<PgMigrateResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await migratePg(client, migrations);
  } finally {
    await client.end();
  }
}
