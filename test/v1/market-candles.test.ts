/**
 * Candles of one market and pair symbols (README, Pairs and native prices): the errors of
 * market / currency on /v1 candles, the pair symbol info of /udf/symbols and its currencyCode
 * switch, and /udf/history of a pair in USD and in the quote token, on hand-computed trades.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade, anAddress } from '../helpers/builders.js';

let t: TestApp;
afterEach(() => t?.close());

/** The start of a minute. */
const T0 = 1_700_000_400;

function seed() {
  t = makeTestApp();
  const tok = aToken({ symbol: 'BONK', name: 'Bonk' });
  const other = aToken({ symbol: 'WIF' });
  const sol = aMarket(tok.address, { quoteSymbol: 'SOL', dex: 'raydium', liquidityUsd: 50_000 });
  const usdc = aMarket(tok.address, { quoteSymbol: 'USDC', dex: 'orca', liquidityUsd: 10_000 });
  const foreign = aMarket(other.address, { quoteSymbol: 'SOL' });
  const tr = (market: string, dt: number, priceUsd: number, amount: number, quoteAmount: number, volumeUsd: number) =>
    aTrade(tok.address, { market, blockTime: T0 + dt, priceUsd, amount, quoteAmount, volumeUsd });
  t.ingest([tok, other, sol, usdc, foreign]);
  t.ingest([
    tr(sol.address, 10, 2, 100, 1, 200), // native 0.01
    tr(usdc.address, 11, 9, 10, 90, 90),
    tr(sol.address, 30, 3, 100, 2, 300), // native 0.02
    tr(sol.address, 90, 1.5, 200, 1, 300), // native 0.005, next minute
  ]);
  // backfilled into the first minute, before its first trade: becomes its open (native 0.04)
  t.ingest([tr(sol.address, 5, 2.5, 50, 2, 125)]);
  return { tok, other, sol, usdc, foreign };
}

describe('GET /v1/token/:address/candles with market and currency', () => {
  it('answers the bars of one market in USD and in its quote token', async () => {
    const { tok, sol, usdc } = seed();
    expect(T0 % 60).toBe(0);
    const q = `resolution=1&from=${T0}&to=${T0 + 120}`;
    const all = await t.http.get(`/v1/token/${tok.address}/candles?${q}`);
    expect(all.body.candles.map((b: { t: number }) => b.t)).toEqual([T0, T0 + 60]);
    expect(all.body.candles[0]).toEqual({ t: T0, o: 2.5, h: 9, l: 2, c: 3, v: 200 + 90 + 300 + 125 });

    const usd = await t.http.get(`/v1/token/${tok.address}/candles?${q}&market=${sol.address}`);
    expect(usd.status).toBe(200);
    expect(usd.body.candles).toEqual([
      { t: T0, o: 2.5, h: 3, l: 2, c: 3, v: 625 },
      { t: T0 + 60, o: 1.5, h: 1.5, l: 1.5, c: 1.5, v: 300 },
    ]);
    const native = await t.http.get(`/v1/token/${tok.address}/candles?${q}&market=${sol.address}&currency=native`);
    expect(native.body.candles).toEqual([
      { t: T0, o: 0.04, h: 0.04, l: 0.01, c: 0.02, v: 5 },
      { t: T0 + 60, o: 0.005, h: 0.005, l: 0.005, c: 0.005, v: 1 },
    ]);
    const other = await t.http.get(`/v1/token/${tok.address}/candles?${q}&market=${usdc.address}&currency=native`);
    expect(other.body.candles).toEqual([{ t: T0, o: 9, h: 9, l: 9, c: 9, v: 90 }]);
    // usd is the default and may be named
    const named = await t.http.get(`/v1/token/${tok.address}/candles?${q}&market=${sol.address}&currency=usd`);
    expect(named.body).toEqual(usd.body);
  });

  it('refuses a malformed market, native without a market and an unknown currency with 400', async () => {
    const { tok, sol } = seed();
    const base = `/v1/token/${tok.address}/candles?resolution=1&from=${T0}&to=${T0 + 120}`;
    for (const [query, param] of [
      ['&market=not-an-address', 'market'],
      ['&currency=native', 'currency'],
      [`&market=${sol.address}&currency=SOL`, 'currency'],
      ['&currency=eur', 'currency'],
    ] as const) {
      const res = await t.http.get(base + query);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toMatchObject({ code: 'invalid_parameter', param });
    }
  });

  it('answers 404 market_not_found for a market of another token or no market at all', async () => {
    const { tok, foreign } = seed();
    const base = `/v1/token/${tok.address}/candles?resolution=1&from=${T0}&to=${T0 + 120}`;
    for (const market of [foreign.address, anAddress('nomkt')]) {
      const res = await t.http.get(`${base}&market=${market}&currency=native`);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'market_not_found', param: 'market' });
      expect(res.body.error.message).toContain(market);
    }
  });
});

