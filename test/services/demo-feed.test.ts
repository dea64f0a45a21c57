// The demo feed through a real store: it trades every demo token at the live rate its history
// ended with (exactly the model's), fills the seconds the load took, measures the rates of a store
// from an older version, and stops when real data arrives or the demo is removed.
import { describe, expect, it } from 'vitest';
import { demoLiveRates, seededRandom } from '../../src/domain/demo-data.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { createDemoFeed, loadDemo, removeDemo, startDemoFeed } from '../../src/services/demo.js';
import { aToken } from '../helpers/builders.js';
import { rawSql } from '../helpers/raw-sql.js';

// Tens of thousands of trades: a PostgreSQL load of them takes tens of seconds on a loaded machine.
const opts = { tokens: 6, days: 3, seed: 7, until: 1_700_000_000 };
// The same tokens at one flat rate (a few thousand trades): for what does not depend on the busy end.
const flat = { ...opts, tradesPerTokenPerDay: 300 };

// Straight from the tables on either engine (test/helpers/raw-sql.ts).
const count = async (t: TestApp, from: string, params: unknown[] = []) =>
  (await rawSql<{ n: number }>(t.store, `SELECT count(*) AS n FROM ${from}`, params))[0]!.n;
/**
 * Resolves once the helpers' store is ready: loadDemo() writes through the ingest service, which
 * (unlike a repo call) does not wait for the PostgreSQL database the helpers make in the background.
 */
const opened = async (t: TestApp) => void (await t.services.repos.stats.answers());
const newestTrade = async (t: TestApp) => (await rawSql<{ t: number }>(t.store, 'SELECT max(block_time) AS t FROM trades'))[0]!.t;

