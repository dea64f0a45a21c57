/**
 * What keeps /udf/symbols, /udf/search and /udf/config cheap on a store of 200,000 tokens (README,
 * UDF datafeed: cost), pinned by structure rather than by timing: every statement reads through
 * an index, the listing the search walks stays exact under every change of tokens and markets
 * (and after migrating an existing store), and each search path, driven on a small store with
 * lowered thresholds, answers exactly what a naive reference over all tokens answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, anAddress } from '../helpers/builders.js';
import { SYMBOLS_SQL, createSymbolsRepo, type SearchTuning } from '../../src/store/symbols-repo.js';
import { loadMigrations, migrate, openStore, type Db } from '../../src/store/db.js';
import { nameHasPhrase, queryWords } from '../../src/domain/udf.js';
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
    t = makeTestApp();
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

/** udf_listing as it must be: recomputed from tokens and markets. */
function expectedListing(db: Db) {
  return db
    .prepare(
      `SELECT t.id AS token_id, '' AS dex, coalesce((SELECT sum(liquidity_usd) FROM markets WHERE token_id = t.id), 0) AS liquidity_usd,
         t.address, t.symbol FROM tokens t
       UNION
       SELECT DISTINCT m.token_id, m.dex, coalesce((SELECT sum(liquidity_usd) FROM markets WHERE token_id = m.token_id), 0),
         t.address, t.symbol FROM markets m JOIN tokens t ON t.id = m.token_id
       ORDER BY 1, 2`,
    )
    .all();
}
const listing = (db: Db) => db.prepare('SELECT token_id, dex, liquidity_usd, address, symbol FROM udf_listing ORDER BY 1, 2').all();

describe('the listing search reads', () => {
  it('follows every change of tokens and markets', async () => {
    t = makeTestApp();
    const a = aToken({ symbol: 'AAA', name: 'Alpha' });
    const b = aToken({ symbol: 'BBB', name: 'Beta' });
    const m1 = aMarket(a.address, { dex: 'orca', liquidityUsd: 10 });
    const m2 = aMarket(a.address, { dex: 'raydium', liquidityUsd: 20 });
    t.ingest([a, b, m1, m2]);
    expect(listing(t.store.db)).toEqual(expectedListing(t.store.db));
    // liquidity changes, a market moves to another dex, then to another token; renames
    t.ingest([{ ...m1, liquidityUsd: 1000 }]);
    expect(listing(t.store.db)).toEqual(expectedListing(t.store.db));
    t.ingest([{ ...m2, dex: 'orca' }]);
    expect(listing(t.store.db)).toEqual(expectedListing(t.store.db));
    expect(listing(t.store.db).filter((r) => (r as { dex: string }).dex === 'raydium')).toEqual([]);
    t.ingest([{ ...m2, dex: 'meteora', token: b.address }]);
    expect(listing(t.store.db)).toEqual(expectedListing(t.store.db));
    t.ingest([{ ...a, symbol: 'AAZ', name: 'Renamed' }]);
    expect(listing(t.store.db)).toEqual(expectedListing(t.store.db));
    const tickers = async (query: string) => (await t.http.get('/udf/search').query({ query })).body.map((r: { ticker: string }) => r.ticker);
    expect(await tickers('AAZ')).toEqual([a.address]);
    expect(await tickers('AAA')).toEqual([]);
    expect(await tickers('renamed')).toEqual([a.address]);
    expect(await tickers('alpha')).toEqual([]);
    t.store.db.prepare('DELETE FROM markets WHERE address = ?').run(m1.address);
    expect(listing(t.store.db)).toEqual(expectedListing(t.store.db));
  });

  it('is built for the tokens of a store that existed before it', () => {
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
    expect(listing(db)).toEqual(expectedListing(db));
    const repo = createSymbolsRepo(db, 'solana');
    expect(repo.search({ query: 'first', exchange: null, limit: 30 }).map((r) => r.token.id)).toEqual([one]);
    expect(repo.exchanges()).toEqual(['orca', 'raydium']);
    store.close();
  });
});

