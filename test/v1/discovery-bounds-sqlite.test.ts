/**
 * SQLite's side of the search and discovery bounds (README, Search and Discovery), on the same
 * store of 20,000 tokens: every statement of the search index, discovery and change log repos is
 * planned as an index range, a symbol prefix page seeks where the last ended, and migration 009
 * fills the index of an existing store. PostgreSQL plans its twins its own way (no test pins them);
 * the engine-neutral bounds (rows read, recomputes, sorts) are test/v1/discovery-bounds.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { openStore, type Db } from '../../src/store/sqlite/db.js';
import { createSearchIndexRepo, rebuildSearchIndex, searchIndexHook } from '../../src/store/sqlite/search-index-repo.js';
import { createDiscoveryRepo } from '../../src/store/sqlite/discovery-repo.js';
import { createTokenChangesRepo } from '../../src/store/sqlite/token-changes-repo.js';
import { loadMigrations, migrate } from '../../src/store/sqlite/db.js';
import { fillDiscoveryStore } from './discovery-fixture.js';

let t: TestApp;

beforeAll(async () => {
  t = makeTestApp({ store: openStore(':memory:') });
  await fillDiscoveryStore(t);
}, 120_000);
afterAll(() => t?.close());

/** The statements a repo factory prepares, recorded by wrapping db.prepare. */
function preparedBy(db: Db, make: (db: Db) => unknown): string[] {
  const sources: string[] = [];
  const prepare = db.prepare.bind(db);
  const spy = new Proxy(db, {
    get: (target, key) => (key === 'prepare' ? (sql: string) => (sources.push(sql), prepare(sql)) : Reflect.get(target, key, target)),
  });
  make(spy as Db);
  return sources;
}

/** Query plan lines that read a whole table: a SCAN that is neither by index nor of a virtual table. */
function fullScans(db: Db, sql: string): string[] {
  const params = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((m) => [m[1], 0]));
  const positional = (sql.match(/\?/g) ?? []).map(() => 0);
  const stmt = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  const rows = (Object.keys(params).length > 0 ? stmt.all(params) : stmt.all(...positional)) as { detail: string }[];
  return rows.map((r) => r.detail).filter((d) => /^SCAN /.test(d) && !/USING (COVERING )?INDEX|VIRTUAL TABLE/.test(d));
}

describe('search and discovery on 20,000 tokens: SQLite query plans', () => {
  it('plan every statement of the search index, discovery and change log repos as index ranges', () => {
    const sources = [createSearchIndexRepo, createDiscoveryRepo, createTokenChangesRepo].flatMap((make) => preparedBy(t.store.db, make));
    expect(sources.length).toBeGreaterThanOrEqual(10);
    for (const sql of sources) expect({ sql, scans: fullScans(t.store.db, sql) }).toEqual({ sql, scans: [] });
  });

  it('reads each page of a symbol prefix from where the last ended (an index seek on (sym, address))', () => {
    const sources = preparedBy(t.store.db, createSearchIndexRepo).filter((sql) => /s\.sym < @hi/.test(sql));
    expect(sources).toHaveLength(1);
    const plan = t.store.db.prepare(`EXPLAIN QUERY PLAN ${sources[0]!}`).all({ hi: 'f', sym: 'e', after: '', n: 1 }) as { detail: string }[];
    expect(plan.map((r) => r.detail)).toEqual(['SEARCH s USING INDEX token_search_sym ((sym,address)>(?,?) AND sym<?)']);
  });
});

describe('migration 009', () => {
  it('fills the search index of existing tokens like the ingest hook, letters beyond ASCII included', () => {
    const db = new Database(':memory:');
    migrate(
      db,
      loadMigrations().filter((m) => m.version < 9),
    );
    const insert = db.prepare('INSERT INTO tokens (address, symbol, name, decimals, created_at, updated_at) VALUES (?, ?, ?, 6, 0, 0)');
    const names = [
      ['ÄBC', 'Ärger Coin'],
      ['abc', 'Plain'],
      ['ΣΙΓΜΑ', 'Σίγμα token'],
      ['X', ''],
    ];
    names.forEach(([symbol, name], i) => insert.run(`addr${i}`, symbol, name));
    migrate(db);
    searchIndexHook(db); // refolds once what lower() could not
    const dump = () => ({
      rows: db.prepare('SELECT token_id, address, sym, name FROM token_search ORDER BY token_id').raw().all(),
      grams: db.prepare('SELECT gram, token_id FROM token_search_grams ORDER BY gram, token_id').raw().all(),
      names: db.prepare('SELECT rowid FROM token_search_names WHERE token_search_names MATCH \'"ärg"\'').pluck().all(),
    });
    const migrated = dump();
    rebuildSearchIndex(db);
    expect(migrated).toEqual(dump());
    expect(migrated.rows).toContainEqual([1, 'addr0', 'äbc', 'ärger coin']);
    expect(migrated.names).toEqual([1]);
    db.close();
  });
});
