/**
 * Candle reads on PostgreSQL answer as on SQLite for the same random calls on the same store
 * (ingested on SQLite, copied with copySqliteToPg): bars of every resolution by range and by
 * countback, with the rows they read, newest bars, and the per-market bars, prices and tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createCandlesRepo, type CandlesRepo } from '../../src/store/sqlite/candles-repo.js';
import { createMarketCandlesRepo, type MarketCandlesRepo } from '../../src/store/sqlite/market-candles-repo.js';
import { asyncRepo, type Async } from '../../src/store/port/async.js';
import { createPgCandlesRepo } from '../../src/store/pg/candles-repo.js';
import { createPgMarketCandlesRepo } from '../../src/store/pg/market-candles-repo.js';
import { parseResolution, SUPPORTED_RESOLUTIONS } from '../../src/domain/resolution.js';
import type { BarQuery } from '../../src/domain/history-range.js';
import { marketFixture, type MarketFixture } from './market-fixture.js';
import { sameAnswers, type Call } from './twins.js';

const T0 = 1_700_000_000;

describe('candle reads on PostgreSQL', () => {
  let f: MarketFixture;
  beforeAll(async () => {
    f = await marketFixture('candles');
  });
  afterAll(async () => {
    await f?.close();
  });

  const res = fc.constantFrom(...SUPPORTED_RESOLUTIONS).map((k) => parseResolution(k)!);
  const time = fc.integer({ min: T0 - 40 * 86_400, max: T0 + 200 });
  const query: fc.Arbitrary<BarQuery> = fc.oneof(
    fc.tuple(time, fc.integer({ min: 1, max: 86_400 * 60 })).map(([from, span]) => ({ mode: 'range' as const, from, to: from + span })),
    fc.tuple(time, fc.integer({ min: 1, max: 6000 })).map(([to, countback]) => ({ mode: 'countback' as const, to, countback })),
  );

  it('answers the token candles as the SQLite repo does, rows read included', async () => {
    const tokenId = fc.integer({ min: 0, max: f.tokens.length + 1 });
    const call: fc.Arbitrary<Call<Async<CandlesRepo>>> = fc.oneof(
      fc.tuple(tokenId, res, query).map(([t, r, q]) => ({
        label: `readBars(${t}, ${r.key}, ${JSON.stringify(q)})`,
        run: async (repo: Async<CandlesRepo>) => {
          const stats = { rows: 0 };
          return { bars: await repo.readBars(t, r, q, stats), rows: stats.rows };
        },
      })),
      fc
        .tuple(tokenId, res, time)
        .map(([t, r, b]) => ({ label: `newestBarBefore(${t}, ${r.key}, ${b})`, run: (repo: Async<CandlesRepo>) => repo.newestBarBefore(t, r, b) })),
    );
    const lite = asyncRepo(createCandlesRepo(f.store.db));
    const pg = createPgCandlesRepo(f.engines.pool);
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 15 }), (cs) => sameAnswers(lite, pg, cs).then(() => undefined)),
      { numRuns: 40 },
    );
    // The fixture's trades make bars to compare.
    const bars = await pg.readBars(f.tokens[0]!.id, parseResolution('1')!, { mode: 'countback', to: T0 + 200, countback: 10 });
    expect(bars.length).toBeGreaterThan(0);
    expect(bars).toEqual(await lite.readBars(f.tokens[0]!.id, parseResolution('1')!, { mode: 'countback', to: T0 + 200, countback: 10 }));
  });

  it('answers the market candles as the SQLite repo does', async () => {
    const tokenId = fc.constantFrom(...f.tokens.map((t) => t.id), 0);
    const market = fc.constantFrom(...f.markets, 'unknown');
    const currency = fc.constantFrom('usd' as const, 'native' as const);
    const call: fc.Arbitrary<Call<Async<MarketCandlesRepo>>> = fc.oneof(
      fc.tuple(tokenId, market, currency, res, query).map(([t, m, c, r, q]) => ({
        label: `readBars(${t}, ${m}, ${c}, ${r.key}, ${JSON.stringify(q)})`,
        run: async (repo: Async<MarketCandlesRepo>) => {
          const stats = { rows: 0 };
          return { bars: await repo.readBars(t, m, c, r, q, stats), rows: stats.rows };
        },
      })),
      fc
        .tuple(tokenId, market, currency)
        .map(([t, m, c]) => ({ label: `lastPrice(${t}, ${m}, ${c})`, run: (repo: Async<MarketCandlesRepo>) => repo.lastPrice(t, m, c) })),
      market.map((m) => ({ label: `marketToken(${m})`, run: (repo: Async<MarketCandlesRepo>) => repo.marketToken(m) })),
      fc.tuple(tokenId, market, res, time).map(([t, m, r, b]) => ({
        label: `newestBarBefore(${t}, ${m}, ${r.key}, ${b})`,
        run: (repo: Async<MarketCandlesRepo>) => repo.newestBarBefore(t, m, r, b),
      })),
    );
    const lite = asyncRepo(createMarketCandlesRepo(f.store.db));
    const pg = createPgMarketCandlesRepo(f.engines.pool);
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 15 }), (cs) => sameAnswers(lite, pg, cs).then(() => undefined)),
      { numRuns: 40 },
    );
    expect(await pg.marketToken(f.markets[0]!)).toBe(await lite.marketToken(f.markets[0]!));
  });
});
