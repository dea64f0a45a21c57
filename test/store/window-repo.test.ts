import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createWindowRepo } from '../../src/store/window-repo.js';
import { makeTestStore } from '../helpers/make-test-store.js';
import { aToken, aTrade } from '../helpers/builders.js';

describe('window statistics', () => {
  it('leave out a trade one second after now, and take one at now', () => {
    const t = makeTestStore();
    try {
      const now = 1_700_000_000 + 1234;
      const token = aToken();
      t.ingest([token, aTrade(token.address, { blockTime: now, volumeUsd: 5 }), aTrade(token.address, { blockTime: now + 1, volumeUsd: 7 })]);
      const id = t.store.db.prepare('SELECT id FROM tokens WHERE address = ?').pluck().get(token.address) as number;
      const repo = createWindowRepo(t.store.db);
      expect(repo.window(id, now, 3600, now + 1)).toMatchObject({ trades: 1, volumeUsd: 5 });
      expect(repo.window(id, now + 1, 3600, now + 1)).toMatchObject({ trades: 2, volumeUsd: 12 });
    } finally {
      t.close();
    }
  });

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
          const t = makeTestStore();
          try {
            const base = 1_699_000_000;
            const token = aToken();
            t.ingest([token]);
            // ingest in two batches, the second one older (backfill)
            const trades = rows.map((r) =>
              aTrade(token.address, { blockTime: base + r.dt, priceUsd: r.price, volumeUsd: r.vol, side: r.buy ? 'buy' : 'sell' }),
            );
            const half = Math.floor(trades.length / 2);
            if (trades.length > 0) t.ingest(trades.slice(half));
            if (half > 0) t.ingest(trades.slice(0, half));
            const id = t.store.db.prepare('SELECT id FROM tokens WHERE address = ?').pluck().get(token.address) as number;
            const now = base + nowOffset;
            const lastTradeAt = t.store.db.prepare('SELECT last_trade_at FROM tokens WHERE id = ?').pluck().get(id) as number | null;
            const got = createWindowRepo(t.store.db).window(id, now, w, lastTradeAt);
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
