/**
 * The live stream's reads on PostgreSQL answer as on SQLite for the same random calls on the same
 * store (ingested on SQLite in several transactions, copied with copySqliteToPg): a token's
 * trades after a record number, the transactions' ends, a token's newest trade.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createStreamRepo, type StreamRepo } from '../../src/store/sqlite/stream-repo.js';
import { asyncRepo, type Async } from '../../src/store/port/async.js';
import { createPgStreamRepo } from '../../src/store/pg/stream-repo.js';
import { marketFixture, type MarketFixture } from './market-fixture.js';
import { sameAnswers, type Call } from './twins.js';

describe('stream reads on PostgreSQL', () => {
  let f: MarketFixture;
  beforeAll(async () => {
    f = await marketFixture('stream');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('answers tradesAfter, commitEnds and maxTradeId as the SQLite repo does', async () => {
    const tokenId = fc.integer({ min: 0, max: f.tokens.length + 1 });
    const id = fc.integer({ min: 0, max: f.maxTradeId + 2 });
    const call: fc.Arbitrary<Call<Async<StreamRepo>>> = fc.oneof(
      fc
        .tuple(tokenId, id, id, fc.integer({ min: 0, max: 30 }))
        .map(([t, a, b, n]) => ({ label: `tradesAfter(${t}, ${a}, ${b}, ${n})`, run: (r: Async<StreamRepo>) => r.tradesAfter(t, a, b, n) })),
      fc.tuple(id, id).map(([a, b]) => ({ label: `commitEnds(${a}, ${b})`, run: (r: Async<StreamRepo>) => r.commitEnds(a, b) })),
      tokenId.map((t) => ({ label: `maxTradeId(${t})`, run: (r: Async<StreamRepo>) => r.maxTradeId(t) })),
    );
    const lite = asyncRepo(createStreamRepo(f.store.db));
    const pg = createPgStreamRepo(f.engines.pool);
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 20 }), (cs) => sameAnswers(lite, pg, cs).then(() => undefined)),
      { numRuns: 60 },
    );
    // The store has what the calls are meant to meet: several transactions, and trades with and without a known market.
    const ends = await pg.commitEnds(0, f.maxTradeId + 1);
    expect(ends.length).toBeGreaterThan(3);
    const all = await pg.tradesAfter(f.tokens[0]!.id, 0, f.maxTradeId, 1000);
    expect(all.length).toBe(await lite.tradesAfter(f.tokens[0]!.id, 0, f.maxTradeId, 1000).then((l) => l.length));
  });
});
