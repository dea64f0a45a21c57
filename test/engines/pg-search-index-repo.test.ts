/**
 * The /v1/search index reads on PostgreSQL answer as on SQLite for the same random calls on the
 * same store (the index as the ingest hook wrote it): addresses, folded symbols and prefixes
 * (LIKE's wildcards and non-ASCII included), address order, name substrings through the trigram
 * index, one- and two-character grams, and the count of rows read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSearchIndexRepo, foldCase, type SearchIndexRepo } from '../../src/store/search-index-repo.js';
import { asyncRepo, type Async } from '../../src/store/async.js';
import { createPgSearchIndexRepo } from '../../src/store/pg/search-index-repo.js';
import { marketFixture, NAMES, SYMBOLS, type MarketFixture } from './market-fixture.js';
import { sameAnswers, show, type Call } from './twins.js';

type Repo = Async<SearchIndexRepo>;

describe('search index reads on PostgreSQL', () => {
  let f: MarketFixture;
  beforeAll(async () => {
    f = await marketFixture('search');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('answers as the SQLite repo does for the same random calls, reading as many rows', async () => {
    const addresses = f.tokens.map((t) => t.address).sort();
    const address = fc.oneof(fc.constantFrom(...addresses), fc.constant(''), fc.constant('zzz'));
    const sym = fc.constantFrom(...SYMBOLS.map(foldCase), 'nope');
    const prefix = fc.oneof(
      sym.map((s) => s.slice(0, 1)),
      sym.map((s) => s.slice(0, 2)),
      fc.constantFrom('', 'a%', 'a_', 'é', '\u{10FFFF}'),
    );
    const folded = NAMES.map(foldCase);
    const substring = fc
      .tuple(fc.constantFrom(...folded), fc.nat(), fc.integer({ min: 3, max: 6 }))
      .map(([n, at, len]) => [...n].slice(at % n.length, (at % n.length) + len).join(''));
    const text = fc.oneof(substring, fc.constantFrom('sup', 'SUP', 'r%c', 'e_d', 'été', 'xyz', 'a\u0000b'));
    const gram = fc.oneof(
      substring.map((s) => s.slice(0, 1)),
      substring.map((s) => s.slice(0, 2)),
    );
    const n = fc.integer({ min: 1, max: 8 });
    const id = fc.integer({ min: 0, max: f.tokens.length });
    const call = <A extends unknown[]>(name: string, args: fc.Arbitrary<A>, run: (r: Repo, ...a: A) => Promise<unknown>): fc.Arbitrary<Call<Repo>> =>
      args.map((a) => ({ label: `${name}${show(a)}`, run: (r: Repo) => run(r, ...a) }));
    const calls = fc.oneof(
      call('byAddress', fc.tuple(address), (r, a) => r.byAddress(a)),
      call('bySymbol', fc.tuple(sym, address, n), (r, s, a, k) => r.bySymbol(s, a, k)),
      call('bySymbolPrefix', fc.tuple(prefix, fc.record({ sym: fc.oneof(sym, fc.constant('')), address }), n), (r, p, from, k) => r.bySymbolPrefix(p, from, k)),
      call('inAddressOrder', fc.tuple(address, n), (r, a, k) => r.inAddressOrder(a, k)),
      call('byName', fc.tuple(text, id, n), (r, t, a, k) => r.byName(t, a, k)),
      call('byShortName', fc.tuple(gram, id, n), (r, g, a, k) => r.byShortName(g, a, k)),
      call('rowsRead', fc.tuple(), (r) => r.rowsRead()),
    );
    let read = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(calls, { minLength: 1, maxLength: 20 }), async (cs) => {
        // Fresh repos per run: each counts the rows of its own calls.
        const lite = asyncRepo(createSearchIndexRepo(f.store.db));
        const pg = createPgSearchIndexRepo(f.engines.pool);
        await sameAnswers(lite, pg, [...cs, { label: 'rowsRead() at the end', run: (r) => r.rowsRead() }]);
        read += await pg.rowsRead();
      }),
      { numRuns: 100 },
    );
    // The calls found rows, not only empty answers.
    expect(read).toBeGreaterThan(500);
  });
});
