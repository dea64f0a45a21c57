/**
 * The chart features of issue 32 as the stock UDF adapter (UDFCompatibleDatafeed) asks for them,
 * its URLs exactly (parameter order, the currencyCode it adds from the currency menu, its marks
 * request, plus the wallet= a page's fetch wrapper adds; docs/api.md, Which datafeed and Chart
 * features). The licensed Charting Library itself is not available here: these are its requests.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aTrade, anAddress } from '../helpers/builders.js';
import { addToken } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

/** 2024-01-10T00:00:00Z. */
const START = 1_704_844_800;
const get = (url: string) => t.http.get(url);

describe('the currency menu of a token (USD, MCAP)', () => {
  it('resolves, charts and polls the token in MCAP, then back in USD, with the scale of each', async () => {
    t = makeTestApp();
    const tok = addToken(t, { symbol: 'MENU', circulatingSupply: 4_000_000 }, { orca: 10 });
    t.ingest([
      aTrade(tok.address, { blockTime: START + 30, priceUsd: 0.0125, volumeUsd: 5 }),
      aTrade(tok.address, { blockTime: START + 960, priceUsd: 0.015, volumeUsd: 2 }),
    ]);
    // the chart opens in USD: the symbol offers the menu
    const usd = await get(`/udf/symbols?symbol=orca%3AMENU`);
    expect(usd.body).toMatchObject({ ticker: tok.address, currency_code: 'USD', currency_codes: ['USD', 'MCAP'], pricescale: 100_000 });
    // the user picks MCAP: the adapter resolves again with currencyCode, then asks for history with it
    const cap = await get(`/udf/symbols?symbol=orca%3AMENU&currencyCode=MCAP`);
    expect(cap.body).toMatchObject({ ticker: tok.address, currency_code: 'MCAP', currency_codes: ['USD', 'MCAP'], pricescale: 100 });
    const bars = await get(`/udf/history?symbol=${tok.address}&resolution=15&from=${START - 86_400}&to=${START + 3600}&countback=300&currencyCode=MCAP`);
    expect(bars.body).toEqual({
      s: 'ok',
      t: [START, START + 900],
      o: [50_000, 60_000],
      h: [50_000, 60_000],
      l: [50_000, 60_000],
      c: [50_000, 60_000],
      v: [5, 2],
    });
    // its poll of the newest bars, in MCAP too
    const poll = await get(`/udf/history?symbol=${tok.address}&resolution=15&from=${START}&to=${START + 3600}&countback=2&currencyCode=MCAP`);
    expect(poll.body.c).toEqual([50_000, 60_000]);
    // back to USD
    const back = await get(`/udf/history?symbol=${tok.address}&resolution=15&from=${START - 86_400}&to=${START + 3600}&countback=300&currencyCode=USD`);
    expect(back.body.c).toEqual([0.0125, 0.015]);
  });
});

describe('marks, as the adapter asks for them', () => {
  it('answers marks?symbol&from&to&resolution with the wallet the fetch wrapper adds, and none without it', async () => {
    t = makeTestApp();
    const tok = addToken(t, { symbol: 'MARKS' });
    const wallet = anAddress('wal');
    t.ingest([
      aTrade(tok.address, { blockTime: START + 100, wallet, side: 'buy', amount: 2, priceUsd: 3, volumeUsd: 6 }),
      aTrade(tok.address, { blockTime: START + 200, side: 'sell' }),
      aTrade(tok.address, { blockTime: START + 300, wallet, side: 'sell', amount: 1, priceUsd: 4, volumeUsd: 4 }),
    ]);
    const plain = await get(`/udf/marks?symbol=${tok.address}&from=${START}&to=${START + 86_400}&resolution=15`);
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({ id: [], time: [], color: [], text: [], label: [], labelFontColor: [], minSize: [] });
    const mine = await get(`/udf/marks?symbol=${tok.address}&from=${START}&to=${START + 86_400}&resolution=15&wallet=${wallet}`);
    expect(mine.body).toMatchObject({
      time: [START + 100, START + 300],
      label: ['B', 'S'],
      color: ['#26a69a', '#ef5350'],
      text: ['Buy 2 MARKS at $3 ($6) on 2024-01-10 00:01:40 UTC', 'Sell 1 MARKS at $4 ($4) on 2024-01-10 00:05:00 UTC'],
    });
  });
});
