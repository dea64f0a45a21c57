/**
 * Discovery's token sets on PostgreSQL answer as on SQLite for the same random calls on the same
 * market store, in the same order: tokens traded since a time, tokens with trades in a span (the
 * minute rollups narrowed by the trades), summaries and the newest tokens (equal creation times).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createDiscoveryRepo, type DiscoveryRepo } from '../../src/store/sqlite/discovery-repo.js';
import { asyncRepo, type Async } from '../../src/store/port/async.js';
import { createPgDiscoveryRepo } from '../../src/store/pg/discovery-repo.js';
import { marketFixture, type MarketFixture } from './market-fixture.js';
import { callsOf, compareRandom } from './twins.js';

type Repo = Async<DiscoveryRepo>;
const T0 = 1_700_000_000;
const call = callsOf<Repo>();

describe('discovery repo on PostgreSQL', () => {
  let f: MarketFixture;
  beforeAll(async () => {
    f = await marketFixture('discovery', 17, { varied: true });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('answers as the SQLite repo does for the same random calls', async () => {
    // Trades are at T0 + 100 .. T0 + 129: times around them, and minute edges.
    const time = fc.oneof(fc.integer({ min: T0 + 40, max: T0 + 190 }), fc.constantFrom(T0 + 60, T0 + 120, T0 + 180, 0));
    const tokenId = fc.oneof(fc.constantFrom(...f.tokens.map((t) => t.id)), fc.constant(9999));
    const calls = fc.oneof(
      call('tradedSince', fc.tuple(time), (r, t) => r.tradedSince(t)),
      call('tradedBetween', fc.tuple(time, time), (r, a, b) => r.tradedBetween(a, b)),
      call('summary', fc.tuple(tokenId), (r, id) => r.summary(id)),
      call('newest', fc.tuple(fc.integer({ min: -1, max: 45 })), (r, n) => r.newest(n)),
    );
    const lite = asyncRepo(createDiscoveryRepo(f.store.db));
    const pg = createPgDiscoveryRepo(f.engines.pool);
    const { total, nonEmpty } = await compareRandom(lite, pg, calls, 100);
    expect(nonEmpty).toBeGreaterThan(total / 2);
    // Several tokens traded: the order of the sets was compared, not only their size.
    expect((await pg.tradedBetween(T0 + 100, T0 + 130)).length).toBeGreaterThan(10);
    expect(await pg.newest(-1)).toHaveLength(f.tokens.length);
  });
});
