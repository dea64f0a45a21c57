/**
 * The webhook outbox on PostgreSQL: the same answers as the SQLite repo for the same calls, and
 * shared by several instances: concurrent claimDue() calls take every due row exactly once, and
 * a leased row whose instance died comes due again when the lease ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { migrate } from '../../src/store/sqlite/db.js';
import { createWebhookOutboxRepo } from '../../src/store/sqlite/webhook-outbox-repo.js';
import { createPgWebhookOutboxRepo } from '../../src/store/pg/webhook-outbox-repo.js';
import { createPgPool } from '../../src/store/pg/pool.js';
import { migratePg } from '../../src/store/pg/migrate.js';
import { freshDatabase, type FreshDatabase } from './support.js';

const T = 1_750_000_000_000; // ms

/** Tenants t1..t3, a subscription each with a webhook URL, t1 and t2 with a secret, and `events` events per tenant. */
function seedStatements(events: number): [string, unknown[]][] {
  const out: [string, unknown[]][] = [];
  for (const t of ['t1', 't2', 't3']) {
    out.push([`INSERT INTO tenants (id, name, plan, created_at) VALUES ($1, $2, 'free', 0)`, [t, `Tenant ${t}`]]);
    out.push([
      `INSERT INTO subscriptions (id, tenant_id, address, webhook_url, created_at) VALUES ($1, $2, 'A1', $3, 0)`,
      [`s-${t}`, t, `https://hooks.example/${t}`],
    ]);
    if (t !== 't3') out.push([`INSERT INTO webhook_secrets (tenant_id, secret, created_at) VALUES ($1, $2, 0)`, [t, `secret-${t}`]]);
  }
  let id = 0;
  for (let i = 0; i < events; i++) {
    for (const t of ['t1', 't2', 't3']) {
      id++;
      out.push([`INSERT INTO events (id, tenant_id, token, created_at, data) VALUES ($1, $2, 'A1', $3, $4)`, [id, t, 1750000000 + i, `{"trades":[${id}]}`]]);
    }
  }
  return out;
}

