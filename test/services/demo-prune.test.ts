// The bound on what the demo keeps (README, Demo data): the demo's trades older than its window
// (to the start of that UTC day) are deleted with the rollups that held only them, and every
// chart then answers exactly what a store holding only the kept trades answers.
import { afterEach, describe, expect, it } from 'vitest';
import { demoRecords } from '../../src/domain/demo-data.js';
import { loadDemo } from '../../src/services/demo.js';
import { demoCutoff, pruneDemo } from '../../src/services/demo-prune.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { rawSql } from '../helpers/raw-sql.js';
import { aToken } from '../helpers/builders.js';

const DAY = 86400;
// A flat rate (a few thousand trades) over three days, the anchor in the middle of a UTC day.
const opts = { tokens: 3, days: 3, seed: 17, until: 1_700_000_000 - (1_700_000_000 % DAY) + 13 * 3600 + 77, tradesPerTokenPerDay: 400 };

const apps: TestApp[] = [];
const app = () => {
  const t = makeTestApp();
  apps.push(t);
  return t;
};
afterEach(async () => {
  for (const t of apps.splice(0)) await t.close();
});

/**
 * An answer with its numbers to 12 significant digits: PostgreSQL adds a bucket's volume per ingest
 * slice, so the same trades ingested in other batches can differ in the last bits of a sum.
 */
const rounded = (v: unknown): unknown =>
  typeof v === 'number'
    ? Number(v.toPrecision(12))
    : Array.isArray(v)
      ? v.map(rounded)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rounded(x)]))
        : v;

const count = async (t: TestApp, sql: string, params: unknown[] = []) => (await rawSql<{ n: number }>(t.store, sql, params))[0]!.n;

describe('demo pruning', () => {
  it('deletes the demo trades before the window with the rollups that held only them: every chart answers what the kept trades make', async () => {
    const pruned = app();
    await pruned.services.repos.stats.answers();
    pruned.clock.set(opts.until * 1000);
    await loadDemo(pruned.services, opts);
    // A day and a half later (the feed would have run meanwhile; the pruning does not need it).
    const now = opts.until + DAY + DAY / 2;
    pruned.clock.set(now * 1000);
    const cutoff = demoCutoff(now, opts.days);
    expect(cutoff % DAY).toBe(0);
    const before = await count(pruned, 'SELECT count(*) AS n FROM trades');
    const old = await count(pruned, 'SELECT count(*) AS n FROM trades WHERE block_time < ?', [cutoff]);
    expect(old).toBeGreaterThan(100);

    expect(await pruneDemo({ store: pruned.store, repos: pruned.services.repos, clock: pruned.clock })).toBe(old);
    expect(await count(pruned, 'SELECT count(*) AS n FROM trades WHERE block_time < ?', [cutoff])).toBe(0);
    expect(await count(pruned, 'SELECT count(*) AS n FROM trades')).toBe(before - old);
    // No rollup is left that holds a deleted trade.
    expect(await count(pruned, 'SELECT count(*) AS n FROM candles WHERE t < ?', [cutoff])).toBe(0);
    expect(await count(pruned, 'SELECT count(*) AS n FROM market_candles WHERE t < ?', [cutoff])).toBe(0);
    expect(await count(pruned, 'SELECT count(*) AS n FROM market_rollups WHERE t < ?', [cutoff])).toBe(0);
    expect(await count(pruned, 'SELECT count(*) AS n FROM wallet_last WHERE last_time < ?', [cutoff])).toBe(0);
    // A second run finds nothing more to delete.
    expect(await pruneDemo({ store: pruned.store, repos: pruned.services.repos, clock: pruned.clock })).toBe(0);

    // The same set with only the kept trades, ingested into a fresh store.
    const kept = app();
    await kept.services.repos.stats.answers();
    kept.clock.set(now * 1000);
    await kept.ingest([...demoRecords(opts)].filter((r) => r.type !== 'trade' || r.blockTime >= cutoff));
    expect(await count(kept, 'SELECT count(*) AS n FROM trades')).toBe(before - old);

    const tokens = (await rawSql<{ address: string }>(pruned.store, 'SELECT address FROM tokens ORDER BY address')).map((r) => r.address);
    const from = opts.until - 5 * DAY;
    const to = now;
    for (const address of tokens) {
      for (const resolution of ['1', '15', '60', '240', '1D', '1W']) {
        const path = `/udf/history?symbol=${address}&resolution=${resolution}&from=${from}&to=${to}`;
        const [a, b] = await Promise.all([pruned.http.get(path), kept.http.get(path)]);
        expect(a.status, path).toBe(200);
        expect(rounded(a.body), path).toEqual(rounded(b.body));
      }
      // The overview's figures too (updatedAt is when each store took the token record in).
      const overview = async (t: TestApp) => ({ ...(await t.http.get(`/v1/token/${address}/overview`)).body, updatedAt: 0 });
      expect(rounded(await overview(pruned))).toEqual(rounded(await overview(kept)));
    }
    const markets = await rawSql<{ address: string; token: string }>(
      pruned.store,
      'SELECT m.address, t.address AS token FROM markets m JOIN tokens t ON t.id = m.token_id ORDER BY m.address',
    );
    for (const m of markets) {
      for (const resolution of ['1', '60', '1D']) {
        for (const currency of ['usd', 'native']) {
          const path = `/v1/token/${m.token}/candles?market=${m.address}&currency=${currency}&resolution=${resolution}&from=${from}&to=${to}`;
          const [a, b] = await Promise.all([pruned.http.get(path), kept.http.get(path)]);
          expect(a.status, path).toBe(200);
          expect(rounded(a.body), path).toEqual(rounded(b.body));
        }
      }
    }
  }, 120_000);

  it('prunes nothing once real data is in the store (the feed has stopped too)', async () => {
    const t = app();
    await t.services.repos.stats.answers();
    t.clock.set(opts.until * 1000);
    await loadDemo(t.services, opts);
    await t.ingest([aToken()]);
    t.clock.set((opts.until + 2 * DAY) * 1000);
    const before = await count(t, 'SELECT count(*) AS n FROM trades');
    expect(await pruneDemo({ store: t.store, repos: t.services.repos, clock: t.clock })).toBe(0);
    expect(await count(t, 'SELECT count(*) AS n FROM trades')).toBe(before);
  }, 60_000);

  it('keeps everything while the oldest demo trade is inside the window', async () => {
    const t = app();
    await t.services.repos.stats.answers();
    t.clock.set(opts.until * 1000);
    await loadDemo(t.services, opts);
    const before = await count(t, 'SELECT count(*) AS n FROM trades');
    expect(await pruneDemo({ store: t.store, repos: t.services.repos, clock: t.clock })).toBe(0);
    expect(await count(t, 'SELECT count(*) AS n FROM trades')).toBe(before);
  }, 60_000);
});
