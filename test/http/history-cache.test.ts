/**
 * The bars of chart series kept between requests (src/read/history-cache.ts): bounded with the
 * response cache's budget, least recently used series dropped first, and dropped whole by a
 * change whose tokens are not known (another process's write).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';

let t: TestApp;
afterEach(() => t?.close());

const NOW = 1_700_000_000;
const MINUTES = 3000;

/** A token with one trade a minute for MINUTES minutes before NOW. */
function busyToken(symbol: string) {
  const token = aToken({ symbol });
  t.ingest([
    ...withMarket(token),
    ...Array.from({ length: MINUTES }, (_, i) => aTrade(token.address, { blockTime: NOW - MINUTES * 60 + i * 60, priceUsd: 1 + i })),
  ]);
  return token;
}

const chart = (symbol: string) => t.http.get('/udf/history').query({ symbol, resolution: '1', to: NOW + 60, countback: 5000 });

describe('history series kept in memory', () => {
  it('hold at most a quarter of CACHE_MAX_MB of bars (at least one full answer), the least recently used dropped', async () => {
    t = makeTestApp({ env: { CACHE_MAX_MB: '1' } });
    const series = t.app.deps.history;
    const [a, b, c] = [busyToken('AAA'), busyToken('BBB'), busyToken('CCC')];
    for (const token of [a, b, c]) {
      const res = await chart(token.address);
      expect(res.body.t).toHaveLength(MINUTES);
      expect(series.stats().bars).toBeLessThanOrEqual(5000);
    }
    // 5000 bars of budget: only the last series asked for is kept whole.
    expect(series.stats()).toEqual({ series: 1, bars: MINUTES });
    // A dropped series is read again, the same.
    const again = await chart(a.address);
    expect(again.body.c.at(-1)).toBe(MINUTES);
    expect(again.body.c[0]).toBe(1);
  });

  it('are dropped by a write of another process, and read again from the store', async () => {
    t = makeTestApp();
    const series = t.app.deps.history;
    const a = busyToken('AAA');
    await chart(a.address);
    expect(series.stats().series).toBe(1);
    // another process: the store hears of it only as "everything may have changed"
    await t.sql('UPDATE candles SET h = 99');
    t.store.notifyChange({ tokens: 'all' });
    expect(series.stats()).toEqual({ series: 0, bars: 0 });
    const res = await chart(a.address);
    expect(new Set(res.body.h)).toEqual(new Set([99]));
  });
});
