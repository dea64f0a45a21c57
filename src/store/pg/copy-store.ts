/**
 * Copies a SQLite store into an empty PostgreSQL database (docs/operations.md, Many instances):
 * the engine of `cli migrate-store --to postgres://...`. Every table, row for row and column for
 * column (the two schemas are twins: test/engines/pg-schema.test.ts), including the cursor
 * secret in meta, keys, sessions, subscriptions, events, pending deliveries and demo metadata.
 *
 * - One snapshot of the SQLite file (one read transaction) and ONE PostgreSQL transaction: the
 *   copy is whole or nothing is written.
 * - Refused (CopyRefused, nothing written) when the database holds any row other than the seeded
 *   plans, trade count (0) and trade number floor (0), and when the SQLite store's schema is not this code's latest (open it once with this
 *   version to migrate it).
 * - The udf_listing triggers are off while rows are copied (ALTER TABLE ... DISABLE TRIGGER USER,
 *   which the tables' owner may do), so derived rows arrive as copied, not made again.
 * - Every identity moves past the highest copied number and past SQLite's AUTOINCREMENT counter
 *   (events ids are never handed out twice, even those of pruned events) and, for trades, past
 *   the highest number ever deleted (trade_id_floor), so new record numbers continue above the
 *   copied ones and never reuse a removed trade's.
 * - The database is ANALYZEd after the commit, so its planner statistics exist from the first read.
 */
import Database from 'better-sqlite3';
import type pg from 'pg';
import { loadMigrations } from '../sqlite/db.js';
import { migratePg } from './migrate.js';

// The refusal and the result are the port's (src/store/port/engine.ts), named here too.
import { CopyRefused, type CopyResult } from '../port/engine.js';
export { CopyRefused, type CopyResult };

type SqliteTable = { name: string; columns: string[]; parents: string[] };

