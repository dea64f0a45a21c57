/**
 * /udf/history against a naive reference: random trades (some backfilled in a later batch, some
 * sharing a second), every listed resolution and alias, range and countback modes, and the
 * nextTime of empty ranges. Bars must equal aggregating the raw trades directly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import request from 'supertest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { barsOf, expectSameBars, refBars, type RefTrade } from './support.js';

const RESOLUTIONS = ['1S', '5S', '15S', '30S', '1', '5', '15', '30', '60', '240', '1D', '1W', '1M', 'D', 'W', 'M'];
/** Spans of time the trades of one run fall in, so that every resolution gets several buckets. */
const SPANS = [40, 900, 6 * 3600, 10 * 86400, 400 * 86400];

const tradeArb = (span: number) =>
  fc.record({
    dt: fc.integer({ min: 0, max: span }),
    price: fc.double({ min: 1e-6, max: 1e4, noNaN: true, noDefaultInfinity: true }),
    volume: fc.double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true }),
  });

const scenario = fc.record({ span: fc.constantFrom(...SPANS), start: fc.integer({ min: 1_500_000_000, max: 1_700_000_000 }) }).chain(({ span, start }) =>
  fc.record({
    span: fc.constant(span),
    start: fc.constant(start),
    first: fc.array(tradeArb(span), { minLength: 1, maxLength: 30 }),
    backfill: fc.array(tradeArb(span), { maxLength: 15 }),
    // query bounds as fractions of the span, reaching a little outside it
    a: fc.integer({ min: -span, max: 2 * span }),
    b: fc.integer({ min: -span, max: 2 * span }),
    countback: fc.integer({ min: 1, max: 60 }),
  }),
);

let t: TestApp | undefined;
let server: Server | undefined;
afterEach(() => {
  server?.close();
  t?.close();
});

describe('/udf/history equals aggregating the raw trades', () => {
  it('for every resolution, in range and countback modes, with backfill in a later batch', async () => {
    // One store for all runs: each run charts a fresh token, and bars never mix tokens.
    const app = makeTestApp({ env: { RATE_LIMIT_ANON: '100000000/60' } }); // thousands of requests from one IP
    t = app;
    // one listening server for the thousands of requests below (supertest would start one per request)
    server = createServer(app.app.callback()).listen(0, '127.0.0.1');
    const http = request(server);
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const token = aToken({ symbol: 'PROP' });
        const records = (rows: typeof s.first) => rows.map((r) => aTrade(token.address, { blockTime: s.start + r.dt, priceUsd: r.price, volumeUsd: r.volume }));
        await app.ingest([...withMarket(token), ...records(s.first)]);
        if (s.backfill.length > 0) await app.ingest(records(s.backfill));
        const trades: RefTrade[] = [...s.first, ...s.backfill].map((r, seq) => ({ time: s.start + r.dt, seq, price: r.price, volume: r.volume }));

        const from = s.start + Math.min(s.a, s.b);
        const to = s.start + Math.max(s.a, s.b) + 1;
        for (const resolution of RESOLUTIONS) {
          const all = refBars(resolution, trades);
          const base = { symbol: token.address, resolution };

          // range mode
          const range = await http.get('/udf/history').query({ ...base, from, to });
          expect(range.status).toBe(200);
          const inRange = all.filter((b) => b.t >= from && b.t < to);
          if (inRange.length === 0) {
            const older = all.filter((b) => b.t < from).at(-1);
            expect(range.body, `${resolution} [${from}, ${to})`).toEqual(older === undefined ? { s: 'no_data' } : { s: 'no_data', nextTime: older.t });
          } else {
            expect(range.body.s).toBe('ok');
            expectSameBars(barsOf(range.body), inRange, `${resolution} [${from}, ${to})`);
          }

          // countback mode: from is ignored
          const cb = await http.get('/udf/history').query({ ...base, from: to - 1, to, countback: s.countback });
          const before = all.filter((b) => b.t < to).slice(-s.countback);
          if (before.length === 0) expect(cb.body).toEqual({ s: 'no_data' });
          else expectSameBars(barsOf(cb.body), before, `${resolution} countback ${s.countback} before ${to}`);
        }
      }),
      { numRuns: 50 },
    );
  }, 120_000);
});
