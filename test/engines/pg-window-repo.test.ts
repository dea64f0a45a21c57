/**
 * Window statistics on PostgreSQL answer as on SQLite for the same random calls on the same market
 * store: windows of every width ending anywhere around the trades (rollup buckets and raw edges),
 * spans given directly, and the price at a time (equal block times settled by trade id).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createWindowRepo, type WindowRepo } from '../../src/store/sqlite/window-repo.js';
import { asyncRepo, type Async } from '../../src/store/port/async.js';
import { createPgWindowRepo } from '../../src/store/pg/window-repo.js';
import { marketFixture, type MarketFixture } from './market-fixture.js';
import { callsOf, compareRandom } from './twins.js';

type Repo = Async<WindowRepo>;
const T0 = 1_700_000_000;
const call = callsOf<Repo>();

describe('window repo on PostgreSQL', () => {
  let f: MarketFixture;
  beforeAll(async () => {
    f = await marketFixture('window', 17, { varied: true });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('answers as the SQLite repo does for the same random calls', async () => {
    const tokens = f.store.db.prepare('SELECT id, last_trade_at AS last FROM tokens').all() as { id: number; last: number | null }[];
    const token = fc.constantFrom(...tokens);
    // Trades are at T0 + 100 .. T0 + 129; windows end before, among and long after them.
    const now = fc.oneof(fc.integer({ min: T0 + 90, max: T0 + 140 }), fc.integer({ min: T0 - 3600, max: T0 + 90_000 }));
    const seconds = fc.constantFrom(1, 5, 60, 300, 3600, 86_400, 7 * 86_400);
    // A lastTradeAt before now as the service passes it, or a later one (the window reads raw edges).
    const last = fc.oneof(fc.constant('token' as const), fc.option(fc.integer({ min: T0 + 90, max: T0 + 140 })));
    const calls = fc.oneof(
      call('window', fc.tuple(token, now, seconds, last), (r, t, n, s, l) => r.window(t.id, n, s, l === 'token' ? t.last : l)),
      call('between', fc.tuple(token, now, now, last), (r, t, a, b, l) => r.between(t.id, a, b, l === 'token' ? t.last : l)),
      call('priceAt', fc.tuple(token, now), (r, t, at) => r.priceAt(t.id, at)),
    );
    const lite = asyncRepo(createWindowRepo(f.store.db));
    const pg = createPgWindowRepo(f.engines.pool);
    const { total, nonEmpty } = await compareRandom(lite, pg, calls, 100, (v) => v === null || (v as { trades?: number }).trades === 0);
    expect(nonEmpty).toBeGreaterThan(total / 3);
    // A window over every trade of the busiest token counts all of them.
    const busiest = f.store.db.prepare('SELECT token_id AS id, count(*) AS n FROM trades GROUP BY token_id ORDER BY n DESC LIMIT 1').get() as {
      id: number;
      n: number;
    };
    expect((await pg.window(busiest.id, T0 + 200, 3600, T0 + 130)).trades).toBe(busiest.n);
  });
});
