/**
 * The SQLite side of the symbols search's cost (README, UDF datafeed: cost), which PostgreSQL
 * plans its own way: every statement of src/store/sqlite/symbols-repo.ts reads through an index, its
 * walks are bounded, and migration 010 builds the listing for the tokens of an existing store.
 * The engine-neutral rest is test/udf/search-index.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { anAddress } from '../helpers/builders.js';
import { SYMBOLS_SQL, createSymbolsRepo } from '../../src/store/sqlite/symbols-repo.js';
import { loadMigrations, migrate, openStore } from '../../src/store/sqlite/db.js';
import { expectedListing, listing } from './listing.js';
import { addToken } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

describe('query plans', () => {
  // Representative bindings: the LIKE optimisation is planned for the value bound.
  const params: Record<keyof typeof SYMBOLS_SQL, unknown[]> = {
    tokenById: [1],
    idByAddress: ['abc'],
    marketByAddress: ['abc'],
    idsByAddressNocase: ['ABC'],
    idBySymbol: [{ dex: '', symbol: 'BONK' }],
    listedOn: [1, 'orca'],
    top: [{ dex: '', limit: 30 }],
    symbolExact: [{ dex: 'orca', q: 'BO', limit: 30 }],
    symbolPrefix: [{ dex: '', q: 'BO', prefix: 'BO%', limit: 30 }],
    addressExact: [{ dex: '', q: 'ABCD', limit: 30 }],
    addressPrefix: [{ dex: '', q: 'ABCD', prefix: 'ABCD%', limit: 30 }],
    names: [{ dex: '', match: '"super b"*', limit: 30 }],
    dexes: [],
    symbolPrefixCount: [{ dex: '', prefix: 'B%', cap: 2000 }],
    symbolPrefixWalk: [{ dex: '', q: 'B', prefix: 'B%', limit: 30, budget: 3000 }],
    namesCount: [{ match: '"b"*', cap: 2000 }],
    namesWalk: [{ dex: '' }],
  };

  it('reads every table of every symbols statement through an index, never a full scan', () => {
    t = makeTestApp({ store: openStore(':memory:') });
    addToken(t, { symbol: 'BONK', name: 'Super Bonk' }, { orca: 5 });
    for (const [name, sql] of Object.entries(SYMBOLS_SQL) as [keyof typeof SYMBOLS_SQL, string][]) {
      const plan = t.store.db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params[name])
        .map((r) => (r as { detail: string }).detail);
      // SCAN is allowed only of FTS5's own index, of a CTE's or subquery's rows and of a constant row.
      const scans = plan.filter((d) => d.startsWith('SCAN ') && !/^SCAN (\w+ VIRTUAL TABLE INDEX|d$|\(subquery-\d+\)$|CONSTANT ROW$)/.test(d));
      expect(scans, `${name}: ${plan.join(' | ')}`).toEqual([]);
      for (const d of plan.filter((x) => /^SEARCH (tokens|t|udf_listing|l|markets|m)\b/.test(x))) {
        expect(d, name).toMatch(/USING (COVERING INDEX|INDEX|PRIMARY KEY|INTEGER PRIMARY KEY)/);
      }
    }
  });

  it('bounds every walk by liquidity by a LIMIT or a row budget', () => {
    expect(SYMBOLS_SQL.symbolPrefixWalk).toMatch(/LIMIT @budget\)[\s\S]*LIMIT @limit$/);
    expect(SYMBOLS_SQL.top).toMatch(/LIMIT @limit$/);
  });
});

describe('migration 010', () => {
  it('builds the listing for the tokens of a store that existed before it', async () => {
    const store = openStore(':memory:', { migrate: false });
    migrate(
      store.db,
      loadMigrations().filter((m) => m.version < 10),
    );
    const db = store.db;
    const token = db.prepare(`INSERT INTO tokens (address, symbol, name, decimals, created_at, updated_at) VALUES (?, ?, ?, 6, 0, 0)`);
    const market = db.prepare(
      `INSERT INTO markets (address, token_id, quote_address, quote_symbol, dex, liquidity_usd, created_at) VALUES (?, ?, 'q', 'SOL', ?, ?, 0)`,
    );
    const one = Number(token.run(anAddress(), 'ONE', 'First one').lastInsertRowid);
    const two = Number(token.run(anAddress(), 'TWO', 'Second').lastInsertRowid);
    market.run(anAddress(), one, 'orca', 5);
    market.run(anAddress(), one, 'orca', 7);
    market.run(anAddress(), two, 'raydium', 3);
    token.run(anAddress(), 'BARE', 'No markets');
    migrate(db);
    expect(await listing(store)).toEqual(await expectedListing(store));
    const repo = createSymbolsRepo(db, 'solana');
    expect(repo.search({ query: 'first', exchange: null, limit: 30 }).map((r) => r.token.id)).toEqual([one]);
    expect(repo.exchanges()).toEqual(['orca', 'raydium']);
    store.close();
  });
});
