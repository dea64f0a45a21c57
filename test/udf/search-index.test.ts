/**
 * What keeps /udf/symbols, /udf/search and /udf/config cheap on a store of 200,000 tokens (README,
 * UDF datafeed: cost), pinned by structure rather than by timing: the listing the search walks
 * stays exact under every change of tokens and markets, and each search path, driven on a small
 * store with lowered thresholds, answers exactly what a naive reference over all tokens answers.
 * SQLite's query plans and its migration of an existing store: test/udf/search-index-sqlite.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken } from '../helpers/builders.js';
import { rawSql } from '../helpers/raw-sql.js';
import { createSymbolsRepo, type SearchTuning } from '../../src/store/sqlite/symbols-repo.js';
import type { Store } from '../../src/store/sqlite/db.js';
import type { PgStore } from '../../src/store/pg/pg-store.js';
import { asyncRepo } from '../../src/store/port/async.js';
import { nameHasPhrase, queryWords } from '../../src/domain/udf.js';
import { readTokenId } from '../v1/naive.js';
import { expectedListing, listing } from './listing.js';
import { addToken } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

describe('the listing search reads', () => {
  it('follows every change of tokens and markets', async () => {
    t = makeTestApp();
    const a = aToken({ symbol: 'AAA', name: 'Alpha' });
    const b = aToken({ symbol: 'BBB', name: 'Beta' });
    const m1 = aMarket(a.address, { dex: 'orca', liquidityUsd: 10 });
    const m2 = aMarket(a.address, { dex: 'raydium', liquidityUsd: 20 });
    const same = async () => expect(await listing(t.store)).toEqual(await expectedListing(t.store));
    await t.ingest([a, b, m1, m2]);
    await same();
    // liquidity changes, a market moves to another dex, then to another token; renames
    await t.ingest([{ ...m1, liquidityUsd: 1000 }]);
    await same();
    await t.ingest([{ ...m2, dex: 'orca' }]);
    await same();
    expect((await listing(t.store)).filter((r) => r.dex === 'raydium')).toEqual([]);
    await t.ingest([{ ...m2, dex: 'meteora', token: b.address }]);
    await same();
    await t.ingest([{ ...a, symbol: 'AAZ', name: 'Renamed' }]);
    await same();
    const tickers = async (query: string) => (await t.http.get('/udf/search').query({ query })).body.map((r: { ticker: string }) => r.ticker);
    expect(await tickers('AAZ')).toEqual([a.address]);
    expect(await tickers('AAA')).toEqual([]);
    expect(await tickers('renamed')).toEqual([a.address]);
    expect(await tickers('alpha')).toEqual([]);
    // a delete behind the store's back, as another process's: the triggers follow it too
    await rawSql(t.store, 'DELETE FROM markets WHERE address = ?', [m1.address]);
    await same();
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

  it('answers as the reference on every path: sorted matches, walks by liquidity, and walks over budget', async () => {
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
      await t.ingest([record, ...markets]);
      const id = await readTokenId(t.store, record.address);
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
    // SQLite reaches a class's best by a sort or a walk depending on these thresholds; PostgreSQL
    // always sorts (src/store/pg/symbols-repo.ts), so there its repo answers once.
    const store = t.store as Store | PgStore;
    const repos = store.kind === 'sqlite' ? tunings.map((tuning) => asyncRepo(createSymbolsRepo(store.db, 'solana', tuning))) : [t.services.repos.symbols];
    for (const [n, repo] of repos.entries()) {
      for (const query of queries) {
        for (const dex of [null, 'orca', 'ORCA']) {
          for (const limit of [1, 5, 30]) {
            const got = (await repo.search({ query, exchange: dex, limit })).map((r) => r.token.id);
            expect(got, `${JSON.stringify(tunings[n])} ${query} ${dex} ${limit}`).toEqual(reference(tokens, query, dex?.toLowerCase() ?? null, limit));
          }
        }
      }
    }
  });
});
