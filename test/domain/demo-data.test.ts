import { describe, expect, it } from 'vitest';
import { demoRecords } from '../../src/domain/demo-data.js';
import { parseRecord } from '../../src/domain/records.js';
import { makeTestApp } from '../helpers/make-test-app.js';
import { loadDemo, storeHoldsOnlyDemo, startDemoFeed } from '../../src/services/demo.js';
import { aToken } from '../helpers/builders.js';

const opts = { tokens: 6, days: 3, seed: 7, until: 1_700_000_000 };

describe('demo data', () => {
  it('is the same for the same seed and anchor, and different for another seed', () => {
    const a = [...demoRecords(opts)];
    const b = [...demoRecords(opts)];
    const c = [...demoRecords({ ...opts, seed: 8 })];
    expect(a).toEqual(b);
    expect(JSON.stringify(a)).not.toEqual(JSON.stringify(c));
  });

  it('is valid ingest input with every trade at or before the anchor and within the days asked', () => {
    const records = [...demoRecords(opts)];
    for (const r of records) expect(parseRecord(r).ok).toBe(true);
    const trades = records.filter((r) => r.type === 'trade');
    expect(trades.length).toBeGreaterThan(100);
    for (const tr of trades) {
      expect(tr.blockTime).toBeLessThanOrEqual(opts.until);
      expect(tr.blockTime).toBeGreaterThanOrEqual(opts.until - opts.days * 86400);
    }
  });

  it('loads through the ingest path, marks the store demo-only, and records seed and anchor', () => {
    const t = makeTestApp();
    const counts = loadDemo({ store: t.store, ingest: t.services.ingest }, opts);
    expect(counts.tokens).toBe(6);
    expect(t.store.db.prepare('SELECT count(*) FROM trades').pluck().get()).toBe(counts.trades);
    expect(t.store.db.prepare('SELECT count(*) FROM candles').pluck().get()).toBeGreaterThan(0);
    expect(JSON.parse(t.store.db.prepare("SELECT value FROM meta WHERE key = 'demo'").pluck().get() as string)).toMatchObject({ seed: 7, until: opts.until });
    expect(storeHoldsOnlyDemo(t.store)).toBe(true);
    t.ingest([aToken()]);
    expect(storeHoldsOnlyDemo(t.store)).toBe(false);
    t.close();
  });

  it('feeds trades at the current time only while the store holds only demo data', async () => {
    const t = makeTestApp();
    t.clock.set(opts.until * 1000 + 5000);
    loadDemo({ store: t.store, ingest: t.services.ingest }, opts);
    const trades = () => t.store.db.prepare('SELECT count(*) FROM trades').pluck().get() as number;
    const before = trades();
    const stop = startDemoFeed({ store: t.store, ingest: t.services.ingest, clock: t.clock }, 20);
    await new Promise((r) => setTimeout(r, 120));
    expect(trades()).toBeGreaterThan(before);
    expect(t.store.db.prepare('SELECT max(block_time) FROM trades').pluck().get()).toBe(opts.until + 5);
    t.ingest([aToken()]);
    const frozen = trades();
    await new Promise((r) => setTimeout(r, 100));
    expect(trades()).toBe(frozen);
    stop();
    t.close();
  });
});
