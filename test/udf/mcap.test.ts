/**
 * Market-cap charts (docs/api.md, Market-cap charts; issue 32): MCAP in a token symbol's currency
 * menu, /udf/history?currencyCode=MCAP and /v1/token/:address/candles?metric=mcap equal to the
 * price bars of the raw trades times the token's circulating supply (volume in USD), the cached
 * answers dropped when a token record changes the supply, and what a token without a supply gets.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { close, readRawTrades, readTokenId } from '../v1/naive.js';
import type { TokenRecord } from '../../src/domain/records.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;
type Row = { t: number; o: number; h: number; l: number; c: number; v: number };

/** Bars of the raw trades at a fixed width in [from, to), prices times `supply`. */
async function naiveMcap(token: string, seconds: number, from: number, to: number, supply: number): Promise<Row[]> {
  const bars = new Map<number, Row>();
  for (const x of await readRawTrades(t.store, await readTokenId(t.store, token))) {
    const b = Math.floor(x.bt / seconds) * seconds;
    if (b < from || b >= to) continue;
    const bar = bars.get(b);
    if (bar === undefined) bars.set(b, { t: b, o: x.price, h: x.price, l: x.price, c: x.price, v: x.vol });
    else Object.assign(bar, { h: Math.max(bar.h, x.price), l: Math.min(bar.l, x.price), c: x.price, v: bar.v + x.vol });
  }
  return [...bars.values()].sort((a, b) => a.t - b.t).map((b) => ({ ...b, o: b.o * supply, h: b.h * supply, l: b.l * supply, c: b.c * supply }));
}

const columns = (body: { t: number[]; o: number[]; h: number[]; l: number[]; c: number[]; v: number[] }): Row[] =>
  body.t.map((x, i) => ({ t: x, o: body.o[i]!, h: body.h[i]!, l: body.l[i]!, c: body.c[i]!, v: body.v[i]! }));

function expectBars(actual: Row[], want: Row[]): void {
  expect(actual.map((b) => b.t)).toEqual(want.map((b) => b.t));
  actual.forEach((b, i) => {
    const w = want[i]!;
    expect([b.o, b.h, b.l, b.c]).toEqual([w.o, w.h, w.l, w.c]);
    expect(close(b.v, w.v)).toBe(true);
  });
}

async function seed(over: Partial<TokenRecord> = {}): Promise<TokenRecord> {
  t = makeTestApp();
  const tok = aToken({ symbol: 'CAP', circulatingSupply: 2_500_000, ...over });
  await t.ingest(withMarket(tok));
  const trades = Array.from({ length: 300 }, (_, i) =>
    aTrade(tok.address, { blockTime: NOW - ((i * 7919) % 90_000), priceUsd: 0.0002 + ((i * 37) % 101) / 1e6, volumeUsd: (i % 13) + 0.5 }),
  );
  await t.ingest(trades.slice(150));
  await t.ingest(trades.slice(0, 150)); // backfill
  return tok;
}

