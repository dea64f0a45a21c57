/**
 * The /v1 token reads in a deployment of several chains (docs/chains.md): one 0x address is a
 * different token on base and on ethereum, and every read names it `chain:address`, answers the
 * plain address with its chain, and never serves one chain's cached answer for the other.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { chainWorld, CHAINS, M, NOW, Q, W, X, type World } from './v1-world.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade, anAddress } from '../helpers/builders.js';

let w: World | undefined;
let one: TestApp | undefined;
afterEach(async () => {
  await w?.t.close();
  await one?.close();
  w = one = undefined;
});

const windowOf = (trades: number, volumeUsd: number, buys: number) => ({
  volumeUsd,
  trades,
  buys,
  sells: trades - buys,
});

describe('/v1/token/{chain:address} on several chains', () => {
  it('answers each chain its own overview, cached per chain (base warmed first, then ethereum)', async () => {
    w = await chainWorld();
    const { t } = w;
    const base = await t.http.get(`/v1/token/base:${X}/overview`);
    expect(base.status).toBe(200);
    expect(base.body).toMatchObject({
      address: X,
      chain: 'base',
      symbol: 'BTK',
      name: 'Base Token',
      decimals: 18,
      priceUsd: 2.5,
      liquidityUsd: 700,
      marketCapUsd: 1250,
      fdvUsd: 2500,
      holders: 1,
      markets: 1,
      lastTradeAt: NOW - 500,
    });
    expect(base.body.windows['24h']).toMatchObject({ ...windowOf(2, 45, 2), uniqueWallets: 1 });
    // The same address on ethereum, right after base's answer was cached.
    const eth = await t.http.get(`/v1/token/ethereum:${X}/overview`);
    expect(eth.status).toBe(200);
    expect(eth.body).toMatchObject({
      address: X,
      chain: 'ethereum',
      symbol: 'ETK',
      name: 'Ether Token',
      decimals: 6,
      priceUsd: 4,
      liquidityUsd: 900,
      marketCapUsd: 4000,
      fdvUsd: 8000,
      holders: 2,
      markets: 1,
      lastTradeAt: NOW - 200,
    });
    expect(eth.body.windows['24h']).toMatchObject(windowOf(3, 105, 0));
    // Read again: each from its own entry.
    expect((await t.http.get(`/v1/token/base:${X}/overview`)).body.symbol).toBe('BTK');
    expect((await t.http.get(`/v1/token/ethereum:${X}/overview`)).body.symbol).toBe('ETK');
  });

  it('names the default chain by the address alone or solana:address, the same token either way', async () => {
    w = await chainWorld();
    const { t } = w;
    const plain = await t.http.get(`/v1/token/${w!.sol}/overview`);
    const named = await t.http.get(`/v1/token/solana:${w!.sol}/overview`);
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ address: w!.sol, chain: 'solana', symbol: 'STK', priceUsd: 1 });
    expect(named.text).toBe(plain.text);
    // X alone is on the default chain, where no token has it.
    const none = await t.http.get(`/v1/token/${X}/overview`);
    expect(none.status).toBe(404);
    expect(none.body.error).toMatchObject({ code: 'token_not_found', message: `no token with address ${X}` });
  });

  it('pages trades per chain: the plain market address with its chain, and a cursor of base refused on ethereum', async () => {
    w = await chainWorld();
    const { t } = w;
    const base = await t.http.get(`/v1/token/base:${X}/trades`);
    expect(base.status).toBe(200);
    expect(base.body.trades.map((x: { signature: string }) => x.signature)).toEqual(['b2', 'b1']);
    expect(base.body.trades[0]).toEqual({
      id: base.body.trades[0].id,
      signature: 'b2',
      index: 0,
      blockTime: NOW - 500,
      side: 'buy',
      priceUsd: 2.5,
      amount: 10,
      quoteAmount: 25,
      volumeUsd: 25,
      wallet: W,
      market: M,
      dex: 'aerodrome',
      chain: 'base',
    });
    const eth = await t.http.get(`/v1/token/ethereum:${X}/trades`);
    expect(eth.body.trades.map((x: { signature: string; chain: string; dex: string }) => `${x.signature}:${x.chain}:${x.dex}`)).toEqual([
      'e3:ethereum:uniswap',
      'e2:ethereum:uniswap',
      'e1:ethereum:uniswap',
    ]);
    const page = await t.http.get(`/v1/token/base:${X}/trades?limit=1`);
    expect(page.body.nextCursor).toEqual(expect.any(String));
    const next = await t.http.get(`/v1/token/base:${X}/trades?limit=1&cursor=${page.body.nextCursor}`);
    expect(next.body.trades.map((x: { signature: string }) => x.signature)).toEqual(['b1']);
    const other = await t.http.get(`/v1/token/ethereum:${X}/trades?limit=1&cursor=${page.body.nextCursor}`);
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('invalid_cursor');
  });

  it('answers candles per chain, and a market only on its own chain', async () => {
    w = await chainWorld();
    const { t } = w;
    const q = `resolution=1&from=${NOW - 3600}&to=${NOW}`;
    const base = await t.http.get(`/v1/token/base:${X}/candles?${q}`);
    expect(base.status).toBe(200);
    expect(base.body.candles).toEqual([
      { t: NOW - 600 - ((NOW - 600) % 60), o: 2, h: 2, l: 2, c: 2, v: 20 },
      { t: NOW - 500 - ((NOW - 500) % 60), o: 2.5, h: 2.5, l: 2.5, c: 2.5, v: 25 },
    ]);
    const eth = await t.http.get(`/v1/token/ethereum:${X}/candles?${q}`);
    expect(eth.body.candles.map((c: { c: number }) => c.c)).toEqual([3, 3.5, 4]);
    // market=chain:address; native prices of base's pool.
    const pool = await t.http.get(`/v1/token/base:${X}/candles?${q}&market=base:${M}&currency=native`);
    expect(pool.status).toBe(200);
    expect(pool.body.candles.map((c: { c: number; v: number }) => [c.c, c.v])).toEqual([
      [2, 20],
      [2.5, 25],
    ]);
    const ethPool = await t.http.get(`/v1/token/ethereum:${X}/candles?${q}&market=ethereum:${M}`);
    expect(ethPool.body.candles.map((c: { c: number }) => c.c)).toEqual([3, 3.5, 4]);
    // ethereum's pool is not a market of base's token; M alone is on the default chain.
    for (const market of [`ethereum:${M}`, M]) {
      const res = await t.http.get(`/v1/token/base:${X}/candles?${q}&market=${market}`);
      expect(res.status, market).toBe(404);
      expect(res.body.error.code).toBe('market_not_found');
    }
  });

  it('answers holders, top traders and markets per chain, markets with their chain', async () => {
    w = await chainWorld();
    const { t } = w;
    const bh = await t.http.get(`/v1/token/base:${X}/holders`);
    expect(bh.body).toEqual({ totalHolders: 1, holders: [{ rank: 1, owner: W, amount: 100, percent: 10, valueUsd: 250 }] });
    const eh = await t.http.get(`/v1/token/ethereum:${X}/holders`);
    expect(eh.body).toEqual({
      totalHolders: 2,
      holders: [
        { rank: 1, owner: W, amount: 300, percent: 15, valueUsd: 1200 },
        { rank: 2, owner: Q, amount: 200, percent: 10, valueUsd: 800 },
      ],
    });
    const bt = await t.http.get(`/v1/token/base:${X}/top-traders`);
    expect(bt.body.traders).toEqual([{ rank: 1, wallet: W, volumeUsd: 45, buyVolumeUsd: 45, sellVolumeUsd: 0, netUsd: -45, trades: 2, buys: 2, sells: 0 }]);
    const et = await t.http.get(`/v1/token/ethereum:${X}/top-traders`);
    expect(et.body.traders.map((x: { volumeUsd: number; sells: number }) => [x.volumeUsd, x.sells])).toEqual([
      [40, 1],
      [35, 1],
      [30, 1],
    ]);
    const bm = await t.http.get(`/v1/token/base:${X}/markets`);
    expect(bm.body.markets).toEqual([
      {
        address: M,
        chain: 'base',
        dex: 'aerodrome',
        quoteAddress: Q,
        quoteSymbol: 'USDT',
        priceUsd: 2.5,
        liquidityUsd: 700,
        volume24hUsd: 45,
        trades24h: 2,
        createdAt: NOW - 4900,
      },
    ]);
    const em = await t.http.get(`/v1/token/ethereum:${X}/markets`);
    expect(em.body.markets).toEqual([
      {
        address: M,
        chain: 'ethereum',
        dex: 'uniswap',
        quoteAddress: Q,
        quoteSymbol: 'USDT',
        priceUsd: 4,
        liquidityUsd: 900,
        volume24hUsd: 105,
        trades24h: 3,
        createdAt: NOW - 3900,
      },
    ]);
  });

  it('answers prices keyed as asked, each with its chain', async () => {
    w = await chainWorld();
    const { t } = w;
    const res = await t.http.get(`/v1/prices?addresses=base:${X},ethereum:${X},${w!.sol},solana:${w!.sol},${X}`);
    expect(res.status).toBe(200);
    expect(res.body.prices).toEqual({
      [`base:${X}`]: { priceUsd: 2.5, priceChangePct24h: null, updatedAt: NOW - 500, chain: 'base' },
      [`ethereum:${X}`]: { priceUsd: 4, priceChangePct24h: null, updatedAt: NOW - 200, chain: 'ethereum' },
      [w!.sol]: { priceUsd: 1, priceChangePct24h: null, updatedAt: NOW - 100, chain: 'solana' },
      [`solana:${w!.sol}`]: { priceUsd: 1, priceChangePct24h: null, updatedAt: NOW - 100, chain: 'solana' },
      [X]: null,
    });
    const at = await t.http.get(`/v1/prices/at?addresses=base:${X},ethereum:${X}&time=${NOW - 350}`);
    expect(at.body.prices[`base:${X}`]).toMatchObject({ priceUsd: 2.5, blockTime: NOW - 500, chain: 'base' });
    expect(at.body.prices[`ethereum:${X}`]).toMatchObject({ priceUsd: 3, blockTime: NOW - 400, chain: 'ethereum' });
  });

  it('refuses an unknown chain or an address malformed on its chain with 400 invalid_address naming the problem', async () => {
    w = await chainWorld();
    const { t } = w;
    const cases: [string, string, string][] = [
      [`/v1/token/polygon:${X}/overview`, 'address', `address: unknown chain "polygon" (chains: ${CHAINS.split(',').join(', ')})`],
      [`/v1/token/base:nope/trades`, 'address', 'address: not a token address on base'],
      [
        `/v1/token/base:${X}/candles?resolution=1&countback=5&market=polygon:${M}`,
        'market',
        `market: unknown chain "polygon" (chains: solana, base, ethereum)`,
      ],
      [`/v1/prices?addresses=base:${X},polygon:${X}`, 'addresses', `addresses: has "polygon:${X}": unknown chain "polygon" (chains: solana, base, ethereum)`],
      [`/v1/prices/at?addresses=base:0x12&time=1`, 'addresses', 'addresses: has "base:0x12": not a token address on base'],
    ];
    for (const [url, param, message] of cases) {
      const res = await t.http.get(url);
      expect(res.status, url).toBe(400);
      expect(res.body.error, url).toEqual({ code: 'invalid_address', message, param, requestId: expect.any(String) });
    }
    // A malformed plain address keeps the error it always had.
    const plain = await t.http.get('/v1/prices?addresses=nope');
    expect(plain.body.error).toMatchObject({ code: 'invalid_parameter', param: 'addresses' });
  });
});

describe('/v1 token reads on one chain', () => {
  it('answers solana:address as the address alone, with no chain field but the overview', async () => {
    one = makeTestApp();
    const sol = anAddress('sol');
    const market = anAddress('mkt');
    await one.ingest([aToken({ address: sol }), aMarket(sol, { address: market })]);
    await one.ingest([aTrade(sol, { market, blockTime: NOW - 100, priceUsd: 1 })]);
    const plain = await one.http.get(`/v1/token/${sol}/markets`);
    expect(plain.body.markets[0]).not.toHaveProperty('chain');
    expect((await one.http.get(`/v1/token/solana:${sol}/markets`)).text).toBe(plain.text);
    const trades = await one.http.get(`/v1/token/solana:${sol}/trades`);
    expect(Object.keys(trades.body.trades[0])).toEqual([
      'id',
      'signature',
      'index',
      'blockTime',
      'side',
      'priceUsd',
      'amount',
      'quoteAmount',
      'volumeUsd',
      'wallet',
      'market',
      'dex',
    ]);
    const prices = await one.http.get(`/v1/prices?addresses=${sol}`);
    expect(prices.body.prices[sol]).toEqual({ priceUsd: 1, priceChangePct24h: null, updatedAt: NOW - 100 });
    expect((await one.http.get(`/v1/token/solana:${sol}/overview`)).body).toMatchObject({ address: sol, chain: 'solana' });
    const other = await one.http.get(`/v1/token/base:${X}/overview`);
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({ code: 'invalid_address', message: 'address: unknown chain "base" (chains: solana)' });
  });
});
