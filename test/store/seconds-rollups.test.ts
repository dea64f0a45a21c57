/**
 * Seconds resolutions read the 1 s and 15 s candle rollups (docs/api.md, TradingView UDF datafeed): the rows one
 * request reads are bounded by countback x rows per bar, however many trades the covered seconds
 * hold; and migration 008 fills those rollups for trades stored before it exactly as ingest does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade } from '../helpers/builders.js';
import { createCandlesRepo } from '../../src/store/candles-repo.js';
import { loadMigrations } from '../../src/store/db.js';
import { parseResolution, rowsPerBar } from '../../src/domain/resolution.js';
import { refBars, closeVolume, type RefTrade } from '../udf/support.js';

let t: TestApp | undefined;
afterEach(() => t?.close());

const START = 1_700_000_000;
const tokenId = (app: TestApp, address: string) => app.store.db.prepare('SELECT id FROM tokens WHERE address = ?').pluck().get(address) as number;

describe('seconds resolutions', () => {
  it('read at most countback x rows-per-bar rollup rows, not the trades of the covered seconds', () => {
    const app = (t = makeTestApp());
    const tok = aToken();
    // 20 trades in every second for 1500 s: 30,000 trades
    const trades = Array.from({ length: 30_000 }, (_, i) =>
      aTrade(tok.address, { blockTime: START + Math.floor(i / 20), priceUsd: 1 + (i % 89) / 10, volumeUsd: 1 + (i % 7) }),
    );
    app.ingest([tok, ...trades]);
    const id = tokenId(app, tok.address);
    const repo = createCandlesRepo(app.store.db);
    const expected = { '1S': [1, 100], '5S': [5, 100], '15S': [1, 100], '30S': [2, 50] } as const;
    for (const [key, [perBar, countback]] of Object.entries(expected)) {
      const res = parseResolution(key)!;
      expect(rowsPerBar(res), key).toBe(perBar);
      const stats = { rows: -1 };
      const bars = repo.readBars(id, res, { mode: 'countback', to: START + 1500, countback }, stats);
      expect(bars, key).toHaveLength(countback);
      // one more row than the bars need: the row that shows the oldest bar is complete
      expect(stats.rows, key).toBeLessThanOrEqual(countback * perBar + 1);
      // the raw path read every trade of the covered seconds: 20 a second
      expect(stats.rows, key).toBeLessThan((countback * res.seconds * 20) / 10);
      const covered: RefTrade[] = trades.map((r, seq) => ({ time: r.blockTime, seq, price: r.priceUsd, volume: r.volumeUsd }));
      const want = refBars(key, covered).slice(-countback);
      expect(
        bars.map((b) => [b.t, b.o, b.h, b.l, b.c]),
        key,
      ).toEqual(want.map((b) => [b.t, b.o, b.h, b.l, b.c]));
      bars.forEach((b, i) => expect(closeVolume(b.v, want[i]!.v), `${key} v`).toBe(true));
    }
    // a range of 1S over the whole day reads one row per non-empty second
    const stats = { rows: -1 };
    repo.readBars(id, parseResolution('1S')!, { mode: 'range', from: START - 86400, to: START + 1500 }, stats);
    expect(stats.rows).toBe(1500);
  });

  it('are filled by migration 008 for trades stored before it, exactly as ingest writes them', async () => {
    const app = (t = makeTestApp());
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
        app.ingest([tok, ...recs(first)]);
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
