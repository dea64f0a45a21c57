/**
 * Webhook delivery is fair per tenant (docs/api.md, Subscriptions, events, ingest): a tenant whose endpoint never answers
 * holds at most its own in-flight slots, and another tenant's deliveries are all made while those
 * attempts still hang. Real receivers on loopback; the worker's own loop drives delivery.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { startWebhookWorker, type WebhookWorker } from '../../src/services/webhooks.js';
import { startReceiver, type Receiver } from './receiver.js';
import { deliveriesOf } from './store-rows.js';

let t: TestApp | undefined;
let receivers: Receiver[] = [];
let worker: WebhookWorker | undefined;
afterEach(async () => {
  // Receivers first: closing them ends the hanging attempts the worker waits for.
  for (const r of receivers) await r.close();
  await worker?.stop();
  t?.close();
  t = worker = undefined;
  receivers = [];
});

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

/** How many of the tenant's deliveries are in each status, by status. */
const status = async (app: TestApp, tenantId: string) => {
  const n = new Map<string, number>();
  for (const d of await deliveriesOf(app, [tenantId])) n.set(d.status, (n.get(d.status) ?? 0) + 1);
  return [...n].sort(([a], [b]) => a.localeCompare(b)).map(([status, count]) => ({ status, n: count }));
};

describe('webhook fairness', () => {
  it("delivers every event of a healthy tenant while a dead tenant's endpoint holds only its own slots", async () => {
    t = makeTestApp();
    const dead = await startReceiver([0]);
    const healthy = await startReceiver([204]);
    receivers = [dead, healthy];
    const { token: deadToken, tenantId: deadTenant } = await tenantWithWebhook(t, dead.url());
    const { token: healthyToken, tenantId: healthyTenant } = await tenantWithWebhook(t, healthy.url());
    // The dead tenant's 20 events are older, so they come first in the outbox.
    for (let i = 0; i < 20; i++) t.ingest([aTrade(deadToken)]);
    for (let i = 0; i < 10; i++) t.ingest([aTrade(healthyToken)]);

    // An attempt hangs for a minute: far longer than this test runs.
    worker = startWebhookWorker({
      services: t.services,
      store: t.store,
      clock: t.clock,
      config: t.config,
      intervalMs: 20,
      timeoutMs: 60_000,
      concurrency: 8,
      perTenant: 2,
    });
    await until(() => healthy.received.length === 10, 'the healthy tenant got its 10 deliveries');
    // Received by the endpoint is not yet recorded by the worker: that follows the 2xx.
    await until(
      async () => JSON.stringify(await status(t!, healthyTenant)) === JSON.stringify([{ status: 'delivered', n: 10 }]),
      'all 10 recorded as delivered',
    );
    // The dead tenant's endpoint got exactly its 2 slots' worth of requests, still unanswered.
    expect(dead.received).toHaveLength(2);
    expect(await status(t, deadTenant)).toEqual([{ status: 'pending', n: 20 }]);

    // New events of the healthy tenant go out while the dead attempts still hang.
    for (let i = 0; i < 5; i++) t.ingest([aTrade(healthyToken)]);
    await until(() => healthy.received.length === 15, 'the healthy tenant got 5 more');
    expect(dead.received).toHaveLength(2);
    const ids = healthy.received.map((r) => r.headers['svc-event-id']);
    expect(new Set(ids).size).toBe(15);
  }, 30_000);
});
