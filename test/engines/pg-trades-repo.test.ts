/**
 * Trade reads on PostgreSQL answer as on SQLite for the same random calls on the same store:
 * pages under every filter (side, wallet, both, time ranges), from any position and snapshot
 * bound, prices at a time, dexes of known and unknown markets, and the highest id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createTradesRepo, type TradeFilter, type TradePosition, type TradesRepo } from '../../src/store/sqlite/trades-repo.js';
import { asyncRepo, type Async } from '../../src/store/port/async.js';
import { createPgTradesRepo } from '../../src/store/pg/trades-repo.js';
import { marketFixture, WALLETS, type MarketFixture } from './market-fixture.js';
import { sameAnswers, show, type Call } from './twins.js';

type Repo = Async<TradesRepo>;
const T0 = 1_700_000_000;

describe('trades repo on PostgreSQL', () => {
  let f: MarketFixture;
  beforeAll(async () => {
    f = await marketFixture('trades');
  });
  afterAll(async () => {
    await f?.close();
  });

  const call = <A extends unknown[]>(name: string, args: fc.Arbitrary<A>, run: (r: Repo, ...a: A) => Promise<unknown>): fc.Arbitrary<Call<Repo>> =>
    args.map((a) => ({ label: `${name}${show(a)}`, run: (r: Repo) => run(r, ...a) }));

  it('answers as the SQLite repo does for the same random calls', async () => {
    const tokenId = fc.oneof({ arbitrary: fc.constantFrom(...f.tokens.map((t) => t.id)), weight: 12 }, { arbitrary: fc.constant(9999), weight: 1 });
    const time = fc.integer({ min: T0 + 95, max: T0 + 135 });
    const filter = fc.record({
      side: fc.constantFrom('buy' as const, 'sell' as const, null),
      wallet: fc.option(fc.constantFrom(...WALLETS, 'nobody')),
      after: fc.option(time, { freq: 2 }),
      before: fc.option(time, { freq: 2 }),
    });
    // Positions of stored trades (where a cursor stops) and anywhere else.
    type Stored = { tokenId: number; blockTime: number; id: number };
    const stored = f.store.db.prepare('SELECT token_id AS tokenId, block_time AS blockTime, id FROM trades').all() as Stored[];
    const anywhere = fc.record({ blockTime: time, id: fc.integer({ min: 0, max: f.maxTradeId + 1 }) });
    const bound = fc.oneof(fc.constant(f.maxTradeId), fc.integer({ min: 0, max: f.maxTradeId + 5 }));
    const limit = fc.integer({ min: 1, max: 12 });
    type PageArgs = [number, TradeFilter, TradePosition | null, number, number];
    const pageArgs: fc.Arbitrary<PageArgs> = fc.oneof(
      fc.tuple(tokenId, filter, fc.option(anywhere, { freq: 2 }), bound, limit),
      fc.tuple(fc.constantFrom(...stored), filter, bound, limit).map(([t, fl, b, l]): PageArgs => [t.tokenId, fl, { blockTime: t.blockTime, id: t.id }, b, l]),
    );
    const calls = fc.oneof(
      { arbitrary: call('page', pageArgs, (r, ...a) => r.page(...a)), weight: 6 },
      { arbitrary: call('lastAtOrBefore', fc.tuple(tokenId, time), (r, id, at) => r.lastAtOrBefore(id, at)), weight: 2 },
      { arbitrary: call('dexOf', fc.tuple(fc.constantFrom(...f.markets, 'unknown')), (r, m) => r.dexOf(m)), weight: 1 },
      { arbitrary: call('maxId', fc.tuple(), (r) => r.maxId()), weight: 1 },
    );
    const lite = asyncRepo(createTradesRepo(f.store.db));
    const pg = createPgTradesRepo(f.engines.pool);
    let nonEmpty = 0;
    let total = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(calls, { minLength: 5, maxLength: 20 }), async (cs) => {
        for (const a of await sameAnswers(lite, pg, cs)) {
          total++;
          if ('value' in a && Array.isArray(a.value) && a.value.length > 0) nonEmpty++;
        }
      }),
      { numRuns: 100 },
    );
    // The calls reached trades, not only empty pages.
    expect(nonEmpty).toBeGreaterThan(total / 10);
  });

  it('walks every trade of a token page by page, the same on both', async () => {
    // The token with the most trades.
    const token = f.store.db.prepare('SELECT token_id FROM trades GROUP BY token_id ORDER BY count(*) DESC LIMIT 1').pluck().get() as number;
    const lite = asyncRepo(createTradesRepo(f.store.db));
    const pg = createPgTradesRepo(f.engines.pool);
    const walk = async (r: Repo) => {
      const out: number[] = [];
      let pos = null;
      for (;;) {
        const page = await r.page(token, { side: null, wallet: null }, pos, f.maxTradeId, 3);
        if (page.length === 0) return out;
        out.push(...page.map((t) => t.id));
        pos = { blockTime: page.at(-1)!.blockTime, id: page.at(-1)!.id };
      }
    };
    const want = await walk(lite);
    expect(await walk(pg)).toEqual(want);
    const count = f.store.db.prepare('SELECT count(*) FROM trades WHERE token_id = ?').pluck().get(token);
    expect(want).toHaveLength(count as number);
    expect(want.length).toBeGreaterThan(10);
  });
});
