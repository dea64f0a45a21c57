/**
 * The webhook worker's batch path (src/services/webhooks.ts, WorkerOutbox): given an outbox with
 * `claimDue` (PostgreSQL's: due rows taken and leased in one statement), the worker takes its
 * deliveries that way, gives back at once what its per-tenant cap does not let it start (their
 * due times as they were), stays fair between tenants, and two workers never deliver one row twice.
 * Here `claimDue` is SQLite's due() and claim() in one IMMEDIATE transaction: the same contract,
 * on the store the suite runs on (test/engines/ has the PostgreSQL one).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade } from '../helpers/builders.js';
import { writeTransaction } from '../../src/store/db.js';
import { createWebhookOutboxRepo, type DueDelivery } from '../../src/store/webhook-outbox-repo.js';
import { startWebhookWorker, type WebhookWorker, type WorkerOutbox } from '../../src/services/webhooks.js';
import { startReceiver, type Receiver } from './receiver.js';

let t: TestApp | undefined;
let receivers: Receiver[] = [];
let workers: WebhookWorker[] = [];
afterEach(async () => {
  for (const r of receivers) await r.close();
  for (const w of workers) await w.stop();
  t?.close();
  t = undefined;
  receivers = [];
  workers = [];
});

/** The outbox of `app` with a batch claim; `batches` records the size of every batch it hands out. */
function batchOutbox(app: TestApp, batches: number[]): WorkerOutbox {
  const repo = createWebhookOutboxRepo(app.store.db);
  const claimDue = writeTransaction(app.store.db, (now: number, limit: number, leaseUntil: number, skip: readonly string[]): DueDelivery[] =>
    repo.due(now, limit, skip).filter((d) => repo.claim(d.id, d.dueAt, leaseUntil)),
  );
  return {
    ...app.services.repos.outbox,
    claimDue: async (now, limit, leaseUntil, skip) => {
      const taken = claimDue(now, limit, leaseUntil, skip);
      batches.push(taken.length);
      return taken;
    },
  };
}

async function tenantWithWebhook(app: TestApp, url: string): Promise<string> {
  const { secret } = app.makeKey();
  const token = aToken();
  app.ingest([token]);
  const res = await app.http.post('/v1/tokens/register').set('x-api-key', secret).send({ address: token.address, webhookUrl: url });
  expect(res.status).toBe(201);
  return token.address;
}

const until = async (what: () => boolean, label: string) => {
  for (let i = 0; i < 1000 && !what(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(what(), label).toBe(true);
};

const dueTimes = (app: TestApp, token: string) =>
  app.store.db
    .prepare('SELECT d.id, d.due_at AS dueAt, d.status FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.token = ? ORDER BY d.id')
    .all(token) as { id: number; dueAt: number; status: string }[];

describe('the webhook worker on a batch claim', () => {
  it("takes batches, gives back what a tenant's cap does not start, and still delivers the other tenant's events", async () => {
    t = makeTestApp();
    const dead = await startReceiver([0]);
    const healthy = await startReceiver([204]);
    receivers = [dead, healthy];
    const deadToken = await tenantWithWebhook(t, dead.url());
    const healthyToken = await tenantWithWebhook(t, healthy.url());
    for (let i = 0; i < 20; i++) t.ingest([aTrade(deadToken)]);
    for (let i = 0; i < 10; i++) t.ingest([aTrade(healthyToken)]);
    const before = dueTimes(t, deadToken);
    const batches: number[] = [];
    const outbox = batchOutbox(t, batches);

    workers.push(
      startWebhookWorker({
        services: { ...t.services, repos: { outbox } },
        store: t.store,
        clock: t.clock,
        config: t.config,
        intervalMs: 20,
        timeoutMs: 60_000,
        concurrency: 8,
        perTenant: 2,
      }),
    );
    await until(() => healthy.received.length === 10, 'the healthy tenant got its 10 deliveries');
    await until(() => dueTimes(t!, healthyToken).every((d) => d.status === 'delivered'), 'all 10 recorded as delivered');
    expect(dead.received).toHaveLength(2);
    // The first batch was the 8 oldest rows, all the dead tenant's: 2 started, 6 given back with
    // their due times as they were. Only the 2 in flight carry a lease.
    expect(batches[0]).toBe(8);
    const after = dueTimes(t, deadToken);
    const leased = after.filter((d, i) => d.dueAt !== before[i]!.dueAt);
    expect(leased).toHaveLength(2);
    expect(leased.every((d) => d.dueAt === t!.clock.now() + 60_000 + 60_000)).toBe(true);
    expect(after.every((d) => d.status === 'pending')).toBe(true);
  });

  it('delivers every event exactly once when two workers take from one outbox at once', async () => {
    t = makeTestApp();
    const receiver = await startReceiver([204]);
    receivers = [receiver];
    const tokens = [await tenantWithWebhook(t, receiver.url()), await tenantWithWebhook(t, receiver.url()), await tenantWithWebhook(t, receiver.url())];
    for (let i = 0; i < 12; i++) for (const token of tokens) t.ingest([aTrade(token)]);
    const batches: number[] = [];
    const make = () =>
      startWebhookWorker({
        services: { ...t!.services, repos: { outbox: batchOutbox(t!, batches) } },
        store: t!.store,
        clock: t!.clock,
        config: t!.config,
        loop: false,
        concurrency: 4,
        perTenant: 2,
      });
    workers = [make(), make()];
    const made = await Promise.all(workers.map((w) => w.runOnce()));
    expect(made[0]! + made[1]!).toBe(36);
    const ids = receiver.received.map((r) => r.headers['svc-event-id']);
    expect(ids).toHaveLength(36);
    expect(new Set(ids).size).toBe(36);
    expect(t.store.db.prepare("SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'").pluck().get()).toBe(36);
    // Batches, not rows: at most 4 (the free slots) at a time.
    expect(Math.max(...batches)).toBe(4);
  });
});
