import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, anAddress, homeMarket, withMarket } from '../helpers/builders.js';
import type { TradeRecord } from '../../src/domain/records.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;

/** `n` trades of the token at times before now, the last one at `price`, first ones at `base`. */
function run(token: string, n: number, base: number, price: number, at = NOW - 1000, vol = 1): TradeRecord[] {
  return Array.from({ length: n }, (_, i) => aTrade(token, { blockTime: at + i, priceUsd: i === n - 1 ? price : base, volumeUsd: vol }));
}

const symbols = (body: { tokens: { symbol: string }[] }) => body.tokens.map((x) => x.symbol);

describe('GET /v1/market/trending|gainers|losers|new', () => {
  it('ranks trending by window volume, leaving out tokens without volume in the window', async () => {
    t = makeTestApp();
    const [a, b, c, d] = ['AAA', 'BBB', 'CCC', 'DDD'].map((symbol) => aToken({ symbol, circulatingSupply: 10 }));
    t.ingest([a!, b!, c!, d!, homeMarket(a!.address, { liquidityUsd: 50 }), homeMarket(b!.address), homeMarket(c!.address)]);
    t.ingest([
      ...run(a!.address, 2, 1, 2, NOW - 100, 5),
      ...run(b!.address, 1, 1, 1, NOW - 100, 30),
      ...run(c!.address, 1, 1, 1, NOW - 90_000, 1000), // outside 24 h
    ]);
    const res = await t.http.get('/v1/market/trending');
    expect(res.status).toBe(200);
    expect(res.body.window).toBe('24h');
    expect(res.body.tokens).toEqual([
      {
        rank: 1,
        address: b!.address,
        symbol: 'BBB',
        name: b!.name,
        priceUsd: 1,
        priceChangePct: null,
        volumeUsd: 30,
        trades: 1,
        liquidityUsd: 0,
        marketCapUsd: 10,
        createdAt: b!.createdAt,
      },
      {
        rank: 2,
        address: a!.address,
        symbol: 'AAA',
        name: a!.name,
        priceUsd: 2,
        priceChangePct: null,
        volumeUsd: 10,
        trades: 2,
        liquidityUsd: 50,
        marketCapUsd: 20,
        createdAt: a!.createdAt,
      },
    ]);
    expect(symbols((await t.http.get('/v1/market/trending?minLiquidityUsd=50')).body)).toEqual(['AAA']);
    expect(symbols((await t.http.get('/v1/market/trending?minLiquidityUsd=51')).body)).toEqual([]);
    expect(symbols((await t.http.get('/v1/market/trending?limit=1')).body)).toEqual(['BBB']);
    const week = await t.http.get('/v1/market/trending?window=7d');
    expect(week.body.error).toMatchObject({ code: 'invalid_parameter', param: 'window' });
  });

  it('ranks gainers and losers by price change among tokens with at least 10 trades and a base price', async () => {
    t = makeTestApp();
    const toks = ['UP', 'UP2', 'DOWN', 'FEW', 'NOBASE'].map((symbol) => aToken({ symbol }));
    t.ingest(toks.flatMap((x) => withMarket(x)));
    const [up, up2, down, few, nobase] = toks.map((x) => x.address) as [string, string, string, string, string];
    t.ingest([
      aTrade(up, { blockTime: NOW - 7200, priceUsd: 1 }),
      ...run(up, 10, 1, 3, NOW - 600), // +200 %
      aTrade(up2, { blockTime: NOW - 7200, priceUsd: 2 }),
      ...run(up2, 10, 2, 3, NOW - 600), // +50 %
      aTrade(down, { blockTime: NOW - 7200, priceUsd: 4 }),
      ...run(down, 12, 4, 1, NOW - 600), // -75 %
      aTrade(few, { blockTime: NOW - 7200, priceUsd: 1 }),
      ...run(few, 9, 1, 100, NOW - 600), // too few trades
      ...run(nobase, 20, 1, 50, NOW - 600), // no trade at or before now - 1h
    ]);
    const gainers = await t.http.get('/v1/market/gainers?window=1h');
    expect(symbols(gainers.body)).toEqual(['UP', 'UP2', 'DOWN']);
    expect(gainers.body.tokens[0]).toMatchObject({ priceChangePct: 200, trades: 10 });
    expect(gainers.body.window).toBe('1h');
    expect(symbols((await t.http.get('/v1/market/losers?window=1h')).body)).toEqual(['DOWN', 'UP2', 'UP']);
    // over 24 h no token has a base price, so nothing qualifies
    expect(symbols((await t.http.get('/v1/market/gainers')).body)).toEqual([]);
  });

  it('lists new tokens by createdAt, newest first, ties by address, with window null', async () => {
    t = makeTestApp();
    const old = aToken({ symbol: 'OLD', createdAt: 1000 });
    const x = aToken({ symbol: 'X', createdAt: 5000, address: '1111111111111111111111111111111X' });
    const w = aToken({ symbol: 'W', createdAt: 5000, address: '1111111111111111111111111111111W' });
    t.ingest([old, x, w]);
    const res = await t.http.get('/v1/market/new');
    expect(res.body.window).toBeNull();
    expect(symbols(res.body)).toEqual(['W', 'X', 'OLD']);
    expect(res.body.tokens.map((r: { rank: number }) => r.rank)).toEqual([1, 2, 3]);
    expect(symbols((await t.http.get('/v1/market/new?limit=1')).body)).toEqual(['W']);
    expect((await t.http.get('/v1/market/new?limit=101')).body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
  });

  it.each(['limit=0', 'limit=101', 'minLiquidityUsd=-1', 'minLiquidityUsd=1.5', 'window=24H', 'limit=5&limit=5'])(
    'answers trending?%s with 400 invalid_parameter',
    async (q) => {
      t = makeTestApp();
      const res = await t.http.get(`/v1/market/trending?${q}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_parameter');
      expect(res.body.error.param).toBe(q.split('=')[0]);
    },
  );
});

describe('GET /v1/search', () => {
  it('orders exact address, exact symbol, symbol prefix, name contains, each by 24 h volume, each token once', async () => {
    t = makeTestApp();
    const target = aToken({ symbol: 'ZZZ', name: 'Target' });
    const exactLow = aToken({ symbol: 'abc', name: 'Low volume' });
    const exactHigh = aToken({ symbol: 'ABC', name: 'High volume abc' }); // also a name match: listed once, as symbol
    const prefix = aToken({ symbol: 'ABCD', name: 'Prefix' });
    const named = aToken({ symbol: 'QQ', name: 'The aBc token' });
    const none = aToken({ symbol: 'NOPE', name: 'Nothing' });
    t.ingest([target, ...withMarket(exactLow), ...withMarket(exactHigh), prefix, named, none]);
    t.ingest([
      aTrade(exactLow.address, { volumeUsd: 5, blockTime: NOW - 10 }),
      aTrade(exactHigh.address, { volumeUsd: 50, blockTime: NOW - 10 }),
      aTrade(exactHigh.address, { volumeUsd: 5000, blockTime: NOW - 90_000 }), // outside 24 h
    ]);
    const res = await t.http.get('/v1/search?q=abc');
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { symbol: string; matchedBy: string }) => [r.symbol, r.matchedBy])).toEqual([
      ['ABC', 'symbol'],
      ['abc', 'symbol'],
      ['ABCD', 'symbolPrefix'],
      ['QQ', 'name'],
    ]);
    expect(res.body.results[0]).toEqual({
      address: exactHigh.address,
      symbol: 'ABC',
      name: 'High volume abc',
      priceUsd: 1,
      liquidityUsd: 0,
      volume24hUsd: 50,
      matchedBy: 'symbol',
    });
    const byAddress = await t.http.get(`/v1/search?q=${target.address}`);
    expect(byAddress.body.results).toHaveLength(1);
    expect(byAddress.body.results[0]).toMatchObject({ address: target.address, matchedBy: 'address' });
    expect((await t.http.get('/v1/search?q=abc&limit=2')).body.results).toHaveLength(2);
  });

  it('matches % and _ literally', async () => {
    t = makeTestApp();
    t.ingest([aToken({ symbol: 'PCT', name: '100% pure' }), aToken({ symbol: 'UND', name: 'snake_case' }), aToken({ symbol: 'PLAIN', name: 'Plain' })]);
    const names = async (q: string) => (await t.http.get('/v1/search').query({ q })).body.results.map((r: { name: string }) => r.name);
    expect(await names('%')).toEqual(['100% pure']);
    expect(await names('_')).toEqual(['snake_case']);
    expect(await names('e_c')).toEqual(['snake_case']);
    expect(await names('%%')).toEqual([]);
    expect(await names("' OR 1=1 --")).toEqual([]);
  });

  it('finds an EVM-style address in any case, and names the address match', async () => {
    t = makeTestApp();
    const address = '0x' + 'cd'.repeat(20);
    t.ingest([aToken({ address })]);
    const res = await t.http.get(`/v1/search?q=0x${'CD'.repeat(20)}`);
    expect(res.body.results).toEqual([expect.objectContaining({ address, matchedBy: 'address' })]);
  });

  it.each([
    ['', 'q'],
    ['q=' + 'x'.repeat(65), 'q'],
    ['q=a&q=b', 'q'],
    ['q=a&limit=0', 'limit'],
    ['q=a&limit=101', 'limit'],
  ])('answers ?%s with 400 invalid_parameter naming %s', async (query, param) => {
    t = makeTestApp();
    const res = await t.http.get(`/v1/search?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('accepts a 64-character query, counting characters rather than UTF-16 units', async () => {
    t = makeTestApp();
    expect((await t.http.get(`/v1/search?q=${'x'.repeat(64)}`)).status).toBe(200);
    expect((await t.http.get(`/v1/search?q=${encodeURIComponent('😀'.repeat(64))}`)).status).toBe(200);
    expect((await t.http.get(`/v1/search?q=${encodeURIComponent('😀'.repeat(65))}`)).status).toBe(400);
  });
});

describe('GET /v1/prices', () => {
  it('answers the price, 24 h change and last trade time of each address asked, null for unknown tokens', async () => {
    t = makeTestApp();
    const a = aToken();
    const evm = '0x' + 'ef'.repeat(20);
    const unknown = anAddress();
    t.ingest([...withMarket(a), aToken({ address: evm })]);
    t.ingest([aTrade(a.address, { blockTime: NOW - 90_000, priceUsd: 2 }), aTrade(a.address, { blockTime: NOW - 10, priceUsd: 3 })]);
    t.clock.advance(10_000);
    const asked = '0x' + 'EF'.repeat(20);
    const res = await t.http.get(`/v1/prices?addresses=${a.address},${unknown},${asked}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      prices: {
        [a.address]: { priceUsd: 3, priceChangePct24h: 50, updatedAt: NOW - 10 },
        [unknown]: null,
        [asked]: { priceUsd: null, priceChangePct24h: null, updatedAt: null },
      },
    });
  });

  it('keeps updatedAt at the last trade when a later ingest touches the token, and moves it with a newer trade', async () => {
    t = makeTestApp();
    const a = aToken();
    t.ingest([...withMarket(a), aTrade(a.address, { blockTime: NOW - 7200, priceUsd: 2 })]);
    t.clock.advance(3_600_000);
    // An hour later: the token's record again, an older trade backfilled, holders; no newer trade.
    t.ingest([a, aTrade(a.address, { blockTime: NOW - 9000, priceUsd: 1 })]);
    const quiet = await t.http.get(`/v1/prices?addresses=${a.address}`);
    expect(quiet.body.prices[a.address]).toMatchObject({ priceUsd: 2, updatedAt: NOW - 7200 });
    t.ingest([aTrade(a.address, { blockTime: NOW + 100, priceUsd: 4 })]);
    const moved = await t.http.get(`/v1/prices?addresses=${a.address}`);
    expect(moved.body.prices[a.address]).toMatchObject({ priceUsd: 4, updatedAt: NOW + 100 });
  });

  it('refuses a malformed address, more than 100 addresses, an empty item, or a repeated parameter with 400 naming addresses', async () => {
    t = makeTestApp();
    const many = Array.from({ length: 101 }, () => anAddress()).join(',');
    const exactly = Array.from({ length: 100 }, () => anAddress()).join(',');
    for (const q of [`addresses=${anAddress()},nope`, `addresses=${many}`, `addresses=${anAddress()},`, `addresses=a&addresses=b`, '']) {
      const res = await t.http.get(`/v1/prices?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'addresses' });
    }
    const bad = await t.http.get(`/v1/prices?addresses=${anAddress()},nope`);
    expect(bad.body.error.message).toContain('"nope"');
    const ok = await t.http.get(`/v1/prices?addresses=${exactly}`);
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body.prices)).toHaveLength(100);
  });
});
