/**
 * SQLite's rollup migrations fill the rollups for trades stored before them exactly as ingest
 * writes them: migration 008 the 1 s and 15 s candles (docs/api.md, TradingView UDF datafeed),
 * migrations 011 and 013 the per-market candles and their market keys (README, Pairs and native
 * prices: two markets per token, backfilled batches, a trade of amount 0 whose native price is 0
 * both ways). These migrations exist on SQLite only (a PostgreSQL store has had these rollups
 * since its first migration), so the file runs on a SQLite store whatever STORE says.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade, withMarket } from '../helpers/builders.js';
import { loadMigrations, openStore } from '../../src/store/sqlite/db.js';
import { closeVolume } from '../udf/support.js';

let t: TestApp | undefined;
afterEach(() => t?.close());

const START = 1_700_000_000;
const COLS = 'token_id, k.address, res, t, o, h, l, c, v, qo, qh, ql, qc, qv, n, o_time, o_id, c_time, c_id';
/** Column positions of the two market volume sums, equal within 1e-9 relative (added in another order). */
const V = 8;
const QV = 13;

const sqliteApp = (): TestApp => makeTestApp({ store: openStore(':memory:') });

describe('seconds rollups', () => {
  it('are filled by migration 008 for trades stored before it, exactly as ingest writes them', async () => {
    const app = (t = sqliteApp());
    const sql = loadMigrations().find((m) => m.version === 8)!.sql;
    const cols = 'token_id, res, t, o, h, l, c, v, vb, n, nb, o_time, o_id, c_time, c_id';
    const rows = () => app.store.db.prepare(`SELECT ${cols} FROM candles WHERE res IN (1, 15) ORDER BY token_id, res, t`).raw().all() as number[][];
    const row = fc.record({
      dt: fc.integer({ min: 0, max: 120 }),
      price: fc.double({ min: 1e-6, max: 1e4, noNaN: true, noDefaultInfinity: true }),
      volume: fc.double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true }),
      buy: fc.boolean(),
    });
    await fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 40 }), fc.array(row, { maxLength: 20 }), (first, backfill) => {
        const tok = aToken();
        const recs = (rs: typeof first) =>
          rs.map((r) => aTrade(tok.address, { blockTime: START + r.dt, priceUsd: r.price, volumeUsd: r.volume, side: r.buy ? 'buy' : 'sell' }));
        app.ingest([...withMarket(tok), ...recs(first)]);
        if (backfill.length > 0) app.ingest(recs(backfill));
        const byIngest = rows();
        app.store.db.exec('DELETE FROM candles WHERE res IN (1, 15)');
        app.store.db.exec(sql);
        const byMigration = rows();
        expect(byMigration.length).toBe(byIngest.length);
        byIngest.forEach((want, i) => {
          const got = byMigration[i]!;
          // every column exact except the volume sums (7, 8), equal within 1e-9 relative
          expect([...got.slice(0, 7), ...got.slice(9)]).toEqual([...want.slice(0, 7), ...want.slice(9)]);
          expect(closeVolume(got[7]!, want[7]!) && closeVolume(got[8]!, want[8]!)).toBe(true);
        });
      }),
      { numRuns: 40 },
    );
  });
});

describe('market_candles', () => {
  it('are filled by migrations 011 and 013 for trades stored before them, exactly as ingest writes them', async () => {
    const app = (t = sqliteApp());
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
});
