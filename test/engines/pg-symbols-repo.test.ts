/**
 * UDF symbol lookup and search on PostgreSQL answer as on SQLite for the same random calls on
 * the same store: addresses in any case, symbols and `EXCHANGE:SYMBOL` names, pairs, ranked
 * searches by symbol, name words and address prefix on every exchange, and the exchange list.
 * SQLite runs with its default search thresholds and with tiny ones (its walk paths), and both
 * must give PostgreSQL's answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSymbolsRepo, type SymbolsRepo } from '../../src/store/sqlite/symbols-repo.js';
import { asyncRepo, type Async } from '../../src/store/port/async.js';
import { createPgSymbolsRepo } from '../../src/store/pg/symbols-repo.js';
import { DEXES, marketFixture, SYMBOLS, type MarketFixture } from './market-fixture.js';
import { sameAnswers, show, type Call } from './twins.js';

type Repo = Async<SymbolsRepo>;
const CHAIN = 'solana';

/** The same text in another letter case. */
const recase = (s: string, how: number): string => (how === 0 ? s : how === 1 ? s.toUpperCase() : s.toLowerCase());

describe('symbols repo on PostgreSQL', () => {
  let f: MarketFixture;
  beforeAll(async () => {
    f = await marketFixture('symbols');
  });
  afterAll(async () => {
    await f?.close();
  });

  const calls = () => {
    const how = fc.integer({ min: 0, max: 2 });
    const address = fc.tuple(fc.constantFrom(...f.tokens.map((t) => t.address)), how).map(([a, h]) => recase(a, h));
    const exchange = fc.tuple(fc.constantFrom(...DEXES, 'SOLANA', 'unknown', ''), how).map(([d, h]) => recase(d, h));
    const symbol = fc.tuple(fc.constantFrom(...SYMBOLS, 'NOPE'), how).map(([s, h]) => recase(s, h));
    const name = fc.oneof(
      address,
      symbol,
      fc.tuple(exchange, fc.oneof(symbol, address)).map(([e, s]) => `${e}:${s}`),
      fc.constantFrom('', '  ', ':', 'x:'),
    );
    const market = fc.tuple(fc.constantFrom(...f.markets, 'unknown'), fc.option(exchange)).map(([m, e]) => (e === null ? m : `${e}:${m}`));
    const query = fc.oneof(
      symbol,
      symbol.map((s) => s.slice(0, 2)),
      fc.constantFrom('', 'super b', 'Super', 'bonk', 'été', 'ÉTÉ c', 'dog wif', 'the', 'a%', 'a_', 'coin', 's', 'x'),
      address.map((a) => a.slice(0, 6)),
      address,
    );
    return fc.oneof(
      name.map((n): Call<Repo> => ({ label: `resolve(${show([n])})`, run: (r) => r.resolve(n) })),
      market.map((m): Call<Repo> => ({ label: `pair(${show([m])})`, run: (r) => r.pair(m) })),
      fc
        .record({ query, exchange: fc.option(exchange), limit: fc.integer({ min: 1, max: 30 }) })
        .map((q): Call<Repo> => ({ label: `search(${show([q])})`, run: (r) => r.search(q) })),
      fc.constant<Call<Repo>>({ label: 'exchanges()', run: (r) => r.exchanges() }),
    );
  };

  for (const [label, tuning] of [
    ['default thresholds', undefined],
    ['tiny thresholds (walks)', { denseMatches: 3, walkBudget: 12 }],
  ] as const) {
    it(`answers as the SQLite repo does for the same random calls (SQLite with ${label})`, async () => {
      const lite = asyncRepo(createSymbolsRepo(f.store.db, CHAIN, tuning));
      const pg = createPgSymbolsRepo(f.engines.pool, CHAIN);
      let found = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(calls(), { minLength: 1, maxLength: 15 }), async (cs) => {
          for (const a of await sameAnswers(lite, pg, cs)) if ('value' in a && a.value !== null && (!Array.isArray(a.value) || a.value.length > 0)) found++;
        }),
        { numRuns: 80 },
      );
      expect(found).toBeGreaterThan(100);
    });
  }

  it('lists each exchange once, in one spelling, case-insensitively sorted', async () => {
    expect(await createPgSymbolsRepo(f.engines.pool, CHAIN).exchanges()).toEqual(await asyncRepo(createSymbolsRepo(f.store.db, CHAIN)).exchanges());
    expect((await createPgSymbolsRepo(f.engines.pool, CHAIN).exchanges()).map((d) => d.toLowerCase())).toEqual(['meteora', 'orca', 'raydium']);
  });
});
