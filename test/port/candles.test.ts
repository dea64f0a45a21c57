/** Port contract: the token and market candle repos (bars folded from the ingest's rollups, and merged deltas). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResolution } from '../../src/domain/resolution.js';
import { A, B, D, MA1, MA2, MB, openPortStore, type PortStore } from './fixture.js';

const R1 = parseResolution('1')!;
const R5 = parseResolution('5')!;
const R1D = parseResolution('1D')!;

let t: PortStore;
beforeAll(async () => {
  t = await openPortStore();
});
afterAll(async () => {
  await t.close();
});

const bar = (dt: number, o: number, h: number, l: number, c: number, v: number) => ({ t: D + dt, o, h, l, c, v });

describe('candles', () => {
  it('readBars folds a range and a countback from the rollups, counting the rows read', async () => {
    const stats = { rows: 0 };
    expect(await t.repos.candles.readBars(t.idA, R1, { mode: 'range', from: D, to: D + 180 }, stats)).toEqual([
      bar(0, 1, 1, 1, 1, 10),
      bar(60, 2, 2, 2, 2, 20),
      bar(120, 3, 3, 3, 3, 30),
    ]);
    expect(stats.rows).toBe(3);
    expect(await t.repos.candles.readBars(t.idA, R5, { mode: 'countback', to: D + 3600, countback: 10 })).toEqual([bar(0, 1, 3, 1, 3, 60)]);
    expect(await t.repos.candles.readBars(t.idA, R1, { mode: 'countback', to: D + 100, countback: 1 })).toEqual([bar(60, 2, 2, 2, 2, 20)]);
    expect(await t.repos.candles.readBars(t.idB, R1D, { mode: 'range', from: D, to: D + 1 })).toEqual([bar(0, 5, 5, 5, 5, 50)]);
  });

  it('newestBarBefore gives the start of the newest bar before a time, null before the first', async () => {
    expect(await t.repos.candles.newestBarBefore(t.idA, R1, D + 100)).toBe(D + 60);
    expect(await t.repos.candles.newestBarBefore(t.idA, R1, D + 60)).toBe(D);
    expect(await t.repos.candles.newestBarBefore(t.idA, R1, D)).toBeNull();
  });

  it('applyDeltas merges a delta into a stored rollup: the earlier open, the later close, the sums', async () => {
    const delta = { tokenId: t.idB, res: 60, t: D, o: 4, h: 9, l: 4, c: 6, v: 7, vb: 0, n: 1, nb: 0, oTime: D + 1, oId: 100, cTime: D + 59, cId: 101 };
    await t.repos.candles.applyDeltas([delta]);
    expect(await t.repos.candles.readBars(t.idB, R1, { mode: 'range', from: D, to: D + 60 })).toEqual([bar(0, 4, 9, 4, 6, 57)]);
  });
});

describe('marketCandles', () => {
  it('readBars gives a market its bars in USD and in its quote token', async () => {
    const q = { mode: 'range', from: D, to: D + 180 } as const;
    expect(await t.repos.marketCandles.readBars(t.idA, MA1, 'usd', R1, q)).toEqual([bar(0, 1, 1, 1, 1, 10), bar(60, 2, 2, 2, 2, 20)]);
    expect(await t.repos.marketCandles.readBars(t.idA, MA2, 'usd', R1, q)).toEqual([bar(120, 3, 3, 3, 3, 30)]);
    const native = await t.repos.marketCandles.readBars(t.idA, MA2, 'native', R1, q);
    expect(native).toEqual([bar(120, 0.03, 0.03, 0.03, 0.03, 0.3)]);
  });

  it('lastPrice is the close of the newest day, in either currency, null without trades', async () => {
    expect(await t.repos.marketCandles.lastPrice(t.idA, MA1, 'usd')).toBe(2);
    expect(await t.repos.marketCandles.lastPrice(t.idA, MA1, 'native')).toBe(0.02);
    expect(await t.repos.marketCandles.lastPrice(t.idB, MA1, 'usd')).toBeNull();
  });

  it('marketToken names the token of a market, null for an unknown one', async () => {
    expect(await t.repos.marketCandles.marketToken(MB)).toBe(t.idB);
    expect(await t.repos.marketCandles.marketToken(A)).toBeNull();
  });

  it("newestBarBefore gives the start of the market's newest bar before a time", async () => {
    expect(await t.repos.marketCandles.newestBarBefore(t.idA, MA1, R1, D + 3600)).toBe(D + 60);
    expect(await t.repos.marketCandles.newestBarBefore(t.idA, MA2, R1, D + 120)).toBeNull();
  });

  it('applyDeltas merges into a new market key', async () => {
    const market = B.replace('PortTokenB', 'PortNewMkt');
    await t.repos.marketCandles.applyDeltas([
      {
        tokenId: t.idB,
        market,
        res: 60,
        t: D,
        o: 1,
        h: 2,
        l: 1,
        c: 2,
        v: 3,
        qo: 0.1,
        qh: 0.2,
        ql: 0.1,
        qc: 0.2,
        qv: 0.3,
        n: 2,
        oTime: D,
        oId: 90,
        cTime: D + 5,
        cId: 91,
      },
    ]);
    expect(await t.repos.marketCandles.readBars(t.idB, market, 'native', R1, { mode: 'countback', to: D + 60, countback: 5 })).toEqual([
      bar(0, 0.1, 0.2, 0.1, 0.2, 0.3),
    ]);
  });
});
