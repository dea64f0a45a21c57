/**
 * The /v1/search index reads on PostgreSQL answer as on SQLite for the same random calls on the
 * same store (the index as the ingest hook wrote it): addresses, folded symbols and prefixes
 * (LIKE's wildcards and non-ASCII included), address order, name substrings through the trigram
 * index, one- and two-character grams, and the count of rows read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSearchIndexRepo, foldCase, searchIndexHook, type SearchIndexRepo } from '../../src/store/sqlite/search-index-repo.js';
import { asyncRepo, type Async } from '../../src/store/port/async.js';
import { createPgSearchIndexRepo, pgSearchIndexWriter } from '../../src/store/pg/search-index-repo.js';
import { inWriteOrder } from '../../src/store/pg/write-order.js';
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

  /** Both index tables of both engines, row for row. */
  const tables = async () => {
    const q = {
      search: 'SELECT token_id, address, sym, name FROM token_search ORDER BY token_id',
      grams: 'SELECT gram, token_id FROM token_search_grams ORDER BY token_id, gram',
    };
    const lite = { search: f.store.db.prepare(q.search).raw().all(), grams: f.store.db.prepare(q.grams).raw().all() };
    const pg = {
      search: (await f.engines.pool.query({ text: q.search, rowMode: 'array' })).rows,
      grams: (await f.engines.pool.query({ text: q.grams, rowMode: 'array' })).rows,
    };
    return { lite, pg };
  };

  it('writes the index as the SQLite hook does: rebuilt from scratch, and after random renames', async () => {
    const ids = f.tokens.map((t) => t.id);
    await f.engines.truncate(['token_search', 'token_search_grams']);
    await inWriteOrder(f.engines.pool, async (client) => {
      const write = pgSearchIndexWriter(client);
      for (const id of ids) await write(id);
    });
    const rebuilt = await tables();
    expect(rebuilt.lite.search).toHaveLength(ids.length);
    expect(rebuilt.pg).toEqual(rebuilt.lite);

    const hook = searchIndexHook(f.store.db);
    const rename = fc.tuple(fc.constantFrom(...ids), fc.option(fc.constantFrom(...SYMBOLS)), fc.option(fc.constantFrom(...NAMES, 'Ünïcödé Dog', 'ab')));
    await fc.assert(
      fc.asyncProperty(fc.array(rename, { minLength: 1, maxLength: 8 }), async (renames) => {
        const touched = new Set<number>();
        await inWriteOrder(f.engines.pool, async (client) => {
          for (const [id, symbol, name] of renames) {
            const set = `symbol = coalesce(?, symbol), name = coalesce(?, name)`;
            f.store.db.prepare(`UPDATE tokens SET ${set} WHERE id = ?`).run(symbol, name, id);
            await client.query(`UPDATE tokens SET ${set.replace('?', '$1').replace('?', '$2')} WHERE id = $3`, [symbol, name, id]);
            touched.add(id);
          }
          const write = pgSearchIndexWriter(client);
          for (const id of touched) await write(id);
        });
        hook({ trades: [], touchedTokens: touched, now: 0, first: true });
        const after = await tables();
        expect(after.pg).toEqual(after.lite);
      }),
      { numRuns: 30 },
    );
  });
});
