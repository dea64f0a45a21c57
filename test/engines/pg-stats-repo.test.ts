/**
 * The store's own figures on PostgreSQL answer as on SQLite for the same market store (token and
 * trade counts, pending deliveries, whether it answers, the page limit), and its size is the
 * database's; a database without the outbox table answers null for pending deliveries, as SQLite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatsRepo, type StatsRepo } from '../../src/store/sqlite/stats-repo.js';
import { asyncRepo, type Async } from '../../src/store/port/async.js';
import { createPgStatsRepo } from '../../src/store/pg/stats-repo.js';
import { marketFixture, type MarketFixture } from './market-fixture.js';
import { sameAnswers, type Call } from './twins.js';

type Repo = Async<StatsRepo>;

const READS: Call<Repo>[] = [
  { label: 'tokens()', run: (r) => r.tokens() },
  { label: 'trades()', run: (r) => r.trades() },
  { label: 'answers()', run: (r) => r.answers() },
  { label: 'atPageLimit()', run: (r) => r.atPageLimit() },
  { label: 'pendingDeliveries()', run: (r) => r.pendingDeliveries() },
];

/** A tenant, a subscription, an event and deliveries in each status, by the same SQL on both engines. */
const OUTBOX_ROWS = [
  "INSERT INTO tenants (id, name, plan, created_at) VALUES ('t1', 'T', 'free', 0)",
  "INSERT INTO subscriptions (id, tenant_id, address, webhook_url, created_at) VALUES ('s1', 't1', 'a', 'https://x.test/', 0)",
  "INSERT INTO events (id, tenant_id, token, created_at, data) VALUES (1, 't1', 'a', 0, '{}')",
  ...['pending', 'pending', 'delivered', 'failed', 'pending'].map(
    (status) => `INSERT INTO webhook_deliveries (event_id, subscription_id, status, due_at, deadline_at) VALUES (1, 's1', '${status}', 0, 0)`,
  ),
];

describe('stats repo on PostgreSQL', () => {
  let f: MarketFixture;
  beforeAll(async () => {
    f = await marketFixture('stats');
    for (const sql of OUTBOX_ROWS) {
      f.store.db.exec(sql);
      await f.engines.pool.query(sql);
    }
  });
  afterAll(async () => {
    await f?.close();
  });

  it('answers the counts as the SQLite repo does', async () => {
    const answers = await sameAnswers(asyncRepo(createStatsRepo(f.store.db)), createPgStatsRepo(f.engines.pool), READS);
    expect(answers.map((a) => ('value' in a ? a.value : 'threw'))).toEqual([f.tokens.length, f.maxTradeId, true, false, 3]);
  });

  it("gives the database's size", async () => {
    const size = await createPgStatsRepo(f.engines.pool).sizeBytes();
    const { n } = (await f.engines.pool.query<{ n: number }>('SELECT pg_database_size(current_database()) AS n')).rows[0]!;
    expect(size).toBe(n);
    expect(size).toBeGreaterThan(1_000_000);
  });

  it('answers null for pending deliveries where the outbox table is missing', async () => {
    const client = await f.engines.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('DROP TABLE webhook_deliveries');
      expect(await createPgStatsRepo(client).pendingDeliveries()).toBeNull();
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await createPgStatsRepo(f.engines.pool).pendingDeliveries()).toBe(3);
  });
});
