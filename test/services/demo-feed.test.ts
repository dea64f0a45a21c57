// The demo feed through a real store: it trades every demo token at the live rate its history
// ended with (exactly the model's), fills the seconds the load took, measures the rates of a store
// from an older version, and stops when real data arrives or the demo is removed.
import { describe, expect, it } from 'vitest';
import { demoLiveRates, seededRandom } from '../../src/domain/demo-data.js';
import { makeTestApp } from '../helpers/make-test-app.js';
import { createDemoFeed, loadDemo, removeDemo, startDemoFeed } from '../../src/services/demo.js';
import { aToken } from '../helpers/builders.js';

const opts = { tokens: 6, days: 3, seed: 7, until: 1_700_000_000 };
// The same tokens at one flat rate (a few thousand trades): for what does not depend on the busy end.
const flat = { ...opts, tradesPerTokenPerDay: 300 };

describe('demo feed', () => {
  it('feeds every demo token at the live rate and trade size its history ended with, at the current time, only while the store holds only demo data', async () => {
    const t = makeTestApp();
    const now = opts.until + 5;
    t.clock.set(now * 1000);
    await loadDemo(t.services, opts);
    const live = demoLiveRates(opts);
    const ids = new Map(t.store.db.prepare('SELECT address, id FROM tokens').raw().all() as [string, number][]);
    const stops: string[] = [];
    const feed = createDemoFeed({ ...t.services, clock: t.clock }, { random: seededRandom(3), onStop: (r) => stops.push(r) });
    // The feed's rate is the model's live rate of every token, exactly.
    expect(await feed.rates()).toEqual(new Map([...live].map(([address, r]) => [address, r.perSecond])));
    // Three simulated hours in one-hour ticks: each token trades about 3 x its live hourly rate.
    let written = 0;
    for (let h = 0; h < 3; h++) written += await feed.tick(3600);
    const fed = (id: number) =>
      t.store.db.prepare('SELECT volume_usd FROM trades WHERE block_time = ? AND token_id = ? ORDER BY volume_usd').pluck().all(now, id) as number[];
    const lastHour = (id: number) =>
      t.store.db
        .prepare('SELECT volume_usd FROM trades WHERE block_time >= ? AND block_time < ? AND token_id = ? ORDER BY volume_usd')
        .pluck()
        .all(opts.until - 3600, opts.until, id) as number[];
    let total = 0;
    for (const [address, rate] of live) {
      const id = ids.get(address)!;
      const mine = fed(id);
      const mean = rate.perSecond * 3 * 3600;
      total += mine.length;
      // Every token trades, at its rate (a Poisson count: within four standard deviations).
      expect(mine.length, address).toBeGreaterThan(0);
      expect(Math.abs(mine.length - mean), address).toBeLessThanOrEqual(4 * Math.sqrt(mean) + 2);
      // As the history's last hour did: as many trades an hour, of the same size.
      const history = lastHour(id);
      expect(Math.abs(mine.length / 3 - history.length), address).toBeLessThanOrEqual(4 * Math.sqrt(history.length) + 4 * Math.sqrt(mean / 3) + 2);
      if (history.length >= 300) {
        const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;
        expect(median(mine) / median(history), address).toBeGreaterThan(0.8);
        expect(median(mine) / median(history), address).toBeLessThan(1.25);
      }
    }
    expect(total).toBe(written);
    expect(t.store.db.prepare('SELECT max(block_time) FROM trades').pluck().get()).toBe(now);
    t.ingest([aToken()]);
    expect(await feed.tick(3600)).toBe(0);
    expect(stops).toEqual(['real data arrived']);
    t.close();
  });

  it('fills the seconds the load took on its first tick, spread over them, then trades at the current time', async () => {
    const t = makeTestApp();
    const now = opts.until + 20;
    t.clock.set(now * 1000);
    await loadDemo(t.services, opts);
    const newest = t.store.db.prepare('SELECT max(block_time) FROM trades').pluck().get() as number;
    const feed = createDemoFeed({ ...t.services, clock: t.clock }, { random: seededRandom(6) });
    const perSecond = [...(await feed.rates()).values()].reduce((a, b) => a + b, 0);
    const first = await feed.tick(1);
    const times = t.store.db.prepare('SELECT block_time FROM trades WHERE block_time > ? ORDER BY block_time').pluck().all(newest) as number[];
    expect(times.length).toBe(first);
    const mean = perSecond * (now - newest);
    expect(Math.abs(first - mean)).toBeLessThanOrEqual(4 * Math.sqrt(mean) + 2);
    expect(times[0]).toBeGreaterThan(newest);
    expect(times.at(-1)).toBeLessThanOrEqual(now);
    expect(new Set(times).size).toBeGreaterThan(5);
    t.clock.set((now + 1) * 1000);
    const second = await feed.tick(1);
    expect(t.store.db.prepare('SELECT count(*) FROM trades WHERE block_time > ?').pluck().get(now)).toBe(second);
    t.close();
  });

  it('measures the rates of a store loaded before the live rates were kept (its history is flat)', async () => {
    const t = makeTestApp();
    t.clock.set((opts.until + 5) * 1000);
    await loadDemo(t.services, flat);
    t.store.db
      .prepare("UPDATE meta SET value = ? WHERE key = 'demo'")
      .run(JSON.stringify({ seed: opts.seed, until: opts.until, days: opts.days, tokens: opts.tokens }));
    const feed = createDemoFeed({ ...t.services, clock: t.clock }, { random: seededRandom(4) });
    // Over a set shorter than a week: every trade of the token over the time from its first to its last.
    const measured = t.store.db
      .prepare(
        'SELECT t.address, count(*) * 1.0 / max(3600, max(tr.block_time) - max(min(tr.block_time), t.created_at)) FROM trades tr JOIN tokens t ON t.id = tr.token_id GROUP BY t.id',
      )
      .raw()
      .all() as [string, number][];
    const rates = await feed.rates();
    for (const [address, rate] of measured) expect(rates.get(address), address).toBeCloseTo(rate, 12);
    // Options that cannot be read are treated the same way (a feed is no reason to fail a tick).
    t.store.db.prepare("UPDATE meta SET value = '{not json' WHERE key = 'demo'").run();
    const unreadable = await createDemoFeed({ ...t.services, clock: t.clock }, { random: seededRandom(4) }).rates();
    for (const [address, rate] of measured) expect(unreadable.get(address), address).toBeCloseTo(rate, 12);
    t.close();
  });

  it('runs on a timer and stops by itself when real data arrives', async () => {
    const t = makeTestApp();
    t.clock.set(opts.until * 1000 + 5000);
    await loadDemo(t.services, flat);
    const stopped = new Promise<string>((resolve) => startDemoFeed({ ...t.services, clock: t.clock }, { intervalMs: 10, onStop: resolve }));
    t.ingest([aToken()]);
    expect(await stopped).toBe('real data arrived');
    t.close();
  });

  it('stops when the demo data is removed, and leaves no demo row behind', async () => {
    const t = makeTestApp();
    t.clock.set(opts.until * 1000 + 5000);
    await loadDemo(t.services, flat);
    const stops: string[] = [];
    const feed = createDemoFeed({ ...t.services, clock: t.clock }, { random: seededRandom(5), onStop: (r) => stops.push(r) });
    expect(await feed.tick(3600)).toBeGreaterThan(0);
    const removed = await removeDemo({ store: t.store, repos: t.services.repos });
    expect(removed.tokens).toBe(6);
    expect(removed.trades).toBeGreaterThan(100);
    expect(await feed.tick(3600)).toBe(0);
    expect(stops).toEqual(['the demo data was removed']);
    for (const table of [
      'tokens',
      'markets',
      'trades',
      'holders',
      'candles',
      'wallet_last',
      'market_last',
      'market_rollups',
      'market_candles',
      'trade_commits',
    ]) {
      expect(t.store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBe(0);
    }
    t.close();
  });
});
