import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeClock, makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { openStore } from '../../src/store/sqlite/db.js';
import { retryDelayMs, startWebhookWorker, type WebhookWorker } from '../../src/services/webhooks.js';
import { startReceiver, type Receiver } from './receiver.js';
import { deliveriesOf } from './store-rows.js';

let t: TestApp | undefined;
let receiver: Receiver | undefined;
let worker: WebhookWorker | undefined;
let dir: string | undefined;
/** The tenants the test made, whose deliveries deliveries() reads. */
let tenants: string[] = [];
afterEach(async () => {
  await worker?.stop();
  await receiver?.close();
  t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  t = receiver = worker = dir = undefined;
  tenants = [];
});

/** The deliveries of the test's tenants, oldest first. */
const deliveries = async (app: TestApp) =>
  (await deliveriesOf(app, tenants)).map(({ status, attempts, dueAt, lastStatus, lastError }) => ({ status, attempts, dueAt, lastStatus, lastError }));

/** A tenant registered to a fresh token with a webhook to `url`; returns the token and the secret. */
async function subscribe(app: TestApp, url: string) {
  const { secret, tenantId } = app.makeKey();
  tenants.push(tenantId);
  const token = aToken();
  app.ingest(withMarket(token));
  const res = await app.http.post('/v1/tokens/register').set('x-api-key', secret).send({ address: token.address, webhookUrl: url });
  expect(res.status).toBe(201);
  return { key: secret, token: token.address, webhookSecret: res.body.webhookSecret as string };
}

const verify = (secret: string, header: string, body: string) => {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  return createHmac('sha256', secret).update(`${m[1]}.${body}`).digest('hex') === m[2];
};

