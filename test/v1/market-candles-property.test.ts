/**
 * Per-market candles against a naive reference (README, Pairs and native prices): two markets
 * per token, random trades (some backfilled in a later batch, some sharing a second), bars of
 * one market in USD and in its quote token, through /v1 candles and /udf/history. Bars must equal
 * aggregating that market's raw trades directly: OHLC exact, volume within 1e-9 relative.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import request from 'supertest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade } from '../helpers/builders.js';
import { barsOf, expectSameBars, refBars, type RefTrade } from '../udf/support.js';

const RESOLUTIONS = ['1S', '5S', '30S', '1', '15', '240', '1D', '1W', '1M'];
const SPANS = [40, 900, 6 * 3600, 10 * 86400, 400 * 86400];

const tradeArb = (span: number) =>
  fc.record({
    dt: fc.integer({ min: 0, max: span }),
    market: fc.integer({ min: 0, max: 1 }),
    price: fc.double({ min: 1e-6, max: 1e4, noNaN: true, noDefaultInfinity: true }),
    volume: fc.double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true }),
    amount: fc.double({ min: 1e-3, max: 1e9, noNaN: true, noDefaultInfinity: true }),
    quote: fc.double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true }),
  });

const scenario = fc.record({ span: fc.constantFrom(...SPANS), start: fc.integer({ min: 1_500_000_000, max: 1_700_000_000 }) }).chain(({ span, start }) =>
  fc.record({
    span: fc.constant(span),
    start: fc.constant(start),
    first: fc.array(tradeArb(span), { minLength: 1, maxLength: 30 }),
    backfill: fc.array(tradeArb(span), { maxLength: 15 }),
    a: fc.integer({ min: -span, max: 2 * span }),
    b: fc.integer({ min: -span, max: 2 * span }),
    countback: fc.integer({ min: 1, max: 40 }),
  }),
);

let t: TestApp | undefined;
let server: Server | undefined;
afterEach(() => {
  server?.close();
  t?.close();
});

describe('candles of one market equal aggregating its raw trades', () => {
  it('in USD and native, /v1 and /udf, range and countback, with backfill in a later batch', async () => {
    const app = makeTestApp({ env: { RATE_LIMIT_ANON: '100000000/60' } });
    t = app;
    server = createServer(app.app.callback()).listen(0, '127.0.0.1');
    const http = request(server);
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const token = aToken({ symbol: 'PAIR' });
        const markets = [aMarket(token.address, { quoteSymbol: 'SOL' }), aMarket(token.address, { quoteSymbol: 'USDC', dex: 'orca' })];
        const rows = [...s.first, ...s.backfill];
        const records = (part: typeof s.first) =>
          part.map((r) =>
            aTrade(token.address, {
              market: markets[r.market]!.address,
              blockTime: s.start + r.dt,
              priceUsd: r.price,
              volumeUsd: r.volume,
              amount: r.amount,
              quoteAmount: r.quote,
            }),
          );
        await app.ingest([token, ...markets, ...records(s.first)]);
        if (s.backfill.length > 0) await app.ingest(records(s.backfill));

        const from = s.start + Math.min(s.a, s.b);
        const to = s.start + Math.max(s.a, s.b) + 1;
        for (const [m, market] of markets.entries()) {
          const mine = rows.map((r, seq) => ({ r, seq })).filter(({ r }) => r.market === m);
          const usd: RefTrade[] = mine.map(({ r, seq }) => ({ time: s.start + r.dt, seq, price: r.price, volume: r.volume }));
          const native: RefTrade[] = mine.map(({ r, seq }) => ({ time: s.start + r.dt, seq, price: r.quote / r.amount, volume: r.quote }));
          for (const resolution of RESOLUTIONS) {
            for (const [currency, trades] of [
              ['usd', usd],
              ['native', native],
            ] as const) {
              const all = refBars(resolution, trades);
              const label = `${market.quoteSymbol} ${currency} ${resolution}`;
              const v1 = await http
                .get(`/v1/token/${token.address}/candles`)
                .query({ resolution, from: Math.max(0, from), to, market: market.address, currency });
              expect(v1.status, label).toBe(200);
              expectSameBars(
                v1.body.candles,
                all.filter((b) => b.t >= from && b.t < to),
                `${label} /v1 [${from}, ${to})`,
              );

              const currencyCode = currency === 'usd' ? 'USD' : market.quoteSymbol;
              const cb = await http.get('/udf/history').query({ symbol: market.address, resolution, to, countback: s.countback, currencyCode });
              const before = all.filter((b) => b.t < to).slice(-s.countback);
              if (before.length === 0) expect(cb.body, label).toEqual({ s: 'no_data' });
              else expectSameBars(barsOf(cb.body), before, `${label} /udf countback ${s.countback} before ${to}`);
            }
          }
        }
      }),
      { numRuns: 25 },
    );
  }, 240_000);
});