describe('/udf/config', () => {
  it('lists a dex added by an ingest right after it, though the answer is cached', async () => {
    t = makeTestApp();
    addToken(t, {}, { raydium: 1 });
    expect((await t.http.get('/udf/config')).body.exchanges.map((e: { value: string }) => e.value)).toEqual(['', 'raydium']);
    addToken(t, {}, { orca: 1, Meteora: 2 });
    expect((await t.http.get('/udf/config')).body.exchanges.map((e: { value: string }) => e.value)).toEqual(['', 'Meteora', 'orca', 'raydium']);
  });
});

describe('search paths against a naive reference', () => {
  type Tok = { id: number; address: string; symbol: string; name: string; liq: number; dexes: Set<string> };

  /** The contract's ranking over every token: exact, symbol prefix, then name words and address prefix. */
  function reference(tokens: readonly Tok[], query: string, dex: string | null, limit: number): number[] {
    const q = query.trim();
    const lower = q.toLowerCase();
    const words = queryWords(q);
    const rank = (k: Tok): number | null => {
      if (q === '') return 0;
      if (k.address.toLowerCase() === lower || k.symbol.toLowerCase() === lower) return 0;
      if (k.symbol.toLowerCase().startsWith(lower)) return 1;
      if ((words !== null && nameHasPhrase(k.name, words)) || (q.length >= 4 && k.address.toLowerCase().startsWith(lower))) return 2;
      return null;
    };
    return tokens
      .filter((k) => dex === null || k.dexes.has(dex))
      .map((k) => ({ k, r: rank(k) }))
      .filter((x): x is { k: Tok; r: number } => x.r !== null)
      .sort((x, y) => x.r - y.r || y.k.liq - x.k.liq || (x.k.address < y.k.address ? -1 : 1))
      .slice(0, limit)
      .map((x) => x.k.id);
  }

  it('answers as the reference on every path: sorted matches, walks by liquidity, and walks over budget', () => {
    t = makeTestApp();
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    const WORDS = ['alpha', 'beta', 'alp', 'bet', 'gamma', 'al'];
    const tokens: Tok[] = [];
    for (let i = 0; i < 160; i++) {
      const symbol = Array.from({ length: 1 + rnd(3) }, () => 'ABC'[rnd(3)]).join('');
      const name = Array.from({ length: 1 + rnd(3) }, () => WORDS[rnd(WORDS.length)]).join(rnd(2) ? ' ' : '-');
      const record = aToken({ symbol, name });
      const markets = Array.from({ length: rnd(3) }, () => aMarket(record.address, { dex: ['orca', 'raydium'][rnd(2)]!, liquidityUsd: rnd(5) * 10 }));
      t.ingest([record, ...markets]);
      const id = t.store.db.prepare('SELECT id FROM tokens WHERE address = ?').pluck().get(record.address) as number;
      tokens.push({
        id,
        address: record.address,
        symbol,
        name,
        liq: markets.reduce((s, m) => s + m.liquidityUsd, 0),
        dexes: new Set(markets.map((m) => m.dex)),
      });
    }
    const tunings: SearchTuning[] = [
      { denseMatches: 2000, walkBudget: 3000 },
      { denseMatches: 3, walkBudget: 1000 },
      { denseMatches: 3, walkBudget: 12 },
    ];
    const queries = [
      '',
      'A',
      'ab',
      'ABC',
      'c',
      'alp',
      'al',
      'alpha b',
      'beta',
      'gamma al',
      'zz',
      tokens[5]!.address.slice(0, 9).toUpperCase(),
      tokens[9]!.address.toUpperCase(),
    ];
    for (const tuning of tunings) {
      const repo = createSymbolsRepo(t.store.db, 'solana', tuning);
      for (const query of queries) {
        for (const dex of [null, 'orca', 'ORCA']) {
          for (const limit of [1, 5, 30]) {
            const got = repo.search({ query, exchange: dex, limit }).map((r) => r.token.id);
            expect(got, `${JSON.stringify(tuning)} ${query} ${dex} ${limit}`).toEqual(reference(tokens, query, dex?.toLowerCase() ?? null, limit));
          }
        }
      }
    }
  });
});
