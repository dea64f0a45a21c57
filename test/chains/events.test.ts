/**
 * Events, webhooks and subscriptions of several chains (docs/chains.md; docs/api.md, Events): a
 * subscription names `chain:address`, is kept apart from the same address on another chain, and
 * shows its chain; an event shows the plain `token` with its `chain`, its trades carry `chain`;
 * a webhook for base's token is never fired by ethereum's trades; the dashboard registers the
 * same way. On both engines.
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { startWebhookWorker, type WebhookWorker } from '../../src/services/webhooks.js';
import { startReceiver, type Receiver } from '../subscriptions/receiver.js';
import { signedInTenant } from '../dashboard/support.js';
import { CHAINS, listing, MARKET, T0, TOKEN, trade, WALLET } from './two-chains.js';

let t: TestApp | undefined;
let receiver: Receiver | undefined;
let worker: WebhookWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  await receiver?.close();
  await t?.close();
  t = receiver = worker = undefined;
});

const NOW = 1_700_000_000; // the fake clock's start, in seconds

/** A three-chain app holding TOKEN and MARKET on base and on ethereum, and a key of a fresh tenant. */
async function twoChains() {
  const app = makeTestApp({ env: { CHAINS } });
  await app.ingest([...listing('base'), ...listing('ethereum')]);
  const { secret } = app.makeKey();
  await app.settled();
  return { app, key: secret };
}

const register = (app: TestApp, key: string, body: object) => app.http.post('/v1/tokens/register').set('x-api-key', key).send(body);

describe('subscriptions of several chains', () => {
  it('registers chain:address apart from the same address on another chain, and shows each chain', async () => {
    const w = await twoChains();
    t = w.app;
    const base = await register(t, w.key, { address: `base:${TOKEN}` });
    expect(base.status).toBe(201);
    expect(base.body).toEqual({ subscription: { id: expect.stringMatching(/^sub_/), address: TOKEN, chain: 'base', webhookUrl: null, createdAt: NOW } });
    expect(Object.keys(base.body.subscription)).toEqual(['id', 'address', 'chain', 'webhookUrl', 'createdAt']);
    // The same address on ethereum is another subscription; upper-case hex names the same one.
    const eth = await register(t, w.key, { address: `ethereum:${TOKEN.toUpperCase().replace('0X', '0x')}` });
    expect(eth.status).toBe(201);
    expect(eth.body.subscription).toMatchObject({ address: TOKEN, chain: 'ethereum' });
    expect((await register(t, w.key, { address: `base:${TOKEN}` })).status).toBe(200);
    // A plain address is the default chain's (solana here, where a 0x address is well formed too).
    const plain = await register(t, w.key, { address: TOKEN });
    expect(plain.status).toBe(201);
    expect(plain.body.subscription).toMatchObject({ address: TOKEN, chain: 'solana' });

    const list = await t.http.get('/v1/tokens/registered').set('x-api-key', w.key);
    // Registered in one second, so listed in the order of their ids: compared as a set.
    expect(list.body.subscriptions.map((s: { address: string; chain: string }) => `${s.chain}:${s.address}`).sort()).toEqual([
      `base:${TOKEN}`,
      `ethereum:${TOKEN}`,
      `solana:${TOKEN}`,
    ]);

    const removed = await t.http.delete(`/v1/tokens/registered/ethereum:${TOKEN}`).set('x-api-key', w.key);
    expect(removed.status).toBe(200);
    expect(removed.body.subscription).toEqual({ id: eth.body.subscription.id, address: TOKEN, chain: 'ethereum', webhookUrl: null, createdAt: NOW });
    const again = await t.http.delete(`/v1/tokens/registered/ethereum:${TOKEN}`).set('x-api-key', w.key);
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'subscription_not_found', message: `ethereum:${TOKEN} is not registered` });
    const left = await t.http.get('/v1/tokens/registered').set('x-api-key', w.key);
    expect(left.body.subscriptions.map((s: { chain: string }) => s.chain).sort()).toEqual(['base', 'solana']);
  });

  it('refuses a chain the deployment does not serve with 400 invalid_address, and a malformed one as before', async () => {
    const w = await twoChains();
    t = w.app;
    const unknown = await register(t, w.key, { address: `polygon:${TOKEN}` });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toEqual({
      code: 'invalid_address',
      message: expect.stringContaining('unknown chain "polygon" (chains: solana, base, ethereum)'),
      param: 'address',
      requestId: expect.any(String),
    });
    const bad = await register(t, w.key, { address: 'base:0x12' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_body');
    const path = await t.http.delete(`/v1/tokens/registered/polygon:${TOKEN}`).set('x-api-key', w.key);
    expect(path.status).toBe(400);
    expect(path.body.error.code).toBe('invalid_address');
    const malformed = await t.http.delete('/v1/tokens/registered/base:nope').set('x-api-key', w.key);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'invalid_address', param: 'address' });
    expect((await t.http.get('/v1/tokens/registered').set('x-api-key', w.key)).body.subscriptions).toEqual([]);
  });
});

