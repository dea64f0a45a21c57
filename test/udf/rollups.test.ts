/**
 * History reads the candle rollups, never the raw trades: after the raw rows are overwritten
 * behind the store's back, 1-second, 1-minute and 1-day bars are all unchanged. Timings live in
 * the benchmark; the bound on rows read is pinned in test/store/seconds-rollups.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aTrade } from '../helpers/builders.js';
import { rawSql } from '../helpers/raw-sql.js';
import { addToken } from './support.js';

let t: TestApp;
afterEach(() => t?.close());

const START = 1_699_000_000;

describe('history sources', () => {
  it('answers 300-bar countback requests at 1S, 1 and 1D from rollups alone', async () => {
    t = makeTestApp();
    const tok = addToken(t, { symbol: 'BUSY' });
    // two trades a day for 320 days, then two a minute for 320 minutes: over 300 bars at both resolutions
    const times = [
      ...Array.from({ length: 640 }, (_, i) => START - 330 * 86400 + i * 43200),
      ...Array.from({ length: 640 }, (_, i) => START - 330 * 60 + i * 30),
    ];
    await t.ingest(times.map((blockTime, i) => aTrade(tok.address, { blockTime, priceUsd: 1 + (i % 97) / 10, volumeUsd: 1 + (i % 13) })));
    const ask = (resolution: string) => t.http.get('/udf/history').query({ symbol: tok.address, resolution, from: START - 10, to: START, countback: 300 });
    const before = { m: (await ask('1')).body, d: (await ask('1D')).body, s: (await ask('1S')).body };
    expect(before.m.t).toHaveLength(300);
    expect(before.d.t).toHaveLength(300);

    await rawSql(t.store, 'UPDATE trades SET price_usd = 12345, volume_usd = 0');
    // announce the write, as another process's would be seen: caches go, rollups stay as they were
    t.store.notifyChange({ tokens: 'all' });

    expect((await ask('1')).body).toEqual(before.m);
    expect((await ask('1D')).body).toEqual(before.d);
    expect(before.s.t).toHaveLength(300);
    expect((await ask('1S')).body).toEqual(before.s);
  });
});
