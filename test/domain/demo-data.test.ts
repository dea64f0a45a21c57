// The demo set's records: the same for the same seed and anchor, valid ingest input within the
// days asked, and loaded through the ingest path with its options kept in the store.
import { describe, expect, it } from 'vitest';
import { demoRecords } from '../../src/domain/demo-data.js';
import { parseRecord } from '../../src/domain/records.js';
import { makeTestApp } from '../helpers/make-test-app.js';
import { loadDemo, storeHoldsOnlyDemo } from '../../src/services/demo.js';
import { aToken } from '../helpers/builders.js';

const opts = { tokens: 6, days: 3, seed: 7, until: 1_700_000_000 };
// The same tokens at one flat rate (a few thousand trades): for what does not depend on the busy end.
const flat = { ...opts, tradesPerTokenPerDay: 300 };

describe('demo data', () => {
  it('is the same for the same seed and anchor, and different for another seed', () => {
    const a = [...demoRecords(opts)];
    const b = [...demoRecords(opts)];
    const c = [...demoRecords({ ...opts, seed: 8 })];
    // Compared as text: a deep equality over tens of thousands of records takes seconds.
    expect(JSON.stringify(a) === JSON.stringify(b)).toBe(true);
    expect(JSON.stringify(a) === JSON.stringify(c)).toBe(false);
  });

  it('is valid ingest input with every trade before the anchor and within the days asked', () => {
    const records = [...demoRecords(opts)];
    // Checked in plain code and reported once: an expect per record would take seconds.
    expect(records.filter((r) => !parseRecord(r).ok)).toEqual([]);
    const trades = records.filter((r) => r.type === 'trade');
    expect(trades.length).toBeGreaterThan(100);
    expect(trades.filter((tr) => !(tr.blockTime < opts.until && tr.blockTime >= opts.until - opts.days * 86400))).toEqual([]);
    // In time order within each token, as the generator makes them.
    expect(trades.filter((tr, k) => k > 0 && trades[k - 1]!.token === tr.token && trades[k - 1]!.blockTime > tr.blockTime)).toEqual([]);
  });

  it('loads through the ingest path, marks the store demo-only, and records seed and anchor', async () => {
    const t = makeTestApp();
    const counts = await loadDemo(t.services, flat);
    expect(counts.tokens).toBe(6);
    expect(t.store.db.prepare('SELECT count(*) FROM trades').pluck().get()).toBe(counts.trades);
    expect(t.store.db.prepare('SELECT count(*) FROM candles').pluck().get()).toBeGreaterThan(0);
    expect(JSON.parse(t.store.db.prepare("SELECT value FROM meta WHERE key = 'demo'").pluck().get() as string)).toMatchObject({
      seed: 7,
      until: opts.until,
      tradesPerTokenPerDay: 300,
      generation: 2,
    });
    expect(await storeHoldsOnlyDemo(t.services.repos)).toBe(true);
    t.ingest([aToken()]);
    expect(await storeHoldsOnlyDemo(t.services.repos)).toBe(false);
    t.close();
  });
});
