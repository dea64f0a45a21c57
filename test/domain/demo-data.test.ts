import { describe, expect, it } from 'vitest';
import { demoRecords, seededRandom } from '../../src/domain/demo-data.js';
import { parseRecord } from '../../src/domain/records.js';
import { makeTestApp } from '../helpers/make-test-app.js';
import { createDemoFeed, loadDemo, removeDemo, storeHoldsOnlyDemo, startDemoFeed } from '../../src/services/demo.js';
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

  it('is valid ingest input with every trade before the anchor and within the days asked', () => {
    const records = [...demoRecords(opts)];
    for (const r of records) expect(parseRecord(r).ok).toBe(true);
    const trades = records.filter((r) => r.type === 'trade');
    expect(trades.length).toBeGreaterThan(100);
    for (const tr of trades) {
      expect(tr.blockTime).toBeLessThan(opts.until);
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

  it('feeds every demo token at its history rate, at the current time, only while the store holds only demo data', () => {
    const t = makeTestApp();
    const now = opts.until + 5;
    t.clock.set(now * 1000);
    loadDemo({ store: t.store, ingest: t.services.ingest }, opts);
    // Each token's hourly rate over its life within the history (fresh launches live a few hours).
    const history = t.store.db
      .prepare(
        `SELECT tr.token_id, count(*) * 3600.0 / (? - max(?, t.created_at + 120))
                FROM trades tr JOIN tokens t ON t.id = tr.token_id GROUP BY tr.token_id`,
      )
      .raw()
      .all(opts.until, opts.until - opts.days * 86400) as [number, number][];
    const stops: string[] = [];
    const feed = createDemoFeed(
      { store: t.store, ingest: t.services.ingest, clock: t.clock, metrics: t.services.metrics },
      { random: seededRandom(3), onStop: (r) => stops.push(r) },
    );
    // Six simulated hours in one-hour ticks: each token should trade about 6 x its hourly rate.
    let written = 0;
    for (let h = 0; h < 6; h++) written += feed.tick(3600);
    const fed = new Map(
      t.store.db.prepare('SELECT token_id, count(*) FROM trades WHERE block_time = ? GROUP BY token_id').raw().all(now) as [number, number][],
    );
    expect([...fed.values()].reduce((a, b) => a + b, 0)).toBe(written);
    const expected = history.reduce((s, [, perHour]) => s + perHour * 6, 0);
    expect(written / expected).toBeGreaterThan(0.8);
    expect(written / expected).toBeLessThan(1.25);
    for (const [token, perHour] of history) {
      expect(fed.get(token) ?? 0, `token ${token}`).toBeGreaterThan(0);
      if (perHour >= 10) {
        expect(fed.get(token)! / 6 / perHour, `token ${token}`).toBeGreaterThan(0.6);
        expect(fed.get(token)! / 6 / perHour, `token ${token}`).toBeLessThan(1.6);
      }
    }
    expect(t.store.db.prepare('SELECT max(block_time) FROM trades').pluck().get()).toBe(now);
    t.ingest([aToken()]);
    expect(feed.tick(3600)).toBe(0);
    expect(stops).toEqual(['real data arrived']);
    t.close();
  });

  it('runs on a timer and stops by itself when real data arrives', async () => {
    const t = makeTestApp();
    t.clock.set(opts.until * 1000 + 5000);
    loadDemo({ store: t.store, ingest: t.services.ingest }, opts);
    const stopped = new Promise<string>((resolve) =>
      startDemoFeed({ store: t.store, ingest: t.services.ingest, clock: t.clock, metrics: t.services.metrics }, { intervalMs: 10, onStop: resolve }),
    );
    t.ingest([aToken()]);
    expect(await stopped).toBe('real data arrived');
    t.close();
  });

  it('stops when the demo data is removed, and leaves no demo row behind', () => {
    const t = makeTestApp();
    t.clock.set(opts.until * 1000 + 5000);
    loadDemo({ store: t.store, ingest: t.services.ingest }, opts);
    const stops: string[] = [];
    const feed = createDemoFeed(
      { store: t.store, ingest: t.services.ingest, clock: t.clock, metrics: t.services.metrics },
      { random: seededRandom(5), onStop: (r) => stops.push(r) },
    );
    expect(feed.tick(3600)).toBeGreaterThan(0);
    const removed = removeDemo(t.store);
    expect(removed.tokens).toBe(6);
    expect(removed.trades).toBeGreaterThan(100);
    expect(feed.tick(3600)).toBe(0);
    expect(stops).toEqual(['the demo data was removed']);
    for (const table of ['tokens', 'markets', 'trades', 'holders', 'candles', 'wallet_last', 'market_last', 'wallet_rollups', 'market_rollups']) {
      expect(t.store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBe(0);
    }
    t.close();
  });
});
