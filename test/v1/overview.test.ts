import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aHolder, aMarket, aToken, aTrade, anAddress, withMarket } from '../helpers/builders.js';
import { close, inWindow, lastAtOrBefore, readRawTrades, readTokenId, sum } from './naive.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;
const WINDOWS = { '5m': 300, '1h': 3600, '6h': 21600, '24h': 86400 } as const;

describe('GET /v1/token/:address/overview', () => {
  it('answers every field of the contract from the token, its markets, holders and trades', async () => {
    t = makeTestApp();
    const tok = aToken({
      symbol: 'BONK',
      name: 'Bonk',
      decimals: 5,
      totalSupply: 1000,
      circulatingSupply: 400,
      logoUri: 'https://x/y.png',
      createdAt: 1_699_000_000,
    });
    const m1 = aMarket(tok.address, { liquidityUsd: 100.5 });
    const m2 = aMarket(tok.address, { liquidityUsd: 200 });
    t.ingest([tok, m1, m2, aHolder(tok.address), aHolder(tok.address), aHolder(tok.address)]);
    t.ingest([
      aTrade(tok.address, { market: m1.address, blockTime: NOW - 7200, priceUsd: 2, volumeUsd: 10, side: 'buy' }),
      aTrade(tok.address, { market: m2.address, blockTime: NOW - 100, priceUsd: 3, volumeUsd: 5, side: 'sell' }),
    ]);
    t.clock.advance(5000); // updatedAt is the ingest time, now is later
    const res = await t.http.get(`/v1/token/${tok.address}/overview`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      address: tok.address,
      chain: 'solana',
      symbol: 'BONK',
      name: 'Bonk',
      decimals: 5,
      logoUri: 'https://x/y.png',
      createdAt: 1_699_000_000,
      priceUsd: 3,
      liquidityUsd: 300.5,
      marketCapUsd: 1200,
      fdvUsd: 3000,
      totalSupply: 1000,
      circulatingSupply: 400,
      holders: 3,
      markets: 2,
      lastTradeAt: NOW - 100,
      updatedAt: NOW,
      windows: {
        '5m': { priceChangePct: 50, volumeUsd: 5, buyVolumeUsd: 0, sellVolumeUsd: 5, trades: 1, buys: 0, sells: 1, uniqueWallets: 1 },
        '1h': { priceChangePct: 50, volumeUsd: 5, buyVolumeUsd: 0, sellVolumeUsd: 5, trades: 1, buys: 0, sells: 1, uniqueWallets: 1 },
        '6h': { priceChangePct: null, volumeUsd: 15, buyVolumeUsd: 10, sellVolumeUsd: 5, trades: 2, buys: 1, sells: 1, uniqueWallets: 2 },
        '24h': { priceChangePct: null, volumeUsd: 15, buyVolumeUsd: 10, sellVolumeUsd: 5, trades: 2, buys: 1, sells: 1, uniqueWallets: 2 },
      },
    });
  });

  it('gives a token without trades or markets null prices and zero counts', async () => {
    t = makeTestApp();
    const tok = aToken({ totalSupply: null, circulatingSupply: null });
    t.ingest([tok]);
    const res = await t.http.get(`/v1/token/${tok.address}/overview`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ priceUsd: null, marketCapUsd: null, fdvUsd: null, liquidityUsd: 0, holders: 0, markets: 0, lastTradeAt: null });
    for (const w of Object.keys(WINDOWS)) {
      expect(res.body.windows[w]).toEqual({
        priceChangePct: null,
        volumeUsd: 0,
        buyVolumeUsd: 0,
        sellVolumeUsd: 0,
        trades: 0,
        buys: 0,
        sells: 0,
        uniqueWallets: 0,
      });
    }
  });

  it('bounds windows as (now - w, now]: a trade at now - w is out, one at now - w + 1 and one at now are in', async () => {
    t = makeTestApp();
    const tok = aToken();
    t.ingest(withMarket(tok));
    t.ingest([
      aTrade(tok.address, { blockTime: NOW - 300, priceUsd: 1, volumeUsd: 1 }),
      aTrade(tok.address, { blockTime: NOW - 299, priceUsd: 2, volumeUsd: 2 }),
      aTrade(tok.address, { blockTime: NOW, priceUsd: 4, volumeUsd: 4 }),
      aTrade(tok.address, { blockTime: NOW + 1, priceUsd: 8, volumeUsd: 8 }),
    ]);
    const res = await t.http.get(`/v1/token/${tok.address}/overview`);
    // the last trade (in the future) sets the price; the base is the trade at now - 300
    expect(res.body.priceUsd).toBe(8);
    expect(res.body.windows['5m']).toMatchObject({ trades: 2, volumeUsd: 6, priceChangePct: 700, uniqueWallets: 2 });
    t.clock.advance(1000);
    const later = await t.http.get(`/v1/token/${tok.address}/overview`);
    expect(later.body.windows['5m']).toMatchObject({ trades: 2, volumeUsd: 12, priceChangePct: 300, uniqueWallets: 2 });
  });

  it('equals a naive computation over the raw trades, with backfill and trades after now, as the clock moves', async () => {
    // One app, a fresh token per run: each run reads only its own token's trades.
    const app = (t = makeTestApp({ env: { RATE_LIMIT_ANON: '100000000/60' } }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            dt: fc.oneof(fc.integer({ min: -2 * 86400, max: 30 }), fc.constantFrom(-300, -299, -3600, -3599, -21600, -86400, -86399, 0, 1)),
            price: fc.double({ min: 0.001, max: 1000, noNaN: true }),
            vol: fc.double({ min: 0, max: 1e6, noNaN: true }),
            buy: fc.boolean(),
            wallet: fc.integer({ min: 0, max: 5 }),
          }),
          { maxLength: 60 },
        ),
        fc.integer({ min: 0, max: 80 }),
        fc.array(fc.integer({ min: 1, max: 4000 }), { minLength: 1, maxLength: 3 }),
        async (rows, split, steps) => {
          // Times count from the clock at the run's start: the clock only moves forward.
          const start = app.clock.seconds();
          const tok = aToken();
          const wallets = Array.from({ length: 6 }, () => anAddress('w'));
          await app.ingest(withMarket(tok));
          const trades = rows.map((r) =>
            aTrade(tok.address, { blockTime: start + r.dt, priceUsd: r.price, volumeUsd: r.vol, side: r.buy ? 'buy' : 'sell', wallet: wallets[r.wallet]! }),
          );
          const cut = Math.min(split, trades.length);
          if (cut < trades.length) await app.ingest(trades.slice(cut));
          if (cut > 0) await app.ingest(trades.slice(0, cut)); // older ids for some, later ids for others: backfill
          const all = await readRawTrades(app.store, await readTokenId(app.store, tok.address));
          for (const step of [0, ...steps]) {
            app.clock.advance(step * 1000);
            const now = app.clock.seconds();
            const res = await app.http.get(`/v1/token/${tok.address}/overview`);
            expect(res.status).toBe(200);
            const price = all.at(-1)?.price ?? null;
            expect(res.body.priceUsd).toBe(price);
            for (const [key, w] of Object.entries(WINDOWS)) {
              const got = res.body.windows[key];
              const inW = inWindow(all, now, w);
              const base = lastAtOrBefore(all, now - w)?.price ?? null;
              expect(got.trades).toBe(inW.length);
              expect(got.buys).toBe(inW.filter((x) => x.isBuy === 1).length);
              expect(got.sells).toBe(inW.filter((x) => x.isBuy === 0).length);
              expect(close(got.volumeUsd, sum(inW.map((x) => x.vol)))).toBe(true);
              expect(close(got.buyVolumeUsd, sum(inW.filter((x) => x.isBuy === 1).map((x) => x.vol)))).toBe(true);
              expect(close(got.sellVolumeUsd, sum(inW.filter((x) => x.isBuy === 0).map((x) => x.vol)))).toBe(true);
              expect(got.uniqueWallets).toBe(new Set(inW.map((x) => x.wallet)).size);
              expect(got.priceChangePct).toBe(price === null || base === null ? null : ((price - base) / base) * 100);
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it('answers 400 invalid_address for a malformed address and 404 token_not_found for an unknown one', async () => {
    t = makeTestApp();
    const bad = await t.http.get('/v1/token/not-an-address/overview');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_address', param: 'address' });
    // A symbol where the address goes is pointed to search, which finds the address.
    const symbol = await t.http.get('/v1/token/BONK/overview');
    expect(symbol.status).toBe(400);
    expect(symbol.body.error.message).toBe(
      "address is not a well-formed address; routes take the token's or market's address; find it by symbol or name with GET /v1/search?q=BONK",
    );
    const unknown = await t.http.get(`/v1/token/${anAddress()}/overview`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('token_not_found');
  });

  it('finds an EVM-style token whatever the case of its address', async () => {
    t = makeTestApp();
    const address = '0x' + 'ab'.repeat(20);
    t.ingest([aToken({ address })]);
    const res = await t.http.get(`/v1/token/${address.toUpperCase().replace('0X', '0x')}/overview`);
    expect(res.status).toBe(200);
    expect(res.body.address).toBe(address);
  });
});
