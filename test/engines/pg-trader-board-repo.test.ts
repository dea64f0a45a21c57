/**
 * The top-traders board's reads on PostgreSQL answer as on SQLite for the same random calls on the
 * same market store: keyset pages by time from any position (equal block times settled by id, the
 * opening position (from, Infinity)), pages by id, under any snapshot bound, and the highest id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createTraderBoardRepo, type TraderBoardRepo } from '../../src/store/sqlite/trader-board-repo.js';
import { asyncRepo, type Async } from '../../src/store/port/async.js';
import { createPgTraderBoardRepo } from '../../src/store/pg/trader-board-repo.js';
import { marketFixture, type MarketFixture } from './market-fixture.js';
import { callsOf, compareRandom } from './twins.js';

type Repo = Async<TraderBoardRepo>;
const T0 = 1_700_000_000;
const call = callsOf<Repo>();

describe('trader board repo on PostgreSQL', () => {
  let f: MarketFixture;
  beforeAll(async () => {
    f = await marketFixture('traderboard');
  });
  afterAll(async () => {
    await f?.close();
  });

  it('answers as the SQLite repo does for the same random calls', async () => {
    const tokenId = fc.oneof({ arbitrary: fc.constantFrom(...f.tokens.map((t) => t.id)), weight: 10 }, { arbitrary: fc.constant(9999), weight: 1 });
    const time = fc.integer({ min: T0 + 95, max: T0 + 135 });
    const id = fc.oneof(fc.integer({ min: 0, max: f.maxTradeId + 2 }), fc.constant(Infinity));
    const bound = fc.oneof(fc.constant(f.maxTradeId), fc.integer({ min: 0, max: f.maxTradeId + 2 }));
    const limit = fc.integer({ min: -1, max: 8 });
    const calls = fc.oneof(
      { arbitrary: call('pageByTime', fc.tuple(tokenId, time, id, time, bound, limit), (r, ...a) => r.pageByTime(...a)), weight: 4 },
      { arbitrary: call('pageById', fc.tuple(tokenId, fc.integer({ min: 0, max: f.maxTradeId + 2 }), bound, limit), (r, ...a) => r.pageById(...a)), weight: 3 },
      { arbitrary: call('maxId', fc.tuple(), (r) => r.maxId()), weight: 1 },
    );
    const lite = asyncRepo(createTraderBoardRepo(f.store.db));
    const pg = createPgTraderBoardRepo(f.engines.pool);
    const { total, nonEmpty } = await compareRandom(lite, pg, calls, 150);
    expect(nonEmpty).toBeGreaterThan(total / 4);
  });

  it('walks every trade of a token by time in the same pages', async () => {
    const token = f.store.db.prepare('SELECT token_id FROM trades GROUP BY token_id ORDER BY count(*) DESC LIMIT 1').pluck().get() as number;
    const walk = async (r: Repo) => {
      const pages: unknown[][] = [];
      let [afterTime, afterId] = [T0, Infinity];
      for (;;) {
        const page = await r.pageByTime(token, afterTime, afterId, T0 + 200, f.maxTradeId, 3);
        if (page.length === 0) return pages;
        pages.push(page);
        [afterTime, afterId] = [page.at(-1)![1], page.at(-1)![0]];
      }
    };
    const pg = await walk(createPgTraderBoardRepo(f.engines.pool));
    expect(pg).toEqual(await walk(asyncRepo(createTraderBoardRepo(f.store.db))));
    expect(pg.flat().length).toBe(f.store.db.prepare('SELECT count(*) FROM trades WHERE token_id = ?').pluck().get(token));
  });

  it('explains both pages on PostgreSQL', async () => {
    const plans = await createPgTraderBoardRepo(f.engines.pool).plans();
    expect(plans).toHaveLength(2);
    for (const plan of plans) expect(plan).toMatch(/on trades/);
  });
});
