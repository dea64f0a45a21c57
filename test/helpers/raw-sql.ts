/**
 * One SQL statement straight on a test store, whichever engine the helpers opened: for a naive
 * reference over tables the tested code keeps (a listing, an index), and for a write made behind
 * the store's back, as another process's would be. Tests go through the repos otherwise. The
 * statement must read the same on both engines; `?` marks its parameters. On PostgreSQL it runs
 * at once on the store's pool: await the helper's ingest (or anything it depends on) first.
 */
import pg from 'pg';
import type { Store } from '../../src/store/sqlite/db.js';
import type { PgStore } from '../../src/store/pg/pg-store.js';

const INT8 = 20;
const NUMERIC = 1700;
/** bigint and numeric as numbers, as better-sqlite3 answers them (the test values are small). */
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format ?? 'text'),
};

/** The rows `sql` answers (none for a write); column names as the statement spells them (quote camelCase). */
export async function rawSql<T = Record<string, unknown>>(store: Store | PgStore, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  if (store.kind === 'sqlite') {
    const stmt = store.db.prepare(sql);
    if (!stmt.reader) {
      stmt.run(...params);
      return [];
    }
    return stmt.all(...params) as T[];
  }
  let n = 0;
  const text = sql.replace(/\?/g, () => `$${++n}`);
  return (await store.pool.query({ text, values: [...params], types } as pg.QueryConfig)).rows as T[];
}
