/**
 * The demo feed's reads on PostgreSQL answer as on SQLite for the same random calls on one store
 * of real and demo tokens, and `removeDemo()` removes the same rows from every table (events and
 * their deliveries too), answers the same counts, leaves the same change log entries and the same
 * reads, then removes nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createDemoRepo, type DemoRepo } from '../../src/store/sqlite/demo-repo.js';
import { asyncRepo, type Async } from '../../src/store/port/async.js';
import { createPgDemoRepo } from '../../src/store/pg/demo-repo.js';
import { marketFixture, type MarketFixture } from './market-fixture.js';
import { callsOf, compareRandom, sameAnswers, type Call } from './twins.js';

type Repo = Async<DemoRepo>;
const T0 = 1_700_000_000;
const call = callsOf<Repo>();

const READS: Call<Repo>[] = [
  { label: 'feedTokens()', run: (r) => r.feedTokens() },
  { label: 'holdsOnlyDemo()', run: (r) => r.holdsOnlyDemo() },
  { label: 'composition()', run: (r) => r.composition() },
  { label: 'newestTraded()', run: (r) => r.newestTraded() },
  { label: 'demoTokenIds()', run: (r) => r.demoTokenIds() },
];

describe('demo repo on PostgreSQL', () => {
  let f: MarketFixture;
  let tokenIds: number[];
  beforeAll(async () => {
    f = await marketFixture('demo', 17, { holders: true, demo: true, varied: true });
    tokenIds = f.store.db.prepare('SELECT id FROM tokens ORDER BY id').pluck().all() as number[];
    // Events (and a delivery) for a demo token and a real one, by the same SQL on both engines.
    const [demo, real] = ['SELECT address FROM tokens WHERE is_demo = 1', 'SELECT address FROM tokens WHERE is_demo = 0'].map(
      (sql) => f.store.db.prepare(`${sql} ORDER BY id LIMIT 1`).pluck().get() as string,
    );
    const sqls = [
      "INSERT INTO tenants (id, name, plan, created_at) VALUES ('t1', 'T', 'free', 0)",
      `INSERT INTO subscriptions (id, tenant_id, address, webhook_url, created_at) VALUES ('s1', 't1', '${demo}', 'https://x.test/', 0)`,
      ...[demo, demo, real].map((token, i) => `INSERT INTO events (id, tenant_id, token, created_at, data) VALUES (${i + 1}, 't1', '${token}', 0, '{}')`),
      "INSERT INTO webhook_deliveries (event_id, subscription_id, status, due_at, deadline_at) VALUES (1, 's1', 'pending', 0, 0)",
    ];
    for (const sql of sqls) {
      f.store.db.exec(sql);
      await f.engines.pool.query(sql);
    }
  });
  afterAll(async () => {
    await f?.close();
  });

  it('answers the feed reads as the SQLite repo does for the same random calls', async () => {
    const tokenId = fc.oneof(fc.constantFrom(...tokenIds), fc.constant(9999));
    const calls = fc.oneof(
      ...READS.map((c) => fc.constant(c)),
      call('markets', fc.tuple(tokenId), (r, id) => r.markets(id)),
      call('recent', fc.tuple(tokenId, fc.integer({ min: T0 - 86_400, max: T0 + 250 })), (r, id, since) => r.recent(id, since)),
      call('solPrice', fc.tuple(tokenId), (r, id) => r.solPrice(id)),
      call('holderCount', fc.tuple(tokenId), (r, id) => r.holderCount(id)),
      call('topHolders', fc.tuple(tokenId, fc.integer({ min: -1, max: 7 })), (r, id, n) => r.topHolders(id, n)),
    );
    const lite = asyncRepo(createDemoRepo(f.store.db));
    const pg = createPgDemoRepo(f.engines.pool);
    const { total, nonEmpty } = await compareRandom(lite, pg, calls, 100);
    expect(nonEmpty).toBeGreaterThan(total / 3);
    expect(await pg.demoTokenIds()).toHaveLength(3);
    expect(await pg.composition()).toEqual({ tokens: f.tokens.length + 3, real: f.tokens.length });
  });

  it('removes the same rows in one transaction, with the same counts', async () => {
    // Every table of the PostgreSQL schema (SQLite's FTS5 tables are indexes there).
    const tables = (
      await f.engines.pool.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'store_migrations'",
      )
    ).rows.map((r) => r.name);
    expect(tables).toContain('market_candles');
    const counts = async () => {
      const lite: Record<string, number> = {};
      const pg: Record<string, number> = {};
      for (const table of tables) {
        lite[table] = f.store.db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number;
        pg[table] = (await f.engines.pool.query<{ n: number }>(`SELECT count(*) AS n FROM "${table}"`)).rows[0]!.n;
      }
      return { lite, pg };
    };
    const before = await counts();
    const maxSeqBefore = (await f.engines.pool.query<{ n: number }>('SELECT max(seq) AS n FROM token_changes')).rows[0]!.n;
    expect(before.pg).toEqual(before.lite);
    const log = 'SELECT seq, token_id FROM token_changes ORDER BY seq';
    const lite = asyncRepo(createDemoRepo(f.store.db));
    const pg = createPgDemoRepo(f.engines.pool);
    const [removed] = await sameAnswers(lite, pg, [{ label: 'removeDemo()', run: (r) => r.removeDemo() }]);
    expect(removed).toEqual({ value: { tokens: 3, markets: expect.any(Number), trades: expect.any(Number), holders: expect.any(Number), events: 2 } });
    const after = await counts();
    expect(after.pg).toEqual(after.lite);
    expect(after.lite.tokens).toBe(f.tokens.length);
    expect(after.lite.webhook_deliveries).toBe(0);
    // The same entries in the same order. Their numbers differ where SQLite hands out again the
    // numbers of the removed tokens' newest entries; an identity goes on past them.
    const pgLog = (await f.engines.pool.query<[number, number]>({ text: log, rowMode: 'array' })).rows;
    const liteLog = f.store.db.prepare(log).raw().all() as [number, number][];
    expect(pgLog.map(([, id]) => id)).toEqual(liteLog.map(([, id]) => id));
    const demoIds = pgLog.slice(-3).map(([, id]) => id);
    expect(demoIds).toEqual([...demoIds].sort((a, b) => a - b));
    expect(pgLog.at(-3)![0]).toBeGreaterThan(maxSeqBefore);
    await sameAnswers(lite, pg, [...READS, { label: 'removeDemo() again', run: (r) => r.removeDemo() }]);
  });
});
