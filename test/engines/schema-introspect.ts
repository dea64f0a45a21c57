/**
 * Both stores' schemas in one shape, read from the engines themselves (PRAGMA on SQLite,
 * information_schema and pg_catalog on PostgreSQL), so pg-schema.test.ts can compare them: a
 * SQLite migration without its PostgreSQL twin changes one side only.
 */
import Database from 'better-sqlite3';
import type pg from 'pg';
import { migrate } from '../../src/store/sqlite/db.js';

export type Column = { name: string; type: string; notNull: boolean; default: string | null };
export type Table = { name: string; columns: Column[]; primaryKey: string[] };
export type ForeignKey = { table: string; column: string; refTable: string; refColumn: string; onDelete: string };
export type Index = { name: string; table: string; unique: boolean };
export type Schema = { tables: Table[]; foreignKeys: ForeignKey[]; indexes: Index[]; triggers: string[]; virtualTables: string[] };

/** SQLite's declared types as PostgreSQL names them (docs/operations.md, Many instances). */
export const TYPE_MAP: Record<string, string> = {
  INTEGER: 'bigint',
  REAL: 'double precision',
  TEXT: 'text',
  BLOB: 'bytea',
};

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The schema of a fresh SQLite store after every migration of src/store/sqlite/migrations. */
export function sqliteSchema(): Schema {
  const db = new Database(':memory:');
  try {
    migrate(db);
    const list = db.prepare(`SELECT name, type FROM pragma_table_list WHERE schema = 'main' AND name NOT LIKE 'sqlite_%'`).all() as {
      name: string;
      type: string;
    }[];
    const tables: Table[] = [];
    const foreignKeys: ForeignKey[] = [];
    for (const { name } of list.filter((t) => t.type === 'table')) {
      const cols = db.prepare(`SELECT name, type, "notnull" AS nn, dflt_value AS d, pk FROM pragma_table_info(?) ORDER BY cid`).all(name) as {
        name: string;
        type: string;
        nn: number;
        d: string | null;
        pk: number;
      }[];
      tables.push({
        name,
        columns: cols.map((c) => ({
          name: c.name,
          type: TYPE_MAP[c.type.toUpperCase()] ?? `unmapped ${c.type}`,
          notNull: c.nn === 1 || c.pk > 0,
          default: c.d,
        })),
        primaryKey: cols
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name),
      });
      const fks = db.prepare(`SELECT "from" AS f, "table" AS t, "to" AS c, on_delete AS d FROM pragma_foreign_key_list(?)`).all(name) as {
        f: string;
        t: string;
        c: string | null;
        d: string;
      }[];
      for (const fk of fks) foreignKeys.push({ table: name, column: fk.f, refTable: fk.t, refColumn: fk.c ?? 'id', onDelete: fk.d });
    }
    // Indexes made by CREATE INDEX (origin 'c'); the automatic ones of UNIQUE and PRIMARY KEY
    // constraints have no name of their own to compare.
    const indexes = db
      .prepare(
        `SELECT il.name, m.tbl_name AS tbl, il."unique" AS u FROM sqlite_master m, pragma_index_list(m.tbl_name) il
         WHERE m.type = 'table' AND il.origin = 'c'`,
      )
      .all() as { name: string; tbl: string; u: number }[];
    const triggers = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name`).pluck().all() as string[];
    return {
      tables: tables.sort(byName),
      foreignKeys: sortFks(foreignKeys),
      indexes: indexes.map((i) => ({ name: i.name, table: i.tbl, unique: i.u === 1 })).sort(byName),
      triggers,
      virtualTables: list
        .filter((t) => t.type === 'virtual')
        .map((t) => t.name)
        .sort(),
    };
  } finally {
    db.close();
  }
}

const sortFks = (fks: ForeignKey[]) => fks.sort((a, b) => `${a.table}.${a.column}`.localeCompare(`${b.table}.${b.column}`));

/** The schema of the PostgreSQL database `client` is connected to, without `skipTables`. */
export async function pgSchema(client: pg.ClientBase, skipTables: string[]): Promise<Schema> {
  const q = async <R extends object>(sql: string): Promise<R[]> => (await client.query<R>(sql)).rows;
  const names = (
    await q<{ n: string }>(`SELECT table_name AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
  )
    .map((r) => r.n)
    .filter((n) => !skipTables.includes(n));
  const cols = await q<{ t: string; n: string; type: string; nullable: string; d: string | null }>(
    `SELECT table_name AS t, column_name AS n, data_type AS type, is_nullable AS nullable, column_default AS d
     FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  const pks = await q<{ t: string; n: string }>(
    `SELECT tc.table_name AS t, k.column_name AS n FROM information_schema.table_constraints tc
     JOIN information_schema.key_column_usage k ON k.constraint_name = tc.constraint_name AND k.table_schema = tc.table_schema
     WHERE tc.table_schema = current_schema() AND tc.constraint_type = 'PRIMARY KEY' ORDER BY tc.table_name, k.ordinal_position`,
  );
  const fks = await q<{ t: string; c: string; rt: string; rc: string; d: string }>(
    `SELECT cl.relname AS t, a.attname AS c, rcl.relname AS rt, ra.attname AS rc,
            CASE con.confdeltype WHEN 'a' THEN 'NO ACTION' WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' ELSE 'RESTRICT' END AS d
     FROM pg_constraint con
     JOIN pg_class cl ON cl.oid = con.conrelid JOIN pg_class rcl ON rcl.oid = con.confrelid
     JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = con.conkey[1]
     JOIN pg_attribute ra ON ra.attrelid = con.confrelid AND ra.attnum = con.confkey[1]
     WHERE con.contype = 'f' AND cl.relnamespace = current_schema()::regnamespace`,
  );
  const indexes = await q<{ n: string; t: string; u: boolean }>(
    `SELECT ic.relname AS n, tc.relname AS t, i.indisunique AS u FROM pg_index i
     JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_class tc ON tc.oid = i.indrelid
     WHERE tc.relnamespace = current_schema()::regnamespace`,
  );
  const triggers = await q<{ n: string }>(
    `SELECT DISTINCT trigger_name AS n FROM information_schema.triggers WHERE trigger_schema = current_schema() ORDER BY 1`,
  );
  return {
    tables: names
      .map((name) => ({
        name,
        columns: cols.filter((c) => c.t === name).map((c) => ({ name: c.n, type: c.type, notNull: c.nullable === 'NO', default: c.d })),
        primaryKey: pks.filter((p) => p.t === name).map((p) => p.n),
      }))
      .sort(byName),
    foreignKeys: sortFks(fks.map((f) => ({ table: f.t, column: f.c, refTable: f.rt, refColumn: f.rc, onDelete: f.d }))),
    indexes: indexes.map((i) => ({ name: i.n, table: i.t, unique: i.u })).sort(byName),
    triggers: triggers.map((t) => t.n),
    virtualTables: [],
  };
}
