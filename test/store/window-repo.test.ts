import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { coverSegments, createWindowRepo } from '../../src/store/window-repo.js';
import { makeTestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade } from '../helpers/builders.js';

describe('coverSegments', () => {
  it('covers [from, to) exactly with aligned segments in order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 3_000_000 }), (from, len) => {
        const segs = coverSegments(from, from + len);
        let at = from;
        for (const s of segs) {
          expect(s.from).toBe(at);
          expect(s.to).toBeGreaterThan(s.from);
          if (s.level !== null) {
            expect(s.from % s.level).toBe(0);
            expect(s.to % s.level).toBe(0);
          }
          at = s.to;
        }
        expect(at).toBe(len === 0 ? from : from + len);
      }),
    );
  });
});

describe('window statistics', () => {
  it('equal a naive computation over the raw trades, backfill included', () => {
    fc.assert(
      fc.property(
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
        (rows, nowOffset, w) => {
          const t = makeTestApp();
          try {
            const base = 1_699_000_000;
            const token = aToken();
            t.ingest([token]);
            // ingest in two batches, the second one older (backfill)
            const trades = rows.map((r) => aTrade(token.address, { blockTime: base + r.dt, priceUsd: r.price, volumeUsd: r.vol, side: r.buy ? 'buy' : 'sell' }));
            const half = Math.floor(trades.length / 2);
            if (trades.length > 0) t.ingest(trades.slice(half));
            if (half > 0) t.ingest(trades.slice(0, half));
            const id = t.store.db.prepare('SELECT id FROM tokens WHERE address = ?').pluck().get(token.address) as number;
            const now = base + nowOffset;
            const got = createWindowRepo(t.store.db).window(id, now, w);
            const all = t.store.db
              .prepare('SELECT block_time AS bt, id, price_usd AS p, volume_usd AS v, is_buy AS b FROM trades ORDER BY block_time, id')
              .all() as { bt: number; p: number; v: number; b: number }[];
            const inW = all.filter((x) => x.bt > now - w && x.bt <= now);
            expect(got.trades).toBe(inW.length);
            expect(got.buys).toBe(inW.filter((x) => x.b === 1).length);
            const vol = inW.reduce((a, x) => a + x.v, 0);
            expect(Math.abs(got.volumeUsd - vol)).toBeLessThanOrEqual(1e-9 * Math.max(1, vol));
            expect(got.open).toBe(inW[0]?.p ?? null);
            expect(got.close).toBe(inW.at(-1)?.p ?? null);
            expect(got.high).toBe(inW.length ? Math.max(...inW.map((x) => x.p)) : null);
            expect(got.low).toBe(inW.length ? Math.min(...inW.map((x) => x.p)) : null);
          } finally {
            t.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
