/**
 * Ranked lists on PostgreSQL answer as on SQLite for the same random calls on the same market
 * store (with holders): unique wallets (from wallet_last, or counted from trades when the token
 * traded after `now`), market figures over windows of every width, last prices per market, the
 * markets and holders by size with ties, and the counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRankingRepo, type RankingRepo } from '../../src/store/sqlite/ranking-repo.js';
import { asyncRepo, type Async } from '../../src/store/port/async.js';
import { createPgRankingRepo } from '../../src/store/pg/ranking-repo.js';
import { marketFixture, type MarketFixture } from './market-fixture.js';
import { callsOf, compareRandom } from './twins.js';

type Repo = Async<RankingRepo>;
const T0 = 1_700_000_000;
const call = callsOf<Repo>();

describe('ranking repo on PostgreSQL', () => {
  let f: MarketFixture;
  beforeAll(async () => {
    f = await marketFixture('ranking', 17, { holders: true, varied: true });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('answers as the SQLite repo does for the same random calls', async () => {
    const tokens = f.store.db.prepare('SELECT id, last_trade_at AS last FROM tokens').all() as { id: number; last: number | null }[];
    const token = fc.oneof({ arbitrary: fc.constantFrom(...tokens), weight: 10 }, { arbitrary: fc.constant({ id: 9999, last: null }), weight: 1 });
    // Trades are at T0 + 100 .. T0 + 129.
    const now = fc.oneof(fc.integer({ min: T0 + 90, max: T0 + 140 }), fc.integer({ min: T0 - 3600, max: T0 + 20_000 }));
    const seconds = fc.constantFrom(1, 5, 30, 60, 300, 3600, 86_400);
    const last = fc.oneof(fc.constant('token' as const), fc.option(fc.integer({ min: T0 + 90, max: T0 + 140 })));
    const limit = fc.integer({ min: -1, max: 6 });
    const calls = fc.oneof(
      call('uniqueWallets', fc.tuple(token, now, seconds, last), (r, t, n, s, l) => r.uniqueWallets(t.id, n, s, l === 'token' ? t.last : l)),
      call('marketStats', fc.tuple(token, now, seconds, last), (r, t, n, s, l) => r.marketStats(t.id, n, s, l === 'token' ? t.last : l)),
      call('marketPrices', fc.tuple(token), (r, t) => r.marketPrices(t.id)),
      call('markets', fc.tuple(token, limit), (r, t, n) => r.markets(t.id, n)),
      call('marketSummary', fc.tuple(token), (r, t) => r.marketSummary(t.id)),
      call('holders', fc.tuple(token, limit), (r, t, n) => r.holders(t.id, n)),
      call('holderCount', fc.tuple(token), (r, t) => r.holderCount(t.id)),
    );
    const lite = asyncRepo(createRankingRepo(f.store.db));
    const pg = createPgRankingRepo(f.engines.pool);
    const { total, nonEmpty } = await compareRandom(
      lite,
      pg,
      calls,
      150,
      (v) => v === 0 || (Array.isArray(v) && v.length === 0) || (v instanceof Map && v.size === 0),
    );
    expect(nonEmpty).toBeGreaterThan(total / 3);
  });

  it('gives maps in the same order and holders tied on amount by owner', async () => {
    const lite = asyncRepo(createRankingRepo(f.store.db));
    const pg = createPgRankingRepo(f.engines.pool);
    const busiest = f.store.db.prepare('SELECT token_id FROM market_last GROUP BY token_id ORDER BY count(*) DESC, token_id LIMIT 1').pluck().get() as number;
    const stats = await pg.marketStats(busiest, T0 + 200, 3600, T0 + 130);
    expect(stats.size).toBeGreaterThan(1);
    expect([...stats.keys()]).toEqual([...(await lite.marketStats(busiest, T0 + 200, 3600, T0 + 130)).keys()]);
    expect([...(await pg.marketPrices(busiest)).keys()]).toEqual([...(await lite.marketPrices(busiest)).keys()]);
    const tied = f.store.db.prepare('SELECT token_id FROM holders GROUP BY token_id, amount HAVING count(*) > 1 LIMIT 1').pluck().get() as number;
    const top = await pg.holders(tied, -1);
    expect(top).toEqual(await lite.holders(tied, -1));
    expect(top.length).toBeGreaterThan(1);
  });
});