describe('market cap on /udf', () => {
  it('lists MCAP in a token symbol currency menu and answers MCAP symbol info on the cap scale', async () => {
    const tok = await seed();
    const usd = await t.http.get(`/udf/symbols?symbol=${tok.address}`);
    expect(usd.body).toMatchObject({ currency_code: 'USD', currency_codes: ['USD', 'MCAP'] });
    const cap = await t.http.get(`/udf/symbols?symbol=${tok.address}&currencyCode=MCAP`);
    expect(cap.status).toBe(200);
    expect(cap.body).toMatchObject({ ticker: tok.address, currency_code: 'MCAP', currency_codes: ['USD', 'MCAP'] });
    // the last price (about 0.0002) times 2.5M is a cap of hundreds of dollars: cents are four digits
    expect(cap.body.pricescale).toBe(100);
    expect(usd.body.pricescale).toBe(10_000_000);
  });

  it('answers /udf/history?currencyCode=MCAP as the naive price bars times the circulating supply', async () => {
    const tok = await seed();
    for (const [resolution, seconds] of [
      ['1', 60],
      ['60', 3600],
    ] as const) {
      const from = NOW - 80_000;
      const res = await t.http.get(`/udf/history?symbol=${tok.address}&resolution=${resolution}&from=${from}&to=${NOW + 1}&currencyCode=MCAP`);
      expect(res.status).toBe(200);
      expect(res.body.s).toBe('ok');
      expectBars(columns(res.body), await naiveMcap(tok.address, seconds, Math.ceil(from / seconds) * seconds, NOW + 1, 2_500_000));
      // the USD answer of the same bars is unchanged beside it (separate cache entries)
      const usd = await t.http.get(`/udf/history?symbol=${tok.address}&resolution=${resolution}&from=${from}&to=${NOW + 1}&currencyCode=USD`);
      expectBars(columns(usd.body), await naiveMcap(tok.address, seconds, Math.ceil(from / seconds) * seconds, NOW + 1, 1));
    }
  });

  it('drops the cached MCAP answers when a token record changes the supply (asked twice: once cached, once after)', async () => {
    const tok = await seed();
    const url = `/udf/history?symbol=${tok.address}&resolution=60&to=${NOW + 1}&countback=5&currencyCode=MCAP`;
    const before = await t.http.get(url);
    expect((await t.http.get(url)).body).toEqual(before.body);
    await t.ingest([{ ...tok, circulatingSupply: 5_000_000 }]);
    const after = await t.http.get(url);
    expect(after.body.t).toEqual(before.body.t);
    expectBars(columns(after.body), await naiveMcap(tok.address, 3600, after.body.t[0], NOW + 1, 5_000_000));
    // by symbol name too (the name is resolved from memory; the token change drops it)
    const byName = await t.http.get(`/udf/history?symbol=CAP&resolution=60&to=${NOW + 1}&countback=5&currencyCode=MCAP`);
    expect(byName.body).toEqual(after.body);
    const cand = await t.http.get(`/v1/token/${tok.address}/candles?resolution=60&to=${NOW + 1}&countback=5&metric=mcap`);
    expect(cand.body.candles.map((b: Row) => b.c)).toEqual(after.body.c);
  });

  it('answers no_data in MCAP for a token without a circulating supply, whose menu offers no MCAP', async () => {
    const tok = await seed({ circulatingSupply: null });
    const info = await t.http.get(`/udf/symbols?symbol=${tok.address}`);
    expect(info.body.currency_codes).toBeUndefined();
    const res = await t.http.get(`/udf/history?symbol=${tok.address}&resolution=60&from=${NOW - 80_000}&to=${NOW}&currencyCode=MCAP`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ s: 'no_data' });
    const v1 = await t.http.get(`/v1/token/${tok.address}/candles?resolution=60&from=${NOW - 80_000}&to=${NOW}&metric=mcap`);
    expect(v1.status).toBe(400);
    expect(v1.body.error).toMatchObject({ code: 'invalid_parameter', param: 'metric' });
  });

  it('refuses a currency a token does not have, naming currencyCode', async () => {
    const tok = await seed();
    for (const code of ['EUR', 'mcapx', 'usd']) {
      const res = await t.http.get(`/udf/history?symbol=${tok.address}&resolution=60&from=${NOW - 80_000}&to=${NOW}&currencyCode=${code}`);
      expect(res.status, code).toBe(400);
      expect(res.body).toMatchObject({ s: 'error', error: { code: 'invalid_parameter', param: 'currencyCode' } });
      expect(res.body.errmsg).toBe('currencyCode must be one of USD, MCAP');
    }
    // any case of MCAP is the market cap
    expect((await t.http.get(`/udf/symbols?symbol=${tok.address}&currencyCode=mcap`)).body.currency_code).toBe('MCAP');
  });
});

describe('market cap on /v1/token/:address/candles', () => {
  it('answers metric=mcap as the naive price bars times the supply, volume in USD', async () => {
    const tok = await seed();
    const from = NOW - 80_000;
    const res = await t.http.get(`/v1/token/${tok.address}/candles?resolution=15&from=${from}&to=${NOW + 1}&metric=mcap`);
    expect(res.status).toBe(200);
    expectBars(res.body.candles, await naiveMcap(tok.address, 900, Math.ceil(from / 900) * 900, NOW + 1, 2_500_000));
    const price = await t.http.get(`/v1/token/${tok.address}/candles?resolution=15&from=${from}&to=${NOW + 1}&metric=price`);
    expectBars(price.body.candles, await naiveMcap(tok.address, 900, Math.ceil(from / 900) * 900, NOW + 1, 1));
  });

  it('refuses a bad metric, and mcap with currency=native, naming metric', async () => {
    const tok = await seed();
    for (const q of ['metric=cap', 'metric=MCAP', 'metric=', 'metric=mcap&metric=price']) {
      const res = await t.http.get(`/v1/token/${tok.address}/candles?resolution=15&countback=10&${q}`);
      if (q === 'metric=') {
        expect(res.status, q).toBe(200); // an empty value counts as absent
        continue;
      }
      expect(res.status, q).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'metric' });
    }
    const market = aToken().address;
    const native = await t.http.get(`/v1/token/${tok.address}/candles?resolution=15&countback=10&metric=mcap&currency=native&market=${market}`);
    expect(native.status).toBe(400);
    expect(native.body.error).toMatchObject({ code: 'invalid_parameter', param: 'metric' });
  });
});