describe('webhook delivery', () => {
  it("sends the event's own id in the body, not the delivery row's, when the two differ", async () => {
    t = makeTestApp();
    receiver = await startReceiver([204]);
    // A first tenant registered without a webhook gets events but no deliveries, so event ids
    // run ahead of delivery ids.
    const quiet = t.makeKey();
    const sub = await subscribe(t, receiver.url());
    const first = await t.http.post('/v1/tokens/register').set('x-api-key', quiet.secret).send({ address: sub.token });
    expect(first.status).toBe(201);
    t.ingest([aTrade(sub.token)]);
    t.ingest([aTrade(sub.token)]);
    worker = startWebhookWorker({ services: t.services, store: t.store, clock: t.clock, config: t.config, loop: false });
    expect(await worker.runOnce()).toBe(2);
    const page = await t.http.get('/v1/events').set('x-api-key', sub.key);
    const eventIds = page.body.events.map((e: { id: string }) => e.id) as string[];
    const rowIds = (await deliveriesOf(t, tenants)).map((d) => `evt_${d.id}`);
    expect(eventIds).toHaveLength(2);
    expect(eventIds).not.toEqual(rowIds); // the case where the bug shows
    const bodies = receiver.received.map((r) => JSON.parse(r.body) as { id: string });
    expect(bodies.map((b) => b.id).sort()).toEqual(eventIds);
    for (const r of receiver.received) expect(JSON.parse(r.body).id).toBe(r.headers['svc-event-id']);
    expect(bodies.sort((a, b) => a.id.localeCompare(b.id))).toEqual(page.body.events);
  });

  it('POSTs the event, signed with the tenant secret, once', async () => {
    t = makeTestApp();
    receiver = await startReceiver([204]);
    const sub = await subscribe(t, receiver.url());
    t.ingest([aTrade(sub.token), aTrade(sub.token)]);
    worker = startWebhookWorker({ services: t.services, store: t.store, clock: t.clock, config: t.config, loop: false });
    expect(await worker.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect(got.path).toBe('/hook');
    expect(got.headers['content-type']).toBe('application/json');
    const page = await t.http.get('/v1/events').set('x-api-key', sub.key);
    const event = page.body.events[0];
    expect(JSON.parse(got.body)).toEqual(event);
    expect(got.headers['svc-event-id']).toBe(event.id);
    const signature = String(got.headers['svc-signature']);
    expect(signature).toMatch(new RegExp(`^t=${t.clock.seconds()},v1=[0-9a-f]{64}$`));
    expect(verify(sub.webhookSecret, signature, got.body)).toBe(true);
    expect(verify('whsec_wrong', signature, got.body)).toBe(false);
    expect(verify(sub.webhookSecret, signature, got.body.replace('"trades"', '"tradez"'))).toBe(false);
    expect(await deliveries(t)).toEqual([{ status: 'delivered', attempts: 1, dueAt: expect.any(Number), lastStatus: 204, lastError: null }]);
    t.clock.advance(3_600_000);
    expect(await worker.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(1);
  });

  it('retries a failing receiver after 1 s then 2 s, and delivers exactly once more when it recovers', async () => {
    t = makeTestApp();
    receiver = await startReceiver([500, 503, 200]);
    const sub = await subscribe(t, receiver.url());
    t.ingest([aTrade(sub.token)]);
    worker = startWebhookWorker({ services: t.services, store: t.store, clock: t.clock, config: t.config, loop: false });
    expect(await worker.runOnce()).toBe(1);
    expect((await deliveries(t))[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 500, lastError: 'HTTP 500' });
    expect(await worker.runOnce()).toBe(0); // not due yet
    t.clock.advance(999);
    expect(await worker.runOnce()).toBe(0);
    t.clock.advance(1);
    expect(await worker.runOnce()).toBe(1);
    expect((await deliveries(t))[0]).toMatchObject({ status: 'pending', attempts: 2, lastStatus: 503 });
    t.clock.advance(1999);
    expect(await worker.runOnce()).toBe(0);
    t.clock.advance(1);
    expect(await worker.runOnce()).toBe(1);
    expect((await deliveries(t))[0]).toMatchObject({ status: 'delivered', attempts: 3, lastStatus: 200 });
    const metrics = (await t.http.get('/metrics')).text;
    expect(metrics).toMatch(/^webhook_deliveries_total\{outcome="retry",instance="[^"]+"\} 2$/m);
    expect(metrics).toMatch(/^webhook_deliveries_total\{outcome="delivered",instance="[^"]+"\} 1$/m);
    for (let i = 0; i < 5; i++) {
      t.clock.advance(3_600_000);
      expect(await worker.runOnce()).toBe(0);
    }
    expect(receiver.received).toHaveLength(3);
    // Every attempt carried the same event and body; each signature verifies.
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.headers['svc-event-id'])).size).toBe(1);
    for (const r of receiver.received) expect(verify(sub.webhookSecret, String(r.headers['svc-signature']), r.body)).toBe(true);
  });

  it('treats a 3xx as a failure and does not follow the redirect', async () => {
    t = makeTestApp();
    receiver = await startReceiver([302]);
    const sub = await subscribe(t, receiver.url());
    t.ingest([aTrade(sub.token)]);
    worker = startWebhookWorker({ services: t.services, store: t.store, clock: t.clock, config: t.config, loop: false });
    await worker.runOnce();
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook']);
    expect((await deliveries(t))[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 302 });
  });

  it('treats no answer within the timeout as a failure', async () => {
    t = makeTestApp();
    receiver = await startReceiver([0, 200]);
    const sub = await subscribe(t, receiver.url());
    t.ingest([aTrade(sub.token)]);
    worker = startWebhookWorker({ services: t.services, store: t.store, clock: t.clock, config: t.config, loop: false, timeoutMs: 200 });
    expect(await worker.runOnce()).toBe(1);
    expect((await deliveries(t))[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatus: null, lastError: 'no answer within 200 ms' });
    t.clock.advance(1000);
    await worker.runOnce();
    expect((await deliveries(t))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('treats a refused connection as a failure', async () => {
    t = makeTestApp();
    receiver = await startReceiver();
    const url = receiver.url();
    await receiver.close();
    receiver = undefined;
    const sub = await subscribe(t, url);
    t.ingest([aTrade(sub.token)]);
    worker = startWebhookWorker({ services: t.services, store: t.store, clock: t.clock, config: t.config, loop: false });
    await worker.runOnce();
    expect((await deliveries(t))[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatus: null, lastError: expect.stringContaining('ECONNREFUSED') });
  });

  it('backs off 1 s, doubling, at most 1 h apart, and gives up 24 h after the event', async () => {
    t = makeTestApp();
    receiver = await startReceiver([500]);
    const sub = await subscribe(t, receiver.url());
    t.ingest([aTrade(sub.token)]);
    const start = t.clock.now();
    worker = startWebhookWorker({ services: t.services, store: t.store, clock: t.clock, config: t.config, loop: false });
    const attemptTimes: number[] = [];
    for (let guard = 0; guard < 100; guard++) {
      const made = await worker.runOnce();
      if (made > 0) attemptTimes.push(t.clock.now());
      const row = (await deliveries(t))[0]!;
      if (row.status !== 'pending') break;
      t.clock.set(row.dueAt);
    }
    const gaps = attemptTimes.slice(1).map((x, i) => (x - attemptTimes[i]!) / 1000);
    expect(gaps.slice(0, 13)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 3600]);
    expect(gaps.every((g) => g <= 3600)).toBe(true);
    expect(attemptTimes.at(-1)! - start).toBeLessThanOrEqual(24 * 3600 * 1000);
    expect(attemptTimes.at(-1)! + 3600 * 1000 - start).toBeGreaterThan(24 * 3600 * 1000);
    expect((await deliveries(t))[0]).toMatchObject({ status: 'failed', attempts: attemptTimes.length });
    expect(receiver.received).toHaveLength(attemptTimes.length);
    t.clock.advance(86_400_000);
    expect(await worker.runOnce()).toBe(0);
  });

  it('sends pending deliveries to the new URL when the webhook URL is replaced', async () => {
    t = makeTestApp();
    receiver = await startReceiver([500, 200]);
    const sub = await subscribe(t, receiver.url('/old'));
    t.ingest([aTrade(sub.token)]);
    worker = startWebhookWorker({ services: t.services, store: t.store, clock: t.clock, config: t.config, loop: false });
    await worker.runOnce();
    await t.http
      .post('/v1/tokens/register')
      .set('x-api-key', sub.key)
      .send({ address: sub.token, webhookUrl: receiver.url('/new') });
    t.clock.advance(1000);
    await worker.runOnce();
    expect(receiver.received.map((r) => r.path)).toEqual(['/old', '/new']);
  });

  it('cancels pending deliveries when the subscription is removed or its webhook cleared', async () => {
    t = makeTestApp();
    receiver = await startReceiver([500]);
    const a = await subscribe(t, receiver.url('/a'));
    const { secret } = { secret: a.key };
    const other = aToken();
    t.ingest(withMarket(other));
    await t.http
      .post('/v1/tokens/register')
      .set('x-api-key', secret)
      .send({ address: other.address, webhookUrl: receiver.url('/b') });
    t.ingest([aTrade(a.token), aTrade(other.address)]);
    worker = startWebhookWorker({ services: t.services, store: t.store, clock: t.clock, config: t.config, loop: false });
    expect(await worker.runOnce()).toBe(2);
    await t.http.delete(`/v1/tokens/registered/${a.token}`).set('x-api-key', secret);
    await t.http.post('/v1/tokens/register').set('x-api-key', secret).send({ address: other.address, webhookUrl: null });
    t.clock.advance(10_000);
    expect(await worker.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(2);
    expect((await deliveries(t)).map((d) => d.status)).toEqual(['cancelled']);
    // The events themselves stay readable.
    expect((await t.http.get('/v1/events').set('x-api-key', secret)).body.events).toHaveLength(2);
  });

  it('queues nothing for a subscription without a webhook', async () => {
    t = makeTestApp();
    const { secret, tenantId } = t.makeKey();
    tenants.push(tenantId);
    const token = aToken();
    t.ingest(withMarket(token));
    await t.http.post('/v1/tokens/register').set('x-api-key', secret).send({ address: token.address });
    t.ingest([aTrade(token.address)]);
    expect((await t.http.get('/v1/events').set('x-api-key', secret)).body.events).toHaveLength(1);
    expect(await deliveries(t)).toEqual([]);
  });

  it('does not call a private target at delivery time unless private targets are allowed', async () => {
    t = makeTestApp();
    receiver = await startReceiver([200]);
    const byIp = await subscribe(t, receiver.url('/ip'));
    const byName = await subscribe(t, receiver.url('/name').replace('127.0.0.1', 'localhost'));
    t.ingest([aTrade(byIp.token), aTrade(byName.token)]);
    worker = startWebhookWorker({ services: t.services, store: t.store, clock: t.clock, config: { webhookAllowPrivate: false }, loop: false });
    expect(await worker.runOnce()).toBe(2);
    expect(receiver.received).toEqual([]);
    const rows = await deliveries(t);
    expect(rows.map((r) => r.status)).toEqual(['pending', 'pending']);
    expect(rows[0]!.lastError).toContain('not a public address');
    expect(rows[1]!.lastError).toContain('non-public');
  });

  it('delivers by itself when its loop runs, and stops', async () => {
    t = makeTestApp();
    receiver = await startReceiver([200]);
    const sub = await subscribe(t, receiver.url());
    worker = startWebhookWorker({ services: t.services, store: t.store, clock: t.clock, config: t.config, intervalMs: 20 });
    t.ingest([aTrade(sub.token)]);
    for (let i = 0; i < 200 && receiver.received.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(receiver.received).toHaveLength(1);
    await worker.stop();
    t.ingest([aTrade(sub.token)]);
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.received).toHaveLength(1);
    expect((await deliveries(t)).map((d) => d.status)).toEqual(['delivered', 'pending']);
  });

  it('computes the retry delays of the contract', () => {
    expect([1, 2, 3, 12, 13, 40, 2000].map(retryDelayMs)).toEqual([1000, 2000, 4000, 2_048_000, 3_600_000, 3_600_000, 3_600_000]);
  });
});

describe('the outbox across restarts', () => {
  it('loses no pending delivery when the service restarts between attempts', async () => {
    dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    const path = join(dir, 'store.db');
    const clock = fakeClock();
    receiver = await startReceiver([500, 200]);
    t = makeTestApp({ store: openStore(path), clock });
    const sub = await subscribe(t, receiver.url());
    t.ingest([aTrade(sub.token)]);
    worker = startWebhookWorker({ services: t.services, store: t.store, clock, config: t.config, loop: false });
    await worker.runOnce();
    await worker.stop();
    t.close();

    clock.advance(1000);
    t = makeTestApp({ store: openStore(path), clock });
    worker = startWebhookWorker({ services: t.services, store: t.store, clock, config: t.config, loop: false });
    expect(await worker.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    expect(verify(sub.webhookSecret, String(receiver.received[1]!.headers['svc-signature']), receiver.received[1]!.body)).toBe(true);
    expect((await deliveries(t))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('retries a delivery whose attempt was cut short by a crash, never marking it done', async () => {
    dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    const path = join(dir, 'store.db');
    const clock = fakeClock();
    receiver = await startReceiver([0, 200]); // the first request never gets an answer
    t = makeTestApp({ store: openStore(path), clock });
    const sub = await subscribe(t, receiver.url());
    t.ingest([aTrade(sub.token)]);
    const crashing = startWebhookWorker({ services: t.services, store: t.store, clock, config: t.config, loop: false, timeoutMs: 300 });
    const inFlight = crashing.runOnce().catch((err: unknown) => err);
    for (let i = 0; i < 200 && receiver.received.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(receiver.received).toHaveLength(1);
    t.close(); // the process dies mid-attempt: nothing after the claim is written
    expect(await inFlight).toBeInstanceOf(Error);

    t = makeTestApp({ store: openStore(path), clock });
    expect((await deliveries(t))[0]).toMatchObject({ status: 'pending', attempts: 0 });
    worker = startWebhookWorker({ services: t.services, store: t.store, clock, config: t.config, loop: false });
    expect(await worker.runOnce()).toBe(0); // still claimed by the dead attempt
    clock.advance(70_000);
    expect(await worker.runOnce()).toBe(1);
    expect((await deliveries(t))[0]).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(receiver.received).toHaveLength(2);
  });
});