describe('/udf pair symbols', () => {
  it('answers a market address as SYMBOL/QUOTE on its dex, in USD or its quote currency', async () => {
    const { tok, sol } = seed();
    const usd = await t.http.get(`/udf/symbols?symbol=${sol.address}`);
    expect(usd.status).toBe(200);
    expect(usd.body).toMatchObject({
      name: 'BONK/SOL',
      ticker: sol.address,
      exchange: 'raydium',
      listed_exchange: 'raydium',
      description: 'Bonk / SOL on raydium',
      currency_code: 'USD',
      currency_codes: ['USD', 'SOL'],
      pricescale: 1000,
      type: 'crypto',
    });
    expect(usd.body.s).toBeUndefined();
    for (const code of ['SOL', 'sol']) {
      const native = await t.http.get(`/udf/symbols?symbol=${sol.address}&currencyCode=${code}`);
      expect(native.body).toMatchObject({ name: 'BONK/SOL', ticker: sol.address, currency_code: 'SOL', currency_codes: ['USD', 'SOL'] });
      // the last native price is 0.005: four significant digits
      expect(native.body.pricescale).toBe(1_000_000);
    }
    expect((await t.http.get(`/udf/symbols?symbol=raydium:${sol.address}&currencyCode=USD`)).body.name).toBe('BONK/SOL');
    // the token's own symbol offers USD and its market cap (issue 32), never the quote token
    const token = await t.http.get(`/udf/symbols?symbol=${tok.address}`);
    expect(token.body).toMatchObject({ name: 'BONK', ticker: tok.address, currency_code: 'USD' });
    expect(token.body.currency_codes).toEqual(['USD', 'MCAP']);
  });

  it('refuses a currency the symbol does not have, and answers an exchange that is not the dex with 404', async () => {
    const { tok, sol } = seed();
    for (const url of [`/udf/symbols?symbol=${sol.address}&currencyCode=USDC`, `/udf/symbols?symbol=${tok.address}&currencyCode=SOL`]) {
      const res = await t.http.get(url);
      expect(res.status, url).toBe(400);
      expect(res.body).toMatchObject({ s: 'error', error: { code: 'invalid_parameter', param: 'currencyCode' } });
    }
    const res = await t.http.get(`/udf/symbols?symbol=orca:${sol.address}`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ s: 'error', errmsg: 'unknown symbol' });
  });

  it("gives a pair's history in USD or in the quote token as currencyCode asks", async () => {
    const { sol } = seed();
    const q = `/udf/history?symbol=${sol.address}&resolution=1&from=${T0}&to=${T0 + 120}`;
    const usd = await t.http.get(q);
    expect(usd.body).toEqual({ s: 'ok', t: [T0, T0 + 60], o: [2.5, 1.5], h: [3, 1.5], l: [2, 1.5], c: [3, 1.5], v: [625, 300] });
    expect((await t.http.get(`${q}&currencyCode=USD`)).body).toEqual(usd.body);
    const native = await t.http.get(`${q}&currencyCode=SOL`);
    expect(native.body).toEqual({ s: 'ok', t: [T0, T0 + 60], o: [0.04, 0.005], h: [0.04, 0.005], l: [0.01, 0.005], c: [0.02, 0.005], v: [5, 1] });
    const before = await t.http.get(`/udf/history?symbol=${sol.address}&resolution=1&from=${T0 + 600}&to=${T0 + 900}&currencyCode=SOL`);
    expect(before.body).toEqual({ s: 'no_data', nextTime: T0 + 60 });
  });
});