describe('the dashboard registering a token of a chain', () => {
  it('registers, lists and removes base:0x… and refuses a chain outside CHAINS', async () => {
    t = makeTestApp({ env: { CHAINS } });
    const s = await signedInTenant(t);
    const as = { Cookie: s.cookie, 'X-CSRF-Token': s.csrf };
    const made = await t.http
      .post('/dashboard/api/subscriptions')
      .set(as)
      .send({ address: `base:${TOKEN}` });
    expect(made.status).toBe(201);
    expect(made.body.subscription).toEqual({ id: expect.stringMatching(/^sub_/), address: TOKEN, chain: 'base', webhookUrl: null, createdAt: NOW });
    const list = await t.http.get('/dashboard/api/subscriptions').set('Cookie', s.cookie);
    expect(list.body.subscriptions).toEqual([made.body.subscription]);
    const unknown = await t.http
      .post('/dashboard/api/subscriptions')
      .set(as)
      .send({ address: `polygon:${TOKEN}` });
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'invalid_address']);
    // The plain address is the default chain's: not base's subscription.
    expect((await t.http.delete(`/dashboard/api/subscriptions/${TOKEN}`).set(as)).status).toBe(404);
    const removed = await t.http.delete(`/dashboard/api/subscriptions/base:${TOKEN}`).set(as);
    expect([removed.status, removed.body.subscription]).toEqual([200, made.body.subscription]);
  });
});

describe('events and webhooks of several chains', () => {
  it("fires base's webhook for base's trades only, with token, chain and trades as /v1/events shows them", async () => {
    const w = await twoChains();
    t = w.app;
    receiver = await startReceiver([204]);
    const sub = await register(t, w.key, { address: `base:${TOKEN}`, webhookUrl: receiver.url() });
    expect(sub.status).toBe(201);
    const webhookSecret = sub.body.webhookSecret as string;
    worker = startWebhookWorker({ services: t.services, store: t.store, clock: t.clock, config: t.config, loop: false });

    // Ethereum's trades of the same address: no event, no delivery.
    await t.ingest([trade('ethereum', 'e1', 5, 2, 60), trade('ethereum', 'e2', 6, 1, 70)]);
    await t.settled();
    expect(await worker.runOnce()).toBe(0);
    expect(receiver.received).toEqual([]);
    expect((await t.http.get('/v1/events').set('x-api-key', w.key)).body.events).toEqual([]);

    await t.ingest([trade('base', 'b1', 2, 3, 80, 'sell')]);
    await t.settled();
    expect(await worker.runOnce()).toBe(1);
    const page = await t.http.get('/v1/events').set('x-api-key', w.key);
    expect(page.body.events).toEqual([
      {
        id: expect.stringMatching(/^evt_\d+$/),
        type: 'trades',
        token: TOKEN,
        chain: 'base',
        createdAt: NOW,
        data: {
          trades: [
            {
              id: 3,
              signature: 'b1',
              index: 0,
              blockTime: T0 + 80,
              side: 'sell',
              priceUsd: 2,
              amount: 3,
              quoteAmount: 6,
              volumeUsd: 6,
              wallet: WALLET,
              market: MARKET,
              dex: 'uniswap-v2',
              chain: 'base',
            },
          ],
        },
      },
    ]);
    expect(Object.keys(page.body.events[0])).toEqual(['id', 'type', 'token', 'chain', 'createdAt', 'data']);
    // The webhook's body is the event, byte for byte, signed with the tenant's secret.
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect(JSON.parse(got.body)).toEqual(page.body.events[0]);
    expect(got.body).toBe(JSON.stringify(page.body.events[0]));
    expect(got.headers['svc-event-id']).toBe(page.body.events[0].id);
    const [, ts, mac] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(got.headers['svc-signature']))!;
    expect(createHmac('sha256', webhookSecret).update(`${ts}.${got.body}`).digest('hex')).toBe(mac);
  });

  it("tells a retraction of one chain to that chain's subscribers only, naming the chain", async () => {
    const w = await twoChains();
    t = w.app;
    expect((await register(t, w.key, { address: `base:${TOKEN}` })).status).toBe(201);
    expect((await register(t, w.key, { address: `ethereum:${TOKEN}` })).status).toBe(201);
    await t.ingest([trade('base', 'b1', 2, 3, 80), trade('ethereum', 'e1', 5, 2, 60)]);
    await t.settled();
    await t.services.ingest.retract({ trades: [{ signature: 'e1', index: 0 }], markets: [], tokens: [], records: [] });
    await t.settled();
    const events = (await t.http.get('/v1/events').set('x-api-key', w.key)).body.events as { type: string; token: string; chain: string; data: unknown }[];
    expect(events.map((e) => [e.type, e.token, e.chain])).toEqual([
      ['trades', TOKEN, 'base'],
      ['trades', TOKEN, 'ethereum'],
      ['trades_removed', TOKEN, 'ethereum'],
    ]);
    expect(events[2]!.data).toEqual({ trades: [{ id: 2, signature: 'e1', index: 0 }] });
  });
});
