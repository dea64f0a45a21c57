/**
 * Seconds resolutions read the 1 s and 15 s candle rollups (docs/api.md, TradingView UDF datafeed): the rows one
 * request reads are bounded by countback x rows per bar, however many trades the covered seconds
 * hold. (SQLite's migration 008 that fills those rollups is tested in rollup-migrations.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { readTokenId } from '../v1/naive.js';
import { parseResolution, rowsPerBar } from '../../src/domain/resolution.js';
import { refBars, closeVolume, type RefTrade } from '../udf/support.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const START = 1_700_000_000;

describe('seconds resolutions', () => {
  // 30,000 trades: a PostgreSQL ingest of that many takes tens of seconds on a loaded machine
  it('read at most countback x rows-per-bar rollup rows, not the trades of the covered seconds', async () => {
    const app = (t = makeTestApp());
    const tok = aToken();
    // 20 trades in every second for 1500 s: 30,000 trades
    const trades = Array.from({ length: 30_000 }, (_, i) =>
      aTrade(tok.address, { blockTime: START + Math.floor(i / 20), priceUsd: 1 + (i % 89) / 10, volumeUsd: 1 + (i % 7) }),
    );
    await app.ingest([...withMarket(tok), ...trades]);
    const id = await readTokenId(app.store, tok.address);
    const repo = app.services.repos.candles;
    const expected = { '1S': [1, 100], '5S': [5, 100], '15S': [1, 100], '30S': [2, 50] } as const;
    for (const [key, [perBar, countback]] of Object.entries(expected)) {
      const res = parseResolution(key)!;
      expect(rowsPerBar(res), key).toBe(perBar);
      const stats = { rows: -1 };
      const bars = await repo.readBars(id, res, { mode: 'countback', to: START + 1500, countback }, stats);
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
    await repo.readBars(id, parseResolution('1S')!, { mode: 'range', from: START - 86400, to: START + 1500 }, stats);
    expect(stats.rows).toBe(1500);
  }, 120_000);
});
