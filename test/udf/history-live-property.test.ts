/**
 * History answers kept under live ingest (src/read/history-cache.ts) against two references:
 * the same requests to an app with caching off on the same ingests (byte-identical bodies), and
 * the naive candles built from the raw trades. Random ingests (live trades after the newest,
 * backfill anywhere in the span, two markets) interleave with /udf/history and
 * /v1/token/:address/candles requests with random to, from and countback, so kept bars,
 * re-read forming bars, invalidation by backfill and reads reaching further back all meet.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import request from 'supertest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade } from '../helpers/builders.js';
import { barsOf, expectSameBars, refBars, type RefTrade } from './support.js';

const RESOLUTIONS = ['1S', '5S', '1', '15', '60', '1D', '1W', '1M'];
const SPANS = [60, 3 * 3600, 20 * 86400, 200 * 86400];

const tradeArb = fc.record({
  late: fc.boolean(),
  dt: fc.integer({ min: 0, max: 1_000_000 }),
  market: fc.integer({ min: 0, max: 1 }),
  price: fc.double({ min: 1e-6, max: 1e4, noNaN: true, noDefaultInfinity: true }),
  volume: fc.double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true }),
});

const askArb = fc.record({
  route: fc.constantFrom('udf', 'pair', 'candles', 'market'),
  native: fc.boolean(),
  resolution: fc.constantFrom(...RESOLUTIONS),
  // `to` as a fraction of the span past the start (above 1: after every trade, as "now + 60 s" is)
  to: fc.integer({ min: -100, max: 300 }),
  from: fc.integer({ min: -200, max: 300 }),
  countback: fc.constantFrom(0, 0, 1, 2, 3, 10, 300, 5000, 6000),
});

const stepArb = fc.oneof(
  fc.record({ kind: fc.constant('trades' as const), rows: fc.array(tradeArb, { minLength: 1, maxLength: 4 }) }),
  fc.record({ kind: fc.constant('ask' as const), ask: askArb }),
);

const scenario = fc.record({
  span: fc.constantFrom(...SPANS),
  start: fc.integer({ min: 1_500_000_000, max: 1_700_000_000 }),
  steps: fc.array(stepArb, { minLength: 4, maxLength: 30 }),
});

let apps: TestApp[] = [];
let servers: Server[] = [];
afterEach(() => {
  for (const s of servers) s.close();
  for (const a of apps) a.close();
  apps = [];
  servers = [];
});

const listen = (t: TestApp) => {
  const server = createServer(t.app.callback()).listen(0, '127.0.0.1');
  servers.push(server);
  return request(server);
};

describe('history answers kept under live ingest', () => {
  it('are byte-identical to uncached answers and equal the naive bars, through live trades and backfill', async () => {
    const env = { RATE_LIMIT_ANON: '100000000/60' };
    const cached = makeTestApp({ env });
    const plain = makeTestApp({ env: { ...env, CACHE: 'off' } });
    apps = [cached, plain];
    const [withCache, without] = [listen(cached), listen(plain)];
    await fc.assert(
      fc.asyncProperty(scenario, async ({ span, start, steps }) => {
        const token = aToken({ symbol: 'LIVE' });
        const markets = [aMarket(token.address, { dex: 'raydium' }), aMarket(token.address, { dex: 'orca', quoteSymbol: 'USDC' })];
        for (const app of apps) await app.ingest([token, ...markets]);
        const trades: RefTrade[] = [];
        let newest = start;
        for (const step of steps) {
          if (step.kind === 'trades') {
            const records = step.rows.map((r) => {
              // live: at or a little after the newest trade; backfill: anywhere in the span
              const blockTime = r.late ? newest + (r.dt % Math.max(2, Math.floor(span / 20))) : start + (r.dt % (span + 1));
              newest = Math.max(newest, blockTime);
              trades.push({ time: blockTime, seq: trades.length, price: r.price, volume: r.volume });
              return aTrade(token.address, { blockTime, priceUsd: r.price, volumeUsd: r.volume, market: markets[r.market]!.address });
            });
            for (const app of apps) await app.ingest(records);
            continue;
          }
          const a = step.ask;
          const to = start + Math.floor((a.to * span) / 100);
          const from = start + Math.floor((a.from * span) / 100);
          const query: Record<string, string | number> = { resolution: a.resolution, to };
          if (a.countback > 0) query.countback = a.countback;
          if (a.countback > 0 || from < to) query.from = from;
          else query.from = to - 1;
          if (a.route === 'candles' || a.route === 'market') query.countback = Math.min(a.countback, 5000);
          if (query.countback === 0) delete query.countback;
          const udf = a.route === 'udf' || a.route === 'pair';
          const path = udf ? '/udf/history' : `/v1/token/${token.address}/candles`;
          if (a.route === 'udf') query.symbol = token.address;
          if (a.route === 'pair') Object.assign(query, { symbol: markets[0]!.address, currencyCode: a.native ? 'SOL' : 'USD' });
          if (a.route === 'market') Object.assign(query, { market: markets[0]!.address, currency: a.native ? 'native' : 'usd' });
          const [got, want] = await Promise.all([withCache.get(path).query(query), without.get(path).query(query)]);
          const label = `${path} ${JSON.stringify(query)}`;
          expect(got.status, label).toBe(200);
          expect(got.text, label).toBe(want.text);
          if (a.route !== 'udf') continue;
          // The naive reference: every bar with t < to, the countback newest, or those from `from` on.
          const all = refBars(a.resolution, trades).filter((b) => b.t < to);
          const qFrom = query.from as number;
          const expected = a.countback > 0 ? all.slice(-Math.min(a.countback, 5000)) : all.filter((b) => b.t >= qFrom).slice(-5000);
          if (expected.length > 0) expectSameBars(barsOf(got.body), expected, label);
          else expect(got.body.s, label).toBe('no_data');
        }
      }),
      { numRuns: 60 },
    );
  }, 240_000);
});
