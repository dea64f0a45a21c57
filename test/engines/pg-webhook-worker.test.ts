/**
 * The webhook worker on the PostgreSQL outbox (src/services/webhooks.ts, WorkerOutbox): two
 * workers on two pools, as two instances would be, take their deliveries with claimDue() and
 * deliver every event exactly once to a real receiver, and the outbox records each as delivered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { createPgWebhookOutboxRepo } from '../../src/store/pg/webhook-outbox-repo.js';
import { createPgPool } from '../../src/store/pg/pool.js';
import { migratePg } from '../../src/store/pg/migrate.js';
import { startWebhookWorker, type WebhookWorker, type WorkerOutbox } from '../../src/services/webhooks.js';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { startReceiver, type Receiver } from '../subscriptions/receiver.js';
import { freshDatabase, type FreshDatabase } from './support.js';

const TENANTS = ['t1', 't2', 't3'];
const EVENTS_PER_TENANT = 10;

describe('the webhook worker on PostgreSQL', () => {
  let db: FreshDatabase;
  let pools: pg.Pool[] = [];
  let receiver: Receiver;
  let t: TestApp;

  beforeAll(async () => {
    db = await freshDatabase('webhook_worker');
    pools = [1, 2].map((i) => createPgPool({ url: db.url, instanceId: `worker-${i}`, max: 3 }));
    const c = await pools[0]!.connect();
    try {
      await migratePg(c);
    } finally {
      c.release();
    }
    receiver = await startReceiver([204]);
    // The SQLite app only lends the workers its clock, counters and write gate; the outbox is PostgreSQL's.
    t = makeTestApp();
  });
  afterAll(async () => {
    await receiver?.close();
    t?.close();
    for (const p of pools) await p.end();
    await db?.drop();
  });

  it('delivers every event exactly once when two instances take batches at once', async () => {
    const now = t.clock.now();
    const outbox = createPgWebhookOutboxRepo(pools[0]!);
    let id = 0;
    for (const tenant of TENANTS) {
      await pools[0]!.query(`INSERT INTO tenants (id, name, plan, created_at) VALUES ($1, $1, 'free', 0)`, [tenant]);
      await pools[0]!.query(`INSERT INTO subscriptions (id, tenant_id, address, webhook_url, created_at) VALUES ($1, $2, 'A1', $3, 0)`, [
        `s-${tenant}`,
        tenant,
        receiver.url(`/${tenant}`),
      ]);
      await pools[0]!.query(`INSERT INTO webhook_secrets (tenant_id, secret, created_at) VALUES ($1, 'whsec_test', 0)`, [tenant]);
    }
    for (let i = 0; i < EVENTS_PER_TENANT; i++) {
      for (const tenant of TENANTS) {
        id++;
        await pools[0]!.query(`INSERT INTO events (id, tenant_id, token, created_at, data) VALUES ($1, $2, 'A1', $3, '{"trades":[]}')`, [id, tenant, i]);
        await outbox.enqueue(id, `s-${tenant}`, now - 1000 + id, now + 86_400_000);
      }
    }

    const batches: number[] = [];
    const workers: WebhookWorker[] = pools.map((pool) => {
      const repo = createPgWebhookOutboxRepo(pool);
      const counted: WorkerOutbox = {
        ...repo,
        claimDue: async (...args) => {
          const taken = await repo.claimDue(...args);
          batches.push(taken.length);
          return taken;
        },
      };
      return startWebhookWorker({
        services: { ...t.services, repos: { outbox: counted } },
        store: t.store,
        clock: t.clock,
        config: t.config,
        loop: false,
        concurrency: 4,
        perTenant: 2,
      });
    });
    try {
      const made = await Promise.all(workers.map((w) => w.runOnce()));
      expect(made[0]! + made[1]!).toBe(id);
    } finally {
      for (const w of workers) await w.stop();
    }
    const ids = receiver.received.map((r) => Number(r.headers['svc-event-id']!.toString().slice('evt_'.length)));
    expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: id }, (_, i) => i + 1));
    expect(Math.max(...batches)).toBeLessThanOrEqual(4);
    const { rows } = await pools[0]!.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status');
    expect(rows).toEqual([{ status: 'delivered', n: id }]);
  });
});