/** The store's tables, parents before children (foreign keys), FTS5 and SQLite's own left out. */
function sqliteTables(db: Database.Database): SqliteTable[] {
  const names = db
    .prepare(`SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'`)
    .pluck()
    .all() as string[];
  const tables = names.map((name) => ({
    name,
    columns: db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck().all(name) as string[],
    parents: (db.prepare('SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)').pluck().all(name) as string[]).filter((p) => p !== name),
  }));
  const ordered: SqliteTable[] = [];
  const placed = new Set<string>();
  while (ordered.length < tables.length) {
    const ready = tables.filter((t) => !placed.has(t.name) && t.parents.every((p) => placed.has(p)));
    if (ready.length === 0) throw new Error('the store has a foreign-key cycle; it cannot be copied table by table');
    for (const t of ready.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      ordered.push(t);
      placed.add(t.name);
    }
  }
  return ordered;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export type CopyOptions = {
  /** The SQLite store's file (opened read-only, never migrated). */
  sqlitePath: string;
  /** A dedicated connection to the target database (migrated here if fresh). */
  client: pg.ClientBase;
  /** Called after each table with its row count. */
  onTable?: (table: string, rows: number) => void;
};

export async function copySqliteToPg(opts: CopyOptions): Promise<CopyResult> {
  const { client } = opts;
  const lite = new Database(opts.sqlitePath, { readonly: true, fileMustExist: true });
  try {
    const version = lite.pragma('user_version', { simple: true }) as number;
    const latest = loadMigrations().at(-1)?.version ?? 0;
    if (version !== latest) {
      throw new CopyRefused(
        `the SQLite store is at schema version ${version} and this code's is ${latest}: ` +
          (version < latest ? 'open it once with this version (npm start or any CLI command) to migrate it' : 'upgrade the service'),
      );
    }
    await migratePg(client);
    const tables = sqliteTables(lite);
    lite.exec('BEGIN'); // one snapshot of the file for the whole copy
    await client.query('BEGIN');
    try {
      for (const t of tables) {
        const where =
          t.name === 'plans'
            ? ` WHERE name NOT IN ('free', 'pro', 'enterprise')`
            : t.name === 'trade_count'
              ? ' WHERE n <> 0'
              : t.name === 'trade_id_floor'
                ? ' WHERE id <> 0'
                : '';
        const busy = await client.query(`SELECT 1 FROM ${quote(t.name)}${where} LIMIT 1`);
        if (busy.rowCount) throw new CopyRefused(`the target database is not empty (table ${t.name} has rows); copy into an empty database`);
      }
      const triggered = (
        await client.query<{ t: string }>(`SELECT DISTINCT event_object_table AS t FROM information_schema.triggers WHERE trigger_schema = current_schema()`)
      ).rows.map((r) => r.t);
      for (const t of triggered) await client.query(`ALTER TABLE ${quote(t)} DISABLE TRIGGER USER`);
      // The rows a migration seeds (the plans, the trade count of an empty store) come from the file.
      await client.query('DELETE FROM plans');
      await client.query('DELETE FROM trade_count');
      await client.query('DELETE FROM trade_id_floor');

      const counts: Record<string, number> = {};
      let total = 0;
      for (const t of tables) {
        const n = await copyTable(lite, client, t);
        counts[t.name] = n;
        total += n;
        opts.onTable?.(t.name, n);
      }
      for (const t of triggered) await client.query(`ALTER TABLE ${quote(t)} ENABLE TRIGGER USER`);
      await moveIdentities(lite, client);
      await client.query('COMMIT');
      // A fresh copy has no planner statistics: without them the first reads on PostgreSQL pick
      // poor plans until autovacuum gets round to the tables.
      await client.query('ANALYZE');
      return { tables: counts, rows: total };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      lite.exec('COMMIT');
    }
  } finally {
    lite.close();
  }
}

/** Copies one table in multi-row INSERTs within PostgreSQL's 65,535 parameters a statement. */
async function copyTable(lite: Database.Database, client: pg.ClientBase, t: SqliteTable): Promise<number> {
  const cols = t.columns.map(quote).join(', ');
  const perStatement = Math.max(1, Math.min(2000, Math.floor(65_000 / t.columns.length)));
  let batch: unknown[][] = [];
  let n = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const values = batch.map((_, r) => `(${t.columns.map((__, c) => `$${r * t.columns.length + c + 1}`).join(', ')})`).join(', ');
    await client.query(`INSERT INTO ${quote(t.name)} (${cols}) VALUES ${values}`, batch.flat());
    n += batch.length;
    batch = [];
  };
  const rows = lite
    .prepare(`SELECT ${cols} FROM ${quote(t.name)}`)
    .raw()
    .iterate() as IterableIterator<unknown[]>;
  for (const row of rows) {
    batch.push(row);
    if (batch.length >= perStatement) await flush();
  }
  await flush();
  return n;
}

/** Moves each identity past the highest copied number and SQLite's AUTOINCREMENT counter. */
async function moveIdentities(lite: Database.Database, client: pg.ClientBase): Promise<void> {
  const ids = (
    await client.query<{ t: string; c: string }>(
      `SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'`,
    )
  ).rows;
  const hasSequenceTable = lite.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'`).get() !== undefined;
  const autoinc = hasSequenceTable ? lite.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').pluck() : null;
  for (const { t, c } of ids) {
    const max = (await client.query<{ m: number | null }>(`SELECT max(${quote(c)}) AS m FROM ${quote(t)}`)).rows[0]?.m ?? 0;
    const seq = Number(autoinc?.get(t) ?? 0);
    // Trades numbered before a removal of the newest ones (migration 017's floor) stay taken.
    const floor = t === 'trades' ? Number(lite.prepare('SELECT id FROM trade_id_floor WHERE one = 1').pluck().get() ?? 0) : 0;
    const next = Math.max(Number(max), seq, floor);
    if (next > 0) await client.query('SELECT setval(pg_get_serial_sequence($1, $2), $3, true)', [quote(t), c, next]);
  }
}
