import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, anAddress, withMarket } from '../helpers/builders.js';
import { lastAtOrBefore, readRawTrades, readTokenId } from './naive.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;

describe('GET /v1/prices/at', () => {
  it('answers the last trade at or before the time, null for unknown tokens and tokens without one, keyed as asked', async () => {
    t = makeTestApp();
    const a = aToken();
    const b = aToken();
    await t.ingest([...withMarket(a), ...withMarket(b)]);
    await t.ingest([
      aTrade(a.address, { blockTime: NOW + 10, priceUsd: 1.5 }),
      aTrade(a.address, { blockTime: NOW + 10, priceUsd: 1.75 }),
      aTrade(a.address, { blockTime: NOW + 20, priceUsd: 2 }),
      aTrade(b.address, { blockTime: NOW + 30, priceUsd: 9 }),
    ]);
    const unknown = anAddress('zz');
    const res = await t.http.get(`/v1/prices/at?addresses=${a.address},${b.address},${unknown}&time=${NOW + 15}`);
    expect(res.status).toBe(200);
    const second = (await readRawTrades(t.store, await readTokenId(t.store, a.address)))[1]!;
    expect(res.body).toEqual({
      time: NOW + 15,
      prices: { [a.address]: { priceUsd: 1.75, blockTime: NOW + 10, tradeId: second.id }, [b.address]: null, [unknown]: null },
    });
  });

  it('requires time within 0..253402300799 and at most 100 well-formed addresses', async () => {
    t = makeTestApp();
    const a = aToken().address;
    const cases: [string, string][] = [
      [`addresses=${a}`, 'time'],
      [`addresses=${a}&time=253402300800`, 'time'],
      [`addresses=${a}&time=-5`, 'time'],
      [`addresses=nope&time=1`, 'addresses'],
      [`addresses=${Array.from({ length: 101 }, () => anAddress()).join(',')}&time=1`, 'addresses'],
      [`time=1`, 'addresses'],
    ];
    for (const [q, param] of cases) {
      const res = await t.http.get(`/v1/prices/at?${q}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
    }
    expect((await t.http.get(`/v1/prices/at?addresses=${a}&time=253402300799`)).status).toBe(200);
  });

  it('equals the naive last trade at or before a random time, with backfilled batches', async () => {
    // One app, a fresh token per run: each run reads only its own token's trades.
    const app = (t = makeTestApp({ env: { RATE_LIMIT_ANON: '100000000/60' } }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.record({ dt: fc.integer({ min: 0, max: 100 }), p: fc.integer({ min: 1, max: 1000 }) }), { minLength: 1, maxLength: 8 }), {
          maxLength: 6,
        }),
        fc.array(fc.integer({ min: -5, max: 110 }), { minLength: 1, maxLength: 8 }),
        async (batches, times) => {
          const tok = aToken();
          await app.ingest(withMarket(tok));
          for (const batch of batches) await app.ingest(batch.map((r) => aTrade(tok.address, { blockTime: NOW + r.dt, priceUsd: r.p / 100 })));
          const raw = await readRawTrades(app.store, await readTokenId(app.store, tok.address));
          for (const dt of times) {
            const res = await app.http.get(`/v1/prices/at?addresses=${tok.address}&time=${NOW + dt}`);
            const want = lastAtOrBefore(raw, NOW + dt);
            expect(res.body.prices[tok.address]).toEqual(want === undefined ? null : { priceUsd: want.price, blockTime: want.bt, tradeId: want.id });
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
