import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { anAddress, aToken, aTrade, withMarket } from '../helpers/builders.js';
import { close, readRawTrades, readTokenId } from './naive.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;

/** Bars aggregated from the raw trades, ascending, for a fixed bucket width. */
async function naiveBars(app: TestApp, token: string, seconds: number, from: number, to: number) {
  const bars = new Map<number, { t: number; o: number; h: number; l: number; c: number; v: number }>();
  for (const x of await readRawTrades(app.store, await readTokenId(app.store, token))) {
    const b = Math.floor(x.bt / seconds) * seconds;
    if (b < from || b >= to) continue;
    const bar = bars.get(b);
    if (bar === undefined) bars.set(b, { t: b, o: x.price, h: x.price, l: x.price, c: x.price, v: x.vol });
    else Object.assign(bar, { h: Math.max(bar.h, x.price), l: Math.min(bar.l, x.price), c: x.price, v: bar.v + x.vol });
  }
  return [...bars.values()].sort((a, b) => a.t - b.t);
}

describe('GET /v1/token/:address/candles', () => {
  async function seed() {
    t = makeTestApp();
    const tok = aToken();
    await t.ingest(withMarket(tok));
    const trades = Array.from({ length: 400 }, (_, i) =>
      aTrade(tok.address, { blockTime: NOW - ((i * 7919) % 200_000), priceUsd: 1 + ((i * 37) % 101) / 10, volumeUsd: (i % 13) + 0.5 }),
    );
    await t.ingest(trades.slice(200));
    await t.ingest(trades.slice(0, 200)); // backfill
    return tok.address;
  }

  it('returns the bars of the raw trades in [from, to), ascending, echoing the canonical resolution', async () => {
    const token = await seed();
    for (const [resolution, key, seconds] of [
      ['1', '1', 60],
      ['15', '15', 900],
      ['60', '60', 3600],
      ['D', '1D', 86400],
      ['5S', '5S', 5],
    ] as const) {
      const from = NOW - 150_000;
      const to = NOW - 1000;
      const res = await t.http.get(`/v1/token/${token}/candles?resolution=${resolution}&from=${from}&to=${to}`);
      expect(res.status).toBe(200);
      expect(res.body.resolution).toBe(key);
      const want = await naiveBars(t, token, seconds, Math.ceil(from / seconds) * seconds, to);
      expect(res.body.candles.map((b: { t: number }) => b.t)).toEqual(want.map((b) => b.t));
      res.body.candles.forEach((b: { t: number; o: number; h: number; l: number; c: number; v: number }, i: number) => {
        const w = want[i]!;
        expect([b.o, b.h, b.l, b.c]).toEqual([w.o, w.h, w.l, w.c]);
        expect(close(b.v, w.v)).toBe(true);
        expect(Object.keys(b)).toEqual(['t', 'o', 'h', 'l', 'c', 'v']);
      });
    }
  });

  it('with countback returns the newest bars before to and ignores from; to defaults to now', async () => {
    const token = await seed();
    const res = await t.http.get(`/v1/token/${token}/candles?resolution=60&countback=5&from=${NOW + 10}&to=${NOW - 7200}`);
    expect(res.status).toBe(200);
    const want = (await naiveBars(t, token, 3600, 0, NOW - 7200)).slice(-5);
    expect(res.body.candles.map((b: { t: number }) => b.t)).toEqual(want.map((b) => b.t));
    const latest = await t.http.get(`/v1/token/${token}/candles?resolution=60&countback=1`);
    expect(latest.body.candles).toEqual([expect.objectContaining({ t: Math.floor(NOW / 3600) * 3600 })]);
  });

  it('gives the same bars as /udf/history for the same parameters', async () => {
    const token = await seed();
    for (const q of [
      `resolution=15&from=${NOW - 100_000}&to=${NOW}`,
      `resolution=1D&countback=3&to=${NOW}`,
      `resolution=5S&from=${NOW - 5000}&to=${NOW - 10}`,
    ]) {
      const v1 = await t.http.get(`/v1/token/${token}/candles?${q}`);
      const udf = await t.http.get(`/udf/history?symbol=${token}&${q}`);
      expect(udf.body.s).toBe('ok');
      expect(v1.body.candles).toEqual(
        udf.body.t.map((time: number, i: number) => ({ t: time, o: udf.body.o[i], h: udf.body.h[i], l: udf.body.l[i], c: udf.body.c[i], v: udf.body.v[i] })),
      );
    }
  });

  it('gives an empty list when no bar is in range', async () => {
    const token = await seed();
    const res = await t.http.get(`/v1/token/${token}/candles?resolution=1&from=${NOW + 100}&to=${NOW + 200}`);
    expect(res.body).toEqual({ resolution: '1', candles: [] });
  });

  it.each([
    ['from=10&to=20', 'resolution'],
    ['resolution=2&from=10&to=20', 'resolution'],
    ['resolution=1d&from=10&to=20', 'resolution'],
    ['resolution=1&from=20&to=20', 'from'],
    ['resolution=1&from=30&to=20', 'from'],
    ['resolution=1&to=20', 'from'],
    ['resolution=1&countback=0&to=20', 'from'],
    ['resolution=1&countback=5001', 'countback'],
    ['resolution=1&countback=-1', 'countback'],
    ['resolution=1&from=1e3&to=2000', 'from'],
    ['resolution=1&from=10&to=2000.5', 'to'],
    ['resolution=1&resolution=5&countback=1', 'resolution'],
  ])('answers ?%s with 400 invalid_parameter naming %s', async (query, param) => {
    const token = await seed();
    const res = await t.http.get(`/v1/token/${token}/candles?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('answers an unknown token with 404', async () => {
    t = makeTestApp();
    const res = await t.http.get(`/v1/token/${anAddress()}/candles?resolution=1&countback=10`);
    expect(res.status).toBe(404);
  });
});
