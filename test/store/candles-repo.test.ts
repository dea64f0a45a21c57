/**
 * Candle rollups against a naive aggregation of the raw trades, for every resolution, with
 * trades arriving in random batches out of time order. The reference computes buckets on its own
 * (calendar arithmetic), not with the code under test.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { readRawTrades, readTokenId } from '../v1/naive.js';
import { parseResolution, SUPPORTED_RESOLUTIONS } from '../../src/domain/resolution.js';
import type { Bar } from '../../src/domain/candles.js';

function refBucket(res: string, t: number): number {
  const d = new Date(t * 1000);
  if (res === '1M') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
  if (res === '1W') {
    const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) / 1000;
    const sinceMonday = (d.getUTCDay() + 6) % 7;
    return day - sinceMonday * 86400;
  }
  const seconds = res === '1D' ? 86400 : res.endsWith('S') ? Number(res.slice(0, -1)) : Number(res) * 60;
  return t - (((t % seconds) + seconds) % seconds);
}

type Raw = { id: number; bt: number; price: number; vol: number };

function naive(trades: Raw[], res: string): Bar[] {
  const sorted = [...trades].sort((a, b) => a.bt - b.bt || a.id - b.id);
  const bars = new Map<number, Bar>();
  for (const tr of sorted) {
    const b = refBucket(res, tr.bt);
    const bar = bars.get(b);
    if (!bar) bars.set(b, { t: b, o: tr.price, h: tr.price, l: tr.price, c: tr.price, v: tr.vol });
    else {
      bar.h = Math.max(bar.h, tr.price);
      bar.l = Math.min(bar.l, tr.price);
      bar.c = tr.price;
      bar.v += tr.vol;
    }
  }
  return [...bars.values()].sort((a, b) => a.t - b.t);
}

function expectSameBars(got: Bar[], want: Bar[]) {
  expect(got.map((b) => [b.t, b.o, b.h, b.l, b.c])).toEqual(want.map((b) => [b.t, b.o, b.h, b.l, b.c]));
  got.forEach((b, i) => expect(Math.abs(b.v - want[i]!.v)).toBeLessThanOrEqual(1e-9 * Math.max(1, want[i]!.v)));
}

const BASE = 1_704_067_200; // 2024-01-01, a Monday

describe('candle rollups', () => {
  it('give the same bars as aggregating the raw trades, for every resolution and window', async () => {
    // One store for all runs: each run charts a fresh token, and bars never mix tokens.
    const t = makeTestApp();
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              // clustered times so buckets hold several trades, spread over ~80 days for months/weeks
              day: fc.integer({ min: 0, max: 80 }),
              sec: fc.integer({ min: 0, max: 86399 }),
              tight: fc.integer({ min: 0, max: 119 }),
              cluster: fc.boolean(),
              p: fc.double({ min: 0.0001, max: 1000, noNaN: true }),
              v: fc.double({ min: 0, max: 1e5, noNaN: true }),
            }),
            { minLength: 1, maxLength: 80 },
          ),
          fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }),
          fc.constantFrom(...SUPPORTED_RESOLUTIONS),
          fc.integer({ min: -2 * 86400, max: 85 * 86400 }),
          fc.integer({ min: 1, max: 90 * 86400 }),
          fc.integer({ min: 1, max: 50 }),
          async (rows, cuts, resKey, fromOff, span, countback) => {
            const token = aToken();
            await t.ingest(withMarket(token));
            const trades = rows.map((r) =>
              aTrade(token.address, { blockTime: BASE + (r.cluster ? 40 * 86400 + r.tight : r.day * 86400 + r.sec), priceUsd: r.p, volumeUsd: r.v }),
            );
            // random batches, newest batch first, so most are backfills
            const batches: (typeof trades)[] = [];
            const rest = [...trades];
            for (const c of cuts) {
              const n = Math.ceil(rest.length / (c + 1));
              batches.push(rest.splice(rest.length - n, n));
            }
            if (rest.length) batches.push(rest);
            for (const b of batches) if (b.length) await t.ingest(b);

            const tokenId = await readTokenId(t.store, token.address);
            const raw = await readRawTrades(t.store, tokenId);
            const repo = t.services.repos.candles;
            const res = parseResolution(resKey)!;
            const all = naive(raw, resKey);

            const from = BASE + fromOff;
            const to = from + span;
            const inRange = all.filter((b) => b.t >= from && b.t < to);
            expectSameBars(await repo.readBars(tokenId, res, { mode: 'range', from, to }), inRange.slice(-5000));

            const before = all.filter((b) => b.t < to);
            expectSameBars(await repo.readBars(tokenId, res, { mode: 'countback', to, countback }), before.slice(-countback));

            const older = all.filter((b) => b.t < from);
            expect(await repo.newestBarBefore(tokenId, res, from)).toBe(older.at(-1)?.t ?? null);
          },
        ),
        { numRuns: 150 },
      );
    } finally {
      await t.close();
    }
  }, 120_000);

  it('keeps at most 5000 bars, the newest', async () => {
    const t = makeTestApp();
    try {
      const token = aToken();
      await t.ingest(withMarket(token));
      await t.ingest(Array.from({ length: 5100 }, (_, i) => aTrade(token.address, { blockTime: BASE + i * 60, priceUsd: i + 1 })));
      const tokenId = await readTokenId(t.store, token.address);
      const bars = await t.services.repos.candles.readBars(tokenId, parseResolution('1')!, { mode: 'range', from: BASE, to: BASE + 6000 * 60 });
      expect(bars).toHaveLength(5000);
      expect(bars[0]!.t).toBe(BASE + 100 * 60);
      expect(bars.at(-1)!.t).toBe(BASE + 5099 * 60);
    } finally {
      await t.close();
    }
  });
});
