/**
 * The webhook worker's batch path (src/services/webhooks.ts, WorkerOutbox): given an outbox with
 * `claimDue` (PostgreSQL's: due rows taken and leased in one statement), the worker takes its
 * deliveries that way, gives back at once what its per-tenant cap does not let it start (their
 * due times as they were), stays fair between tenants, and two workers never deliver one row twice.
 * On PostgreSQL `claimDue` is the outbox repo's own; SQLite's repo has none, so here it is due()
 * and then claim() of each row, whose compare-and-set hands a row to one caller only: the same
 * contract (test/engines/pg-outbox.test.ts tests PostgreSQL's between connections).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import type { DueDelivery } from '../../src/store/sqlite/webhook-outbox-repo.js';
import { startWebhookWorker, type WebhookWorker, type WorkerOutbox } from '../../src/services/webhooks.js';
import { startReceiver, type Receiver } from './receiver.js';
import { deliveriesOf } from './store-rows.js';

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
  const repo = app.services.repos.outbox;
  const claimDue =
    repo.claimDue ??
    (async (now: number, limit: number, leaseUntil: number, skip: readonly string[] = []): Promise<DueDelivery[]> => {
      const due = await repo.due(now, limit, skip);
      const won = await Promise.all(due.map((d) => repo.claim(d.id, d.dueAt, leaseUntil)));
      return due.filter((_, i) => won[i]);
    });
  return {
    ...repo,
    claimDue: async (now, limit, leaseUntil, skip) => {
      const taken = await claimDue(now, limit, leaseUntil, skip);
      batches.push(taken.length);
      return taken;
    },
  };
}

/** A new tenant registered to a new token with a webhook to `url`. */
async function tenantWithWebhook(app: TestApp, url: string): Promise<{ token: string; tenantId: string }> {
  const { secret, tenantId } = app.makeKey();
  const token = aToken();
  app.ingest(withMarket(token));
  const res = await app.http.post('/v1/tokens/register').set('x-api-key', secret).send({ address: token.address, webhookUrl: url });
  expect(res.status).toBe(201);
  return { token: token.address, tenantId };
}

const until = async (what: () => boolean | Promise<boolean>, label: string) => {
  for (let i = 0; i < 1000 && !(await what()); i++) await new Promise((r) => setTimeout(r, 10));
  expect(await what(), label).toBe(true);
};

/** The tenant's deliveries, oldest first. */
const dueTimes = async (app: TestApp, tenantId: string) => (await deliveriesOf(app, [tenantId])).map(({ id, dueAt, status }) => ({ id, dueAt, status }));

describe('the webhook worker on a batch claim', () => {
  it("takes batches, gives back what a tenant's cap does not start, and still delivers the other tenant's events", async () => {
    t = makeTestApp();
    const deadReceiver = await startReceiver([0]);
    const healthyReceiver = await startReceiver([204]);
    receivers = [deadReceiver, healthyReceiver];
    const dead = await tenantWithWebhook(t, deadReceiver.url());
    const healthy = await tenantWithWebhook(t, healthyReceiver.url());
    for (let i = 0; i < 20; i++) t.ingest([aTrade(dead.token)]);
    for (let i = 0; i < 10; i++) t.ingest([aTrade(healthy.token)]);
    const before = await dueTimes(t, dead.tenantId);
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
    await until(() => healthyReceiver.received.length === 10, 'the healthy tenant got its 10 deliveries');
    await until(async () => (await dueTimes(t!, healthy.tenantId)).every((d) => d.status === 'delivered'), 'all 10 recorded as delivered');
    expect(deadReceiver.received).toHaveLength(2);
    // The first batch was the 8 oldest rows, all the dead tenant's: 2 started, 6 given back with
    // their due times as they were. Only the 2 in flight carry a lease.
    expect(batches[0]).toBe(8);
    const after = await dueTimes(t, dead.tenantId);
    expect(after.map((d) => d.id)).toEqual(before.map((d) => d.id));
    const leased = after.filter((d, i) => d.dueAt !== before[i]!.dueAt);
    expect(leased).toHaveLength(2);
    expect(leased.every((d) => d.dueAt === t!.clock.now() + 60_000 + 60_000)).toBe(true);
    expect(after.every((d) => d.status === 'pending')).toBe(true);
  });

  it('delivers every event exactly once when two workers take from one outbox at once', async () => {
    t = makeTestApp();
    const receiver = await startReceiver([204]);
    receivers = [receiver];
    const tenants = [await tenantWithWebhook(t, receiver.url()), await tenantWithWebhook(t, receiver.url()), await tenantWithWebhook(t, receiver.url())];
    for (let i = 0; i < 12; i++) for (const { token } of tenants) t.ingest([aTrade(token)]);
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
    const rows = await deliveriesOf(
      t,
      tenants.map((x) => x.tenantId),
    );
    expect(rows.map((d) => d.status)).toEqual(Array(36).fill('delivered'));
    // Batches, not rows: at most 4 (the free slots) at a time.
    expect(Math.max(...batches)).toBe(4);
  });
});
