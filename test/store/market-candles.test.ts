/**
 * Per-market rollups (README, Pairs and native prices): migrations 011 and 013 fill them for trades
 * stored before them exactly as ingest writes them (two markets per token, backfilled batches, a trade of
 * amount 0 whose native price is 0 both ways); and a market's seconds bars read rollups only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade } from '../helpers/builders.js';
import { loadMigrations } from '../../src/store/db.js';
import { createMarketCandlesRepo } from '../../src/store/market-candles-repo.js';
import { parseResolution } from '../../src/domain/resolution.js';
import { closeVolume } from '../udf/support.js';

let t: TestApp | undefined;
afterEach(() => t?.close());

const START = 1_700_000_000;
const COLS = 'token_id, k.address, res, t, o, h, l, c, v, qo, qh, ql, qc, qv, n, o_time, o_id, c_time, c_id';
/** Column positions of the two volume sums, equal within 1e-9 relative (added in another order). */
const V = 8;
const QV = 13;

describe('market_candles', () => {
  it('are filled by migrations 011 and 013 for trades stored before them, exactly as ingest writes them', async () => {
    const app = (t = makeTestApp());
    const sql = [11, 13].map((v) => loadMigrations().find((m) => m.version === v)!.sql);
    // keys may be numbered in another order: rows are compared by market address
    const rows = () =>
      app.store.db.prepare(`SELECT ${COLS} FROM market_candles JOIN market_keys k ON k.id = market_id ORDER BY token_id, k.address, res, t`).raw().all() as (
        number | string
      )[][];
    const row = fc.record({
      dt: fc.integer({ min: 0, max: 200_000 }),
      market: fc.integer({ min: 0, max: 1 }),
      price: fc.double({ min: 1e-6, max: 1e4, noNaN: true, noDefaultInfinity: true }),
      volume: fc.double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true }),
      amount: fc.oneof(fc.constant(0), fc.double({ min: 1e-3, max: 1e9, noNaN: true, noDefaultInfinity: true })),
      quote: fc.double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true }),
    });
    await fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 40 }), fc.array(row, { maxLength: 20 }), (first, backfill) => {
        const tok = aToken();
        const markets = [aMarket(tok.address), aMarket(tok.address, { quoteSymbol: 'USDC' })];
        const recs = (rs: typeof first) =>
          rs.map((r) =>
            aTrade(tok.address, {
              market: markets[r.market]!.address,
              blockTime: START + r.dt,
              priceUsd: r.price,
              volumeUsd: r.volume,
              amount: r.amount,
              quoteAmount: r.quote,
            }),
          );
        app.ingest([tok, ...markets, ...recs(first)]);
        if (backfill.length > 0) app.ingest(recs(backfill));
        const byIngest = rows();
        expect(byIngest.length).toBeGreaterThan(0);
        app.store.db.exec('DROP TABLE market_candles; DROP TABLE market_keys');
        for (const s of sql) app.store.db.exec(s);
        const byMigration = rows();
        expect(byMigration.length).toBe(byIngest.length);
        byIngest.forEach((want, i) => {
          const got = byMigration[i]!;
          const exact = (r: (number | string)[]) => r.filter((_, k) => k !== V && k !== QV);
          expect(exact(got)).toEqual(exact(want));
          expect(closeVolume(got[V] as number, want[V] as number) && closeVolume(got[QV] as number, want[QV] as number)).toBe(true);
        });
      }),
      { numRuns: 40 },
    );
  });

  it("read a market's seconds bars from rollups: at most countback x rows-per-bar rows", () => {
    const app = (t = makeTestApp());
    const tok = aToken();
    const [a, b] = [aMarket(tok.address), aMarket(tok.address, { quoteSymbol: 'USDC' })];
    // 10 trades a second in each market for 600 s
    const trades = Array.from({ length: 12_000 }, (_, i) =>
      aTrade(tok.address, {
        market: (i % 2 === 0 ? a : b).address,
        blockTime: START + Math.floor(i / 20),
        priceUsd: 1 + (i % 89) / 10,
        amount: 1 + (i % 5),
        quoteAmount: 0.5,
      }),
    );
    app.ingest([tok, a, b, ...trades]);
    const id = app.store.db.prepare('SELECT id FROM tokens WHERE address = ?').pluck().get(tok.address) as number;
    const repo = createMarketCandlesRepo(app.store.db);
    for (const [key, perBar] of [
      ['1S', 1],
      ['5S', 5],
      ['30S', 2],
    ] as const) {
      const stats = { rows: -1 };
      const bars = repo.readBars(id, a.address, 'native', parseResolution(key)!, { mode: 'countback', to: START + 600, countback: 10 }, stats);
      expect(bars, key).toHaveLength(10);
      expect(stats.rows, key).toBeLessThanOrEqual(10 * perBar + 1);
      // market a holds the trades of even index: amount 1, 3, 5, 2, 4, ... so native prices 0.5 / amount
      expect(Math.max(...bars.map((x) => x.h)), key).toBe(0.5);
      expect(Math.min(...bars.map((x) => x.l)), key).toBe(0.1);
    }
    expect(repo.lastPrice(id, a.address, 'native')).toBe(0.5 / (1 + (11_998 % 5)));
    expect(repo.lastPrice(id, b.address, 'usd')).toBe(1 + (11_999 % 89) / 10);
  });
});
