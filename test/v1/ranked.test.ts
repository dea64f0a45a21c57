/**
 * The ranked token reads: top traders (against a naive ranking of the raw trades), holders and
 * markets, with their defaults and bad inputs. SQLite's rebuild of the read views:
 * test/v1/ranked-sqlite.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aHolder, aMarket, aToken, aTrade, anAddress, withMarket } from '../helpers/builders.js';
import { inWindow, naiveTraders, readRawTrades, readTokenId, sum } from './naive.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;
const TRADER_WINDOWS = { '1h': 3600, '6h': 21600, '24h': 86400, '7d': 604800, '30d': 2592000 } as const;

describe('GET /v1/token/:address/top-traders', () => {
  it('equals a naive ranking of the raw trades for every window and sort, backfill and future trades included', async () => {
    // One store for every run (a fresh PostgreSQL database per run would cost more than the run):
    // each run has a token and wallets of its own and trades around the clock's time at its start.
    // The anonymous limit is raised for the 450 requests.
    t = makeTestApp({ env: { RATE_LIMIT_ANON: '100000000/60' } });
    const app = t;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            dt: fc.oneof(
              fc.integer({ min: -31 * 86400, max: 20 }),
              fc.integer({ min: -7200, max: 0 }),
              fc.constantFrom(-3600, -3599, -86400, -86399, -604800, 0, 1),
            ),
            vol: fc.integer({ min: 0, max: 1000 }),
            buy: fc.boolean(),
            w: fc.integer({ min: 0, max: 6 }),
          }),
          { maxLength: 80 },
        ),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 90_000 }),
        async (rows, split, advance) => {
          const start = app.clock.seconds();
          const tok = aToken();
          const wallets = Array.from({ length: 7 }, () => anAddress('w'));
          await app.ingest(withMarket(tok));
          const trades = rows.map((r) =>
            aTrade(tok.address, { blockTime: start + r.dt, volumeUsd: r.vol, side: r.buy ? 'buy' : 'sell', wallet: wallets[r.w]! }),
          );
          const cut = Math.min(split, trades.length);
          if (cut < trades.length) await app.ingest(trades.slice(cut));
          if (cut > 0) await app.ingest(trades.slice(0, cut));
          app.clock.advance(advance * 1000);
          const now = app.clock.seconds();
          const all = await readRawTrades(app.store, await readTokenId(app.store, tok.address));
          for (const [window, w] of Object.entries(TRADER_WINDOWS)) {
            for (const sort of ['volume', 'trades', 'net'] as const) {
              const res = await app.http.get(`/v1/token/${tok.address}/top-traders?window=${window}&sort=${sort}&limit=1000`);
              expect(res.status).toBe(200);
              expect(res.body).toEqual({ window, traders: naiveTraders(inWindow(all, now, w), sort) });
            }
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('defaults to window 24h, sort volume, limit 100, and cuts the list at limit', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest(withMarket(tok));
    t.ingest(Array.from({ length: 130 }, (_, i) => aTrade(tok.address, { blockTime: NOW - 100, volumeUsd: i + 1 })));
    t.ingest([aTrade(tok.address, { blockTime: NOW - 90_000, volumeUsd: 1e9 })]); // outside 24 h
    const res = await t.http.get(`/v1/token/${tok.address}/top-traders`);
    expect(res.body.window).toBe('24h');
    expect(res.body.traders).toHaveLength(100);
    expect(res.body.traders[0]).toMatchObject({ rank: 1, volumeUsd: 130 });
    expect(res.body.traders[99]).toMatchObject({ rank: 100, volumeUsd: 31 });
    const three = await t.http.get(`/v1/token/${tok.address}/top-traders?limit=3&sort=trades`);
    expect(three.body.traders.map((x: { rank: number }) => x.rank)).toEqual([1, 2, 3]);
  });

  it.each([
    ['window=5m', 'window'],
    ['window=2h', 'window'],
    ['sort=price', 'sort'],
    ['sort=Volume', 'sort'],
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=1e2', 'limit'],
    ['window=1h&window=6h', 'window'],
  ])('answers ?%s with 400 invalid_parameter naming %s', async (query, param) => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest(withMarket(tok));
    const res = await t.http.get(`/v1/token/${tok.address}/top-traders?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
  });
});

describe('GET /v1/token/:address/holders', () => {
  it('ranks holders by amount, ties by owner, with percent of the total supply and the total count', async () => {
    t = makeTestApp();
    const tok = aToken({ totalSupply: 2000 });
    const owners = ['1111111111111111111111111111111C', '1111111111111111111111111111111B', '1111111111111111111111111111111A'];
    t.ingest([
      tok,
      aHolder(tok.address, { owner: owners[0], amount: 50 }),
      aHolder(tok.address, { owner: owners[1], amount: 50 }),
      aHolder(tok.address, { owner: owners[2], amount: 10 }),
    ]);
    t.ingest([aHolder(tok.address, { owner: owners[2], amount: 500 }), aHolder(tok.address, { amount: 0 })]);
    const res = await t.http.get(`/v1/token/${tok.address}/holders`);
    expect(res.body).toEqual({
      totalHolders: 3,
      holders: [
        { rank: 1, owner: owners[2], amount: 500, percent: 25, valueUsd: null },
        { rank: 2, owner: owners[1], amount: 50, percent: 2.5, valueUsd: null },
        { rank: 3, owner: owners[0], amount: 50, percent: 2.5, valueUsd: null },
      ],
    });
    const one = await t.http.get(`/v1/token/${tok.address}/holders?limit=1`);
    expect(one.body).toEqual({ totalHolders: 3, holders: [{ rank: 1, owner: owners[2], amount: 500, percent: 25, valueUsd: null }] });
    // an amount of 0 removes the holder
    t.ingest([aHolder(tok.address, { owner: owners[2], amount: 0 })]);
    expect((await t.http.get(`/v1/token/${tok.address}/holders`)).body.totalHolders).toBe(2);
  });

  it('values each holding at the last trade price, and follows the next trade', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest([...withMarket(tok), aHolder(tok.address, { amount: 400 }), aTrade(tok.address, { blockTime: 1_699_999_000, priceUsd: 0.25 })]);
    expect((await t.http.get(`/v1/token/${tok.address}/holders`)).body.holders[0].valueUsd).toBe(100);
    t.ingest([aTrade(tok.address, { blockTime: 1_699_999_100, priceUsd: 0.5 })]);
    expect((await t.http.get(`/v1/token/${tok.address}/holders`)).body.holders[0].valueUsd).toBe(200);
  });

  it('gives null percent when the total supply is null or 0', async () => {
    t = makeTestApp();
    for (const totalSupply of [null, 0]) {
      const tok = aToken({ totalSupply });
      t.ingest([tok, aHolder(tok.address, { amount: 5 })]);
      const res = await t.http.get(`/v1/token/${tok.address}/holders`);
      expect(res.body.holders[0].percent).toBeNull();
    }
  });

  it('answers 404 for an unknown token and 400 for a bad limit', async () => {
    t = makeTestApp();
    expect((await t.http.get(`/v1/token/${anAddress()}/holders`)).status).toBe(404);
    const tok = aToken();
    t.ingest(withMarket(tok));
    const res = await t.http.get(`/v1/token/${tok.address}/holders?limit=1001`);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit', message: 'limit must be an integer from 1 to 1000' });
  });
});

describe('GET /v1/token/:address/markets', () => {
  it('lists markets by liquidity (ties by address) with the last price, 24 h volume and trades of each', async () => {
    t = makeTestApp();
    const tok = aToken();
    const big = aMarket(tok.address, { liquidityUsd: 900, dex: 'orca', address: '1111111111111111111111111111111Z' });
    const tieB = aMarket(tok.address, { liquidityUsd: 100, address: '1111111111111111111111111111111B' });
    const tieA = aMarket(tok.address, { liquidityUsd: 100, address: '1111111111111111111111111111111A' });
    t.ingest([tok, big, tieB, tieA]);
    t.ingest([
      aTrade(tok.address, { market: big.address, blockTime: NOW - 50, priceUsd: 3, volumeUsd: 10 }),
      aTrade(tok.address, { market: big.address, blockTime: NOW - 86399, priceUsd: 2, volumeUsd: 5 }),
      aTrade(tok.address, { market: big.address, blockTime: NOW - 86400, priceUsd: 1, volumeUsd: 1000 }),
      aTrade(tok.address, { market: tieB.address, blockTime: NOW - 90_000, priceUsd: 7, volumeUsd: 1 }),
    ]);
    t.ingest([aTrade(tok.address, { market: big.address, blockTime: NOW - 60, priceUsd: 9, volumeUsd: 1 })]); // backfill: not the last
    const res = await t.http.get(`/v1/token/${tok.address}/markets`);
    expect(res.status).toBe(200);
    expect(res.body.markets).toEqual([
      {
        address: big.address,
        dex: 'orca',
        quoteAddress: big.quoteAddress,
        quoteSymbol: 'SOL',
        priceUsd: 3,
        liquidityUsd: 900,
        volume24hUsd: 16,
        trades24h: 3,
        createdAt: big.createdAt,
      },
      {
        address: tieA.address,
        dex: 'raydium',
        quoteAddress: tieA.quoteAddress,
        quoteSymbol: 'SOL',
        priceUsd: null,
        liquidityUsd: 100,
        volume24hUsd: 0,
        trades24h: 0,
        createdAt: tieA.createdAt,
      },
      {
        address: tieB.address,
        dex: 'raydium',
        quoteAddress: tieB.quoteAddress,
        quoteSymbol: 'SOL',
        priceUsd: 7,
        liquidityUsd: 100,
        volume24hUsd: 0,
        trades24h: 0,
        createdAt: tieB.createdAt,
      },
    ]);
    const two = await t.http.get(`/v1/token/${tok.address}/markets?limit=2`);
    expect(two.body.markets.map((m: { address: string }) => m.address)).toEqual([big.address, tieA.address]);
  });

  it('equals a naive 24 h computation per market as time moves', async () => {
    t = makeTestApp();
    const tok = aToken();
    const ms = [aMarket(tok.address), aMarket(tok.address), aMarket(tok.address)];
    t.ingest([tok, ...ms]);
    const trades = Array.from({ length: 300 }, (_, i) =>
      aTrade(tok.address, { market: ms[i % 3]!.address, blockTime: NOW - ((i * 7919) % 100_000), volumeUsd: (i * 31) % 97 }),
    );
    await t.ingest(trades.slice(150));
    await t.ingest(trades.slice(0, 150));
    const all = await readRawTrades(t.store, await readTokenId(t.store, tok.address));
    for (const step of [0, 1, 59, 3600, 5000]) {
      t.clock.advance(step * 1000);
      const now = t.clock.seconds();
      const res = await t.http.get(`/v1/token/${tok.address}/markets`);
      for (const m of res.body.markets) {
        const inW = inWindow(all, now, 86400).filter((x) => x.market === m.address);
        expect(m.volume24hUsd).toBe(sum(inW.map((x) => x.vol)));
        expect(m.trades24h).toBe(inW.length);
        expect(m.priceUsd).toBe(all.filter((x) => x.market === m.address).at(-1)!.price);
      }
    }
  });

  it('answers 400 for a bad limit and 400 invalid_address for a bad path', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest(withMarket(tok));
    expect((await t.http.get(`/v1/token/${tok.address}/markets?limit=0`)).body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
    expect((await t.http.get(`/v1/token/0x123/markets`)).body.error.code).toBe('invalid_address');
  });
});
