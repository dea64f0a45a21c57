/**
 * fill=previous on /v1/token/:address/candles (docs/api.md, Bars without gaps; issue 32): the bars
 * of the raw trades with every empty bucket after the first bar and before the end of the range
 * (never past the bucket in progress) as a flat bar at the previous close with no volume, at most
 * 5000 bars, the newest kept; cached answers move on with the clock and with trades.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { close, readRawTrades, readTokenId } from './naive.js';

let t: TestApp;
afterEach(() => t?.close());

/** The test clock's second (makeTestApp's fake clock starts here). */
const NOW = 1_700_000_000;
type Row = { t: number; o: number; h: number; l: number; c: number; v: number };

/** The naive filled series: bars of the raw trades at `seconds`, every bucket from the first one in [from, end) filled, the newest `max`. */
async function naiveFilled(token: string, seconds: number, from: number, end: number, max: number): Promise<Row[]> {
  const bars = new Map<number, Row>();
  for (const x of await readRawTrades(t.store, await readTokenId(t.store, token))) {
    const b = Math.floor(x.bt / seconds) * seconds;
    if (b < from || b >= end) continue;
    const bar = bars.get(b);
    if (bar === undefined) bars.set(b, { t: b, o: x.price, h: x.price, l: x.price, c: x.price, v: x.vol });
    else Object.assign(bar, { h: Math.max(bar.h, x.price), l: Math.min(bar.l, x.price), c: x.price, v: bar.v + x.vol });
  }
  const times = [...bars.keys()].sort((a, b) => a - b);
  if (times.length === 0) return [];
  const out: Row[] = [];
  let closeAt = bars.get(times[0]!)!.c;
  for (let b = times[0]!; b < end; b += seconds) {
    const bar = bars.get(b);
    if (bar !== undefined) closeAt = bar.c;
    out.push(bar ?? { t: b, o: closeAt, h: closeAt, l: closeAt, c: closeAt, v: 0 });
  }
  return out.slice(-max);
}

function expectBars(actual: Row[], want: Row[]): void {
  expect(actual.map((b) => b.t)).toEqual(want.map((b) => b.t));
  actual.forEach((b, i) => {
    const w = want[i]!;
    expect([b.o, b.h, b.l, b.c]).toEqual([w.o, w.h, w.l, w.c]);
    expect(close(b.v, w.v)).toBe(true);
  });
}

async function seed() {
  t = makeTestApp();
  const tok = aToken({ circulatingSupply: 1000 });
  await t.ingest(withMarket(tok));
  // Sparse: a trade every few hours with long quiet stretches, and a burst in one minute.
  const times = [NOW - 86_000, NOW - 85_990, NOW - 60_000, NOW - 59_950, NOW - 20_000, NOW - 7_000, NOW - 6_990, NOW - 6_980, NOW - 400];
  await t.ingest(times.map((bt, i) => aTrade(tok.address, { blockTime: bt, priceUsd: 1 + i / 10, volumeUsd: i + 1 })));
  return tok.address;
}

describe('GET /v1/token/:address/candles?fill=previous', () => {
  it('fills every empty bucket after the first bar up to `to` with the previous close and v = 0', async () => {
    const token = await seed();
    for (const [resolution, seconds] of [
      ['1', 60],
      ['15', 900],
      ['60', 3600],
    ] as const) {
      const from = NOW - 70_000;
      const to = NOW - 3000;
      const res = await t.http.get(`/v1/token/${token}/candles?resolution=${resolution}&from=${from}&to=${to}&fill=previous`);
      expect(res.status).toBe(200);
      const start = Math.ceil(from / seconds) * seconds;
      expectBars(res.body.candles, await naiveFilled(token, seconds, start, to, 5000));
      // no bucket left out: consecutive times, one bucket apart
      const ts = res.body.candles.map((b: Row) => b.t);
      expect(ts.every((x: number, i: number) => i === 0 || x - ts[i - 1] === seconds)).toBe(true);
    }
  });

  it('stops at the bucket in progress when `to` lies in the future, and moves on with the clock', async () => {
    const token = await seed();
    const url = `/v1/token/${token}/candles?resolution=1&from=${NOW - 1000}&to=${NOW + 86_400}&fill=previous`;
    const res = await t.http.get(url);
    expectBars(res.body.candles, await naiveFilled(token, 60, NOW - 960, NOW + 1, 5000));
    expect(res.body.candles.at(-1).t).toBe(Math.floor(NOW / 60) * 60);
    t.clock.advance(125_000);
    const later = await t.http.get(url);
    expectBars(later.body.candles, await naiveFilled(token, 60, NOW - 960, NOW + 126, 5000));
    expect(later.body.candles.at(-1)).toMatchObject({ t: Math.floor((NOW + 125) / 60) * 60, v: 0, c: 1.8 });
  });

  it('keeps the newest 5000 buckets, also with countback, and fills metric=mcap alike', async () => {
    const token = await seed();
    const all = await t.http.get(`/v1/token/${token}/candles?resolution=1S&from=${NOW - 90_000}&to=${NOW + 1}&fill=previous`);
    expect(all.body.candles).toHaveLength(5000);
    expectBars(all.body.candles, await naiveFilled(token, 1, NOW - 90_000, NOW + 1, 5000));
    const cb = await t.http.get(`/v1/token/${token}/candles?resolution=1&to=${NOW + 1}&countback=300&fill=previous`);
    expect(cb.body.candles).toHaveLength(300);
    expectBars(cb.body.candles, await naiveFilled(token, 60, 0, NOW + 1, 300));
    const cap = await t.http.get(`/v1/token/${token}/candles?resolution=1&to=${NOW + 1}&countback=300&fill=previous&metric=mcap`);
    expectBars(
      cap.body.candles,
      cb.body.candles.map((b: Row) => ({ ...b, o: b.o * 1000, h: b.h * 1000, l: b.l * 1000, c: b.c * 1000 })),
    );
  });

  it('answers no bars for a range with none, and the plain bars with fill=none', async () => {
    const token = await seed();
    const empty = await t.http.get(`/v1/token/${token}/candles?resolution=1&from=${NOW - 5000}&to=${NOW - 4000}&fill=previous`);
    expect(empty.body.candles).toEqual([]);
    const plain = await t.http.get(`/v1/token/${token}/candles?resolution=1&from=${NOW - 7200}&to=${NOW}&fill=none`);
    expect(plain.body.candles.map((b: Row) => b.t)).toEqual([NOW - 7040, NOW - 6980, NOW - 440]);
  });

  it('takes a trade that lands in a filled bucket (the cached answer is dropped)', async () => {
    const token = await seed();
    const url = `/v1/token/${token}/candles?resolution=15&from=${NOW - 20_000}&to=${NOW}&fill=previous`;
    await t.http.get(url);
    await t.ingest([aTrade(token, { blockTime: NOW - 10_000, priceUsd: 7, volumeUsd: 3 })]);
    const res = await t.http.get(url);
    expectBars(res.body.candles, await naiveFilled(token, 900, Math.ceil((NOW - 20_000) / 900) * 900, NOW, 5000));
    expect(res.body.candles.find((b: Row) => b.t === Math.floor((NOW - 10_000) / 900) * 900)).toMatchObject({ c: 7, v: 3 });
  });

  it('refuses a fill it does not know, naming fill', async () => {
    const token = await seed();
    for (const q of ['fill=zero', 'fill=PREVIOUS', 'fill=previous&fill=none']) {
      const res = await t.http.get(`/v1/token/${token}/candles?resolution=15&countback=10&${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'fill' });
    }
  });
});