describe('webhook outbox on PostgreSQL', () => {
  let db: FreshDatabase;
  let pools: pg.Pool[] = [];

  beforeAll(async () => {
    db = await freshDatabase('outbox');
    pools = [1, 2, 3, 4].map((i) => createPgPool({ url: db.url, instanceId: `outbox-${i}`, max: 2 }));
    const c = await pools[0]!.connect();
    try {
      await migratePg(c);
    } finally {
      c.release();
    }
  });
  afterAll(async () => {
    for (const p of pools) await p.end();
    await db?.drop();
  });

  const reset = async () => {
    await pools[0]!.query('TRUNCATE webhook_deliveries, events, webhook_secrets, subscriptions, tenants RESTART IDENTITY CASCADE');
  };

  it('answers as the SQLite repo does for the same calls', async () => {
    await reset();
    const lite = new Database(':memory:');
    migrate(lite);
    for (const [sql, params] of seedStatements(3)) {
      lite.prepare(sql.replace(/\$\d+/g, '?')).run(...params);
      await pools[0]!.query(sql, params);
    }
    const a = createWebhookOutboxRepo(lite);
    const b = createPgWebhookOutboxRepo(pools[0]!);
    const both = async <R>(f: (r: typeof a | typeof b) => R | Promise<R>): Promise<R> => {
      const want = await f(a);
      expect(await f(b)).toEqual(want);
      return want;
    };
    for (let e = 1; e <= 9; e++) await both((r) => r.enqueue(e, `s-t${((e - 1) % 3) + 1}`, T + e * 10, T + 86_400_000));
    expect(await both((r) => r.due(T + 50, 100))).toHaveLength(5);
    expect(await both((r) => r.due(T + 1000, 4, ['t2']))).toHaveLength(4);
    expect(await both((r) => r.claim(1, T + 10, T + 70_000))).toBe(true);
    expect(await both((r) => r.claim(1, T + 10, T + 80_000))).toBe(false);
    await both((r) => r.retry({ id: 2, attempts: 1, dueAt: T + 5_000, lastStatus: 500, lastError: 'HTTP 500' }));
    await both((r) => r.delivered({ id: 3, attempts: 1, lastStatus: 204, lastError: null, now: T + 100 }));
    await both((r) => r.finish({ id: 4, attempts: 3, status: 'failed', lastStatus: null, lastError: 'timeout', now: T + 200 }));
    await both((r) => r.finish({ id: 5, attempts: 0, status: 'cancelled', lastStatus: null, lastError: 'no URL', now: T + 300 }));
    // Rows done are not changed again.
    await both((r) => r.retry({ id: 3, attempts: 9, dueAt: T, lastStatus: 500, lastError: 'late' }));
    for (let e = 1; e <= 9; e++) await both((r) => r.byEvent(e));
    expect(await both((r) => r.pendingCount())).toBe(6);
    expect((await both((r) => r.due(T + 10_000, 100))).map((d) => d.id)).toEqual([6, 7, 8, 9, 2]);
    lite.close();
  });

  it('gives every due row to exactly one of several instances claiming at once', async () => {
    await reset();
    for (const [sql, params] of seedStatements(100)) await pools[0]!.query(sql, params);
    const repo = createPgWebhookOutboxRepo(pools[0]!);
    for (let e = 1; e <= 300; e++) await repo.enqueue(e, `s-t${((e - 1) % 3) + 1}`, T + (e % 17), T + 86_400_000);
    const claimed: number[][] = [[], [], [], []];
    // SKIP LOCKED: rows one instance holds are passed over by another's claim, not waited for.
    // Held here in an open transaction, the first seven in due order; the second instance's
    // claim takes the next seven (were it to wait for the lock, the test would time out).
    const holder = await pools[0]!.connect();
    await holder.query('BEGIN');
    const held = (await holder.query<{ id: string }>('SELECT id FROM webhook_deliveries ORDER BY due_at, id LIMIT 7 FOR UPDATE')).rows.map((r) => Number(r.id));
    const passed = (await createPgWebhookOutboxRepo(pools[1]!).claimDue(T + 100, 7, T + 60_000)).map((d) => d.id);
    await holder.query('ROLLBACK');
    holder.release();
    expect(held).toHaveLength(7);
    expect(passed).toHaveLength(7);
    expect(passed.filter((id) => held.includes(id))).toEqual([]);
    claimed[1]!.push(...passed);
    await Promise.all(
      pools.map(async (pool, i) => {
        const r = createPgWebhookOutboxRepo(pool);
        for (;;) {
          const got = await r.claimDue(T + 100, 7, T + 60_000);
          if (got.length === 0) return;
          claimed[i]!.push(...got.map((d) => d.id));
        }
      }),
    );
    const all = claimed.flat().sort((x, y) => x - y);
    expect(all).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(await repo.due(T + 59_999, 1000)).toEqual([]);
  });

  it('brings a leased row back when its lease ends, as when its instance died mid-delivery', async () => {
    await reset();
    for (const [sql, params] of seedStatements(1)) await pools[0]!.query(sql, params);
    const repo = createPgWebhookOutboxRepo(pools[0]!);
    await repo.enqueue(1, 's-t1', T, T + 86_400_000);
    await repo.enqueue(2, 's-t2', T + 5, T + 86_400_000);
    await repo.enqueue(3, 's-t3', T + 6, T + 86_400_000);

    const first = await repo.claimDue(T + 10, 10, T + 65_000, ['t3']);
    expect(first.map((d) => [d.id, d.dueAt, d.tenantId, d.webhookUrl, d.secret, d.data])).toEqual([
      [1, T, 't1', 'https://hooks.example/t1', 'secret-t1', '{"trades":[1]}'],
      [2, T + 5, 't2', 'https://hooks.example/t2', 'secret-t2', '{"trades":[2]}'],
    ]);
    // The instance that claimed them dies: nothing is delivered, and nobody else takes them early.
    expect((await repo.claimDue(T + 64_999, 10, T + 200_000)).map((d) => d.id)).toEqual([3]);
    const again = await repo.claimDue(T + 65_000, 10, T + 130_000);
    expect(again.map((d) => [d.id, d.attempts, d.dueAt])).toEqual([
      [1, 0, T + 65_000],
      [2, 0, T + 65_000],
    ]);
    expect(await repo.pendingCount()).toBe(3);
  });
});
