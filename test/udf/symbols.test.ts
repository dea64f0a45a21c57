/** /udf/config, /udf/symbols, /udf/search and /udf/time (docs/api.md, TradingView UDF datafeed). */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken } from '../helpers/builders.js';
import { addToken, addTrades } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

const RESOLUTIONS = ['1S', '5S', '15S', '30S', '1', '5', '15', '30', '60', '240', '1D', '1W', '1M'];

describe('/udf/config', () => {
  it('lists the contract flags, one exchange per dex plus All, and the resolutions', async () => {
    t = makeTestApp();
    addToken(t, {}, { raydium: 1, orca: 2 });
    addToken(t, {}, { raydium: 3 });
    const res = await t.http.get('/udf/config');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      supports_search: true,
      supports_group_request: false,
      supports_time: true,
      supports_marks: true,
      supports_timescale_marks: false,
      supported_resolutions: RESOLUTIONS,
    });
    expect(res.body.exchanges.map((e: { value: string }) => e.value)).toEqual(['', 'orca', 'raydium']);
    expect(res.body.symbols_types).toEqual([{ name: 'Crypto', value: 'crypto' }]);
  });
});

describe('/udf/symbols', () => {
  it('answers symbol info by address with every field of the contract and no s field', async () => {
    t = makeTestApp();
    const tok = addToken(t, { symbol: 'BONK', name: 'Bonk' }, { raydium: 5, orca: 50 });
    addTrades(t, tok.address, [[1_699_990_000, 0.0000213]]);
    const res = await t.http.get('/udf/symbols').query({ symbol: tok.address });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('s');
    expect(res.body).toEqual({
      name: 'BONK',
      ticker: tok.address,
      description: 'Bonk',
      type: 'crypto',
      session: '24x7',
      timezone: 'Etc/UTC',
      exchange: 'orca',
      listed_exchange: 'orca',
      format: 'price',
      pricescale: 100_000_000,
      minmov: 1,
      has_intraday: true,
      has_seconds: true,
      seconds_multipliers: ['1', '5', '15', '30'],
      intraday_multipliers: ['1', '5', '15', '30', '60', '240'],
      has_daily: true,
      has_weekly_and_monthly: true,
      supported_resolutions: RESOLUTIONS,
      volume_precision: 2,
      visible_plots_set: 'ohlcv',
      data_status: 'streaming',
      currency_code: 'USD',
      currency_codes: ['USD', 'MCAP'],
    });
  });

  it('finds EVM-style addresses in any letter case', async () => {
    t = makeTestApp();
    const address = '0x' + 'ab'.repeat(20);
    addToken(t, { address, symbol: 'EVM' });
    const res = await t.http.get('/udf/symbols').query({ symbol: address.toUpperCase().replace('0X', '0x') });
    expect(res.body.ticker).toBe(address);
  });

  it('finds a symbol case-insensitively, the most liquid token winning (summed over its markets)', async () => {
    t = makeTestApp();
    addToken(t, { symbol: 'DOG' }, { raydium: 900 });
    const summed = addToken(t, { symbol: 'dog' }, { raydium: 600, orca: 600 });
    addToken(t, { symbol: 'DOG' }, {});
    for (const s of ['DOG', 'dog', 'Dog']) {
      const res = await t.http.get('/udf/symbols').query({ symbol: s });
      expect(res.body.ticker, s).toBe(summed.address);
    }
  });

  it('breaks liquidity ties by address', async () => {
    t = makeTestApp();
    const a = addToken(t, { symbol: 'TIE' }, { raydium: 5 });
    const b = addToken(t, { symbol: 'TIE' }, { orca: 5 });
    const res = await t.http.get('/udf/symbols').query({ symbol: 'TIE' });
    expect(res.body.ticker).toBe([a.address, b.address].sort()[0]);
  });

  it('resolves EXCHANGE:SYMBOL to the most liquid token with a market on that dex; an empty exchange is All', async () => {
    t = makeTestApp();
    const big = addToken(t, { symbol: 'CAT' }, { raydium: 1000 });
    const small = addToken(t, { symbol: 'CAT' }, { orca: 10 });
    const onOrca = await t.http.get('/udf/symbols').query({ symbol: 'orca:CAT' });
    expect(onOrca.body).toMatchObject({ ticker: small.address, exchange: 'orca' });
    expect((await t.http.get('/udf/symbols').query({ symbol: 'ORCA:cat' })).body.ticker).toBe(small.address);
    expect((await t.http.get('/udf/symbols').query({ symbol: 'raydium:CAT' })).body.ticker).toBe(big.address);
    expect((await t.http.get('/udf/symbols').query({ symbol: ':CAT' })).body).toMatchObject({ ticker: big.address, exchange: 'raydium' });
    expect((await t.http.get('/udf/symbols').query({ symbol: `orca:${small.address}` })).body.ticker).toBe(small.address);
    const elsewhere = await t.http.get('/udf/symbols').query({ symbol: 'meteora:CAT' });
    expect(elsewhere.status).toBe(404);
    const wrongDex = await t.http.get('/udf/symbols').query({ symbol: `orca:${big.address}` });
    expect(wrongDex.status).toBe(404);
  });

  it('answers an unknown symbol with 404 in the combined UDF and API error form', async () => {
    t = makeTestApp();
    const res = await t.http.get('/udf/symbols').query({ symbol: 'NOPE' }).set('X-Request-Id', 'req-1');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      s: 'error',
      errmsg: 'unknown symbol',
      error: { code: 'token_not_found', message: 'unknown symbol', param: 'symbol', requestId: 'req-1' },
    });
  });

  it('refuses a missing, repeated or over-long symbol with 400', async () => {
    t = makeTestApp();
    for (const q of ['', 'symbol=', 'symbol=A&symbol=B', `symbol=${'x'.repeat(201)}`, 'symbol=A&currencyCode=EUR']) {
      const res = await t.http.get(`/udf/symbols?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body).toMatchObject({ s: 'error', error: { code: 'invalid_parameter' } });
    }
  });

  it('sets pricescale from the last trade price: four significant digits, at least cents; 10^10 without trades', async () => {
    t = makeTestApp();
    const cases: [number | null, number][] = [
      [null, 10_000_000_000],
      [1234.5, 100],
      [12.5, 100],
      [1, 1000],
      [0.5, 10_000],
      [0.001, 1_000_000],
      [0.000999, 10_000_000],
    ];
    for (const [price, scale] of cases) {
      const tok = addToken(t);
      if (price !== null)
        addTrades(t, tok.address, [
          [1_699_000_000, price * 3],
          [1_699_000_001, price],
        ]);
      const res = await t.http.get('/udf/symbols').query({ symbol: tok.address });
      expect(res.body.pricescale, String(price)).toBe(scale);
    }
  });

  it('shows the chain as the exchange of a token without markets', async () => {
    t = makeTestApp();
    const tok = aToken({ symbol: 'LONE' });
    t.ingest([tok]);
    const res = await t.http.get('/udf/symbols').query({ symbol: 'LONE' });
    expect(res.body).toMatchObject({ ticker: tok.address, exchange: 'solana', listed_exchange: 'solana' });
  });
});

describe('/udf/search', () => {
  const search = (q: Record<string, string | number>) => t.http.get('/udf/search').query(q);

  it('lists the most liquid tokens for an empty query, limit 30 by default', async () => {
    t = makeTestApp();
    const made = Array.from({ length: 35 }, (_, i) => addToken(t, { symbol: `T${i}` }, { raydium: (i * 37) % 101 }));
    const res = await search({});
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(30);
    const expected = made
      .map((tok, i) => ({ address: tok.address, liq: (i * 37) % 101 }))
      .sort((a, b) => b.liq - a.liq || (a.address < b.address ? -1 : 1))
      .slice(0, 30)
      .map((x) => x.address);
    expect(res.body.map((r: { ticker: string }) => r.ticker)).toEqual(expected);
    expect((await search({ query: '' })).body).toEqual(res.body);
    expect(await search({ limit: 100 }).then((r) => r.body.length)).toBe(35);
  });

  it('answers items with symbol, full_name, description, exchange, ticker and type', async () => {
    t = makeTestApp();
    const tok = addToken(t, { symbol: 'WIF', name: 'dogwifhat' }, { orca: 5 });
    const res = await search({ query: 'WIF' });
    expect(res.body).toEqual([{ symbol: 'WIF', full_name: 'orca:WIF', description: 'dogwifhat', exchange: 'orca', ticker: tok.address, type: 'crypto' }]);
  });

  it('matches symbol prefixes, names and addresses case-insensitively, exact symbols first', async () => {
    t = makeTestApp();
    const bonk = addToken(t, { symbol: 'BONK', name: 'Bonk' }, { raydium: 1 });
    const bonkai = addToken(t, { symbol: 'BONKAI', name: 'Bonk AI' }, { raydium: 100 });
    const named = addToken(t, { symbol: 'XYZ', name: 'Super bonk' }, { raydium: 1000 });
    addToken(t, { symbol: 'ABONK', name: 'Other' }, { raydium: 5000 });
    const tickers = async (query: string) => (await search({ query })).body.map((r: { ticker: string }) => r.ticker);
    expect(await tickers('BONK')).toEqual([bonk.address, bonkai.address, named.address]);
    expect(await tickers('bonk')).toEqual([bonk.address, bonkai.address, named.address]);
    expect(await tickers('super B')).toEqual([named.address]);
    // the adapter upper-cases what the user typed; addresses still match by prefix
    expect(await tickers(bonkai.address.slice(0, 20).toUpperCase())).toContain(bonkai.address);
    expect(await tickers(bonkai.address)).toEqual([bonkai.address]);
  });

  it('takes % and _ literally', async () => {
    t = makeTestApp();
    const pct = addToken(t, { symbol: '100%', name: 'Percent' });
    const under = addToken(t, { symbol: 'A_B', name: 'Under' });
    addToken(t, { symbol: 'AXB', name: 'Plain' });
    addToken(t, { symbol: '1000X', name: 'Thousand' });
    const tickers = async (query: string) => (await search({ query })).body.map((r: { ticker: string }) => r.ticker);
    expect(await tickers('100%')).toEqual([pct.address]);
    expect(await tickers('%')).toEqual([]);
    expect(await tickers('A_')).toEqual([under.address]);
    expect(await tickers('\\')).toEqual([]);
  });

  it('filters by exchange and type', async () => {
    t = makeTestApp();
    const both = addToken(t, { symbol: 'AAA' }, { raydium: 100, orca: 1 });
    addToken(t, { symbol: 'AAB' }, { raydium: 50 });
    const onOrca = await search({ query: 'AA', exchange: 'orca' });
    expect(onOrca.body).toEqual([expect.objectContaining({ ticker: both.address, exchange: 'orca', full_name: 'orca:AAA' })]);
    expect((await search({ query: 'AA', exchange: 'nowhere' })).body).toEqual([]);
    expect((await search({ query: 'AA', type: 'crypto' })).body).toHaveLength(2);
    expect((await search({ query: 'AA', type: 'stock' })).body).toEqual([]);
  });

  it('refuses a bad limit or an over-long query with 400', async () => {
    t = makeTestApp();
    for (const q of ['limit=0', 'limit=101', 'limit=1e1', 'limit=-1', 'limit=010', 'limit=1&limit=2', `query=${'q'.repeat(101)}`]) {
      const res = await t.http.get(`/udf/search?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body).toMatchObject({ s: 'error', error: { code: 'invalid_parameter' } });
    }
  });
});

describe('/udf/time', () => {
  it('answers the server clock as a bare integer', async () => {
    t = makeTestApp();
    t.clock.set(1_712_345_678_900);
    const res = await t.http.get('/udf/time');
    expect(res.status).toBe(200);
    expect(res.text).toBe('1712345678');
    expect(Number.parseInt(res.text, 10)).toBe(1_712_345_678);
  });
});