describe('demo feed', () => {
  it('feeds every demo token at the live rate and trade size its history ended with, at the current time, only while the store holds only demo data', async () => {
    const t = makeTestApp();
    const now = opts.until + 5;
    t.clock.set(now * 1000);
    await opened(t);
    await loadDemo(t.services, opts);
    const live = demoLiveRates(opts);
    const ids = new Map((await rawSql<{ address: string; id: number }>(t.store, 'SELECT address, id FROM tokens')).map((r) => [r.address, r.id]));
    const stops: string[] = [];
    const feed = createDemoFeed({ ...t.services, clock: t.clock }, { random: seededRandom(3), onStop: (r) => stops.push(r) });
    // The feed's rate is the model's live rate of every token, exactly.
    expect(await feed.rates()).toEqual(new Map([...live].map(([address, r]) => [address, r.perSecond])));
    // Three simulated hours in one-hour ticks: each token trades about 3 x its live hourly rate.
    let written = 0;
    for (let h = 0; h < 3; h++) written += await feed.tick(3600);
    const volumes = async (sql: string, params: unknown[]) => (await rawSql<{ v: number }>(t.store, sql, params)).map((r) => r.v);
    const fed = (id: number) => volumes('SELECT volume_usd AS v FROM trades WHERE block_time = ? AND token_id = ? ORDER BY volume_usd', [now, id]);
    const lastHour = (id: number) =>
      volumes('SELECT volume_usd AS v FROM trades WHERE block_time >= ? AND block_time < ? AND token_id = ? ORDER BY volume_usd', [
        opts.until - 3600,
        opts.until,
        id,
      ]);
    let total = 0;
    for (const [address, rate] of live) {
      const id = ids.get(address)!;
      const mine = await fed(id);
      const mean = rate.perSecond * 3 * 3600;
      total += mine.length;
      // Every token trades, at its rate (a Poisson count: within four standard deviations).
      expect(mine.length, address).toBeGreaterThan(0);
      expect(Math.abs(mine.length - mean), address).toBeLessThanOrEqual(4 * Math.sqrt(mean) + 2);
      // As the history's last hour did: as many trades an hour, of the same size.
      const history = await lastHour(id);
      expect(Math.abs(mine.length / 3 - history.length), address).toBeLessThanOrEqual(4 * Math.sqrt(history.length) + 4 * Math.sqrt(mean / 3) + 2);
      if (history.length >= 300) {
        const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;
        expect(median(mine) / median(history), address).toBeGreaterThan(0.8);
        expect(median(mine) / median(history), address).toBeLessThan(1.25);
      }
    }
    expect(total).toBe(written);
    expect(await newestTrade(t)).toBe(now);
    await t.ingest([aToken()]);
    expect(await feed.tick(3600)).toBe(0);
    expect(stops).toEqual(['real data arrived']);
    await t.close();
  }, 120_000);

  it('fills the seconds the load took on its first tick, spread over them, then trades at the current time', async () => {
    const t = makeTestApp();
    const now = opts.until + 20;
    t.clock.set(now * 1000);
    await opened(t);
    await loadDemo(t.services, opts);
    const newest = await newestTrade(t);
    const feed = createDemoFeed({ ...t.services, clock: t.clock }, { random: seededRandom(6) });
    const perSecond = [...(await feed.rates()).values()].reduce((a, b) => a + b, 0);
    const first = await feed.tick(1);
    const times = (await rawSql<{ t: number }>(t.store, 'SELECT block_time AS t FROM trades WHERE block_time > ? ORDER BY block_time', [newest])).map(
      (r) => r.t,
    );
    expect(times.length).toBe(first);
    const mean = perSecond * (now - newest);
    expect(Math.abs(first - mean)).toBeLessThanOrEqual(4 * Math.sqrt(mean) + 2);
    expect(times[0]).toBeGreaterThan(newest);
    expect(times.at(-1)).toBeLessThanOrEqual(now);
    expect(new Set(times).size).toBeGreaterThan(5);
    t.clock.set((now + 1) * 1000);
    const second = await feed.tick(1);
    expect(await count(t, 'trades WHERE block_time > ?', [now])).toBe(second);
    await t.close();
  }, 120_000);

  it('measures the rates of a store loaded before the live rates were kept (its history is flat)', async () => {
    const t = makeTestApp();
    t.clock.set((opts.until + 5) * 1000);
    await opened(t);
    await loadDemo(t.services, flat);
    await t.services.repos.meta.set('demo', JSON.stringify({ seed: opts.seed, until: opts.until, days: opts.days, tokens: opts.tokens }));
    const feed = createDemoFeed({ ...t.services, clock: t.clock }, { random: seededRandom(4) });
    // Over a set shorter than a week: every trade of the token over the time from its first to its last.
    const spans = await rawSql<{ address: string; n: number; first: number; last: number; created: number }>(
      t.store,
      'SELECT t.address, count(*) AS n, min(tr.block_time) AS first, max(tr.block_time) AS last, t.created_at AS created FROM trades tr JOIN tokens t ON t.id = tr.token_id GROUP BY t.id',
    );
    const measured = spans.map((r) => [r.address, r.n / Math.max(3600, r.last - Math.max(r.first, r.created))] as const);
    const rates = await feed.rates();
    for (const [address, rate] of measured) expect(rates.get(address), address).toBeCloseTo(rate, 12);
    // Options that cannot be read are treated the same way (a feed is no reason to fail a tick).
    await t.services.repos.meta.set('demo', '{not json');
    const unreadable = await createDemoFeed({ ...t.services, clock: t.clock }, { random: seededRandom(4) }).rates();
    for (const [address, rate] of measured) expect(unreadable.get(address), address).toBeCloseTo(rate, 12);
    await t.close();
  });

  it('runs on a timer and stops by itself when real data arrives', async () => {
    const t = makeTestApp();
    t.clock.set(opts.until * 1000 + 5000);
    await opened(t);
    await loadDemo(t.services, flat);
    // The feed asks at its start whether the store holds demo data only; real data arrives once it
    // has been answered (on PostgreSQL a repo call waits for the helpers' queued ingest, so one
    // queued before the answer would be seen by it, and the feed would never have been active).
    const demo = t.services.repos.demo;
    let asked: Promise<boolean> | undefined;
    const repos = { ...t.services.repos, demo: { ...demo, holdsOnlyDemo: () => (asked = demo.holdsOnlyDemo()) } };
    const stopped = new Promise<string>((resolve) => startDemoFeed({ ...t.services, repos, clock: t.clock }, { intervalMs: 10, onStop: resolve }));
    expect(await asked).toBe(true);
    await t.ingest([aToken()]);
    expect(await stopped).toBe('real data arrived');
    await t.close();
  });

  it('stops when the demo data is removed, and leaves no demo row behind', async () => {
    const t = makeTestApp();
    t.clock.set(opts.until * 1000 + 5000);
    await opened(t);
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
      expect(await count(t, table), table).toBe(0);
    }
    await t.close();
  });
});
