import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestStore } from '../helpers/make-test-store.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { readRawTrades, readTokenId } from '../v1/naive.js';

describe('window statistics', () => {
  it('leave out a trade one second after now, and take one at now', async () => {
    const t = makeTestStore();
    try {
      const now = 1_700_000_000 + 1234;
      const token = aToken();
      await t.ingest([
        ...withMarket(token),
        aTrade(token.address, { blockTime: now, volumeUsd: 5 }),
        aTrade(token.address, { blockTime: now + 1, volumeUsd: 7 }),
      ]);
      const id = await readTokenId(t.store, token.address);
      const repo = t.services.repos.window;
      expect(await repo.window(id, now, 3600, now + 1)).toMatchObject({ trades: 1, volumeUsd: 5 });
      expect(await repo.window(id, now + 1, 3600, now + 1)).toMatchObject({ trades: 2, volumeUsd: 12 });
    } finally {
      await t.close();
    }
  });

  it('equal a naive computation over the raw trades, backfill included', async () => {
    // One store for all runs: each run trades a fresh token, and windows never mix tokens.
    const t = makeTestStore();
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              dt: fc.integer({ min: 0, max: 3 * 86400 }),
              price: fc.double({ min: 0.001, max: 1000, noNaN: true }),
              vol: fc.double({ min: 0, max: 1e6, noNaN: true }),
              buy: fc.boolean(),
            }),
            { minLength: 0, maxLength: 60 },
          ),
          fc.integer({ min: 0, max: 3 * 86400 }),
          fc.constantFrom(300, 3600, 6 * 3600, 86400, 2 * 86400),
          async (rows, nowOffset, w) => {
            const base = 1_699_000_000;
            const token = aToken();
            await t.ingest(withMarket(token));
            // ingest in two batches, the second one older (backfill)
            const trades = rows.map((r) =>
              aTrade(token.address, { blockTime: base + r.dt, priceUsd: r.price, volumeUsd: r.vol, side: r.buy ? 'buy' : 'sell' }),
            );
            const half = Math.floor(trades.length / 2);
            if (trades.length > 0) await t.ingest(trades.slice(half));
            if (half > 0) await t.ingest(trades.slice(0, half));
            const id = await readTokenId(t.store, token.address);
            const now = base + nowOffset;
            const lastTradeAt = (await t.services.repos.tokens.byAddress(token.address))!.lastTradeAt;
            const got = await t.services.repos.window.window(id, now, w, lastTradeAt);
            const all = await readRawTrades(t.store, id);
            const inW = all.filter((x) => x.bt > now - w && x.bt <= now);
            expect(got.trades).toBe(inW.length);
            expect(got.buys).toBe(inW.filter((x) => x.isBuy === 1).length);
            const vol = inW.reduce((a, x) => a + x.vol, 0);
            expect(Math.abs(got.volumeUsd - vol)).toBeLessThanOrEqual(1e-9 * Math.max(1, vol));
            expect(got.open).toBe(inW[0]?.price ?? null);
            expect(got.close).toBe(inW.at(-1)?.price ?? null);
            expect(got.high).toBe(inW.length ? Math.max(...inW.map((x) => x.price)) : null);
            expect(got.low).toBe(inW.length ? Math.min(...inW.map((x) => x.price)) : null);
          },
        ),
        { numRuns: 60 },
      );
    } finally {
      await t.close();
    }
  }, 120_000);
});
