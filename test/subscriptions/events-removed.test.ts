/**
 * `trades_removed` events (docs/api.md, Subscriptions, events, ingest): a retraction (the chain
 * indexer taking back the trades of orphaned blocks) gives each tenant registered to a token that
 * lost trades one event per 1000 of them, written in the retraction's own transaction, in the
 * events feed and delivered to its webhook signed and retried like any other event. On SQLite
 * and, with STORE=postgres, on PostgreSQL.
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { startWebhookWorker, type WebhookWorker } from '../../src/services/webhooks.js';
import { eventJson, storedData, typeAndData } from '../../src/services/events.js';
import { startReceiver, type Receiver } from './receiver.js';
import type { TradeRecord } from '../../src/domain/records.js';
import type { RetractOptions } from '../../src/store/port/retract.js';

let t: TestApp | undefined;
let receiver: Receiver | undefined;
let worker: WebhookWorker | undefined;
afterEach(async () => {
  await worker?.stop();
  await receiver?.close();
  await t?.close();
  t = receiver = worker = undefined;
});

type Removed = { id: number; signature: string; index: number };
type E = { id: string; type: string; token: string; createdAt: number; data: { trades: { id: number }[] } };

const register = (app: TestApp, secret: string, address: string, webhookUrl?: string) =>
  app.http
    .post('/v1/tokens/register')
    .set('x-api-key', secret)
    .send({ address, ...(webhookUrl ? { webhookUrl } : {}) });

/** Every event of a tenant, oldest first. */
async function eventsOf(app: TestApp, secret: string): Promise<E[]> {
  const all: E[] = [];
  let cursor = '';
  for (;;) {
    const res = await app.http.get(`/v1/events?limit=1000${cursor ? `&cursor=${cursor}` : ''}`).set('x-api-key', secret);
    expect(res.status).toBe(200);
    if (res.body.events.length === 0) return all;
    all.push(...res.body.events);
    cursor = res.body.nextCursor;
  }
}

/** Takes `trades` back out of the store, as the chain indexer does when their blocks are orphaned. */
async function retract(app: TestApp, trades: readonly TradeRecord[], opts?: RetractOptions): Promise<number> {
  await app.settled();
  const r = await app.services.ingest.retract(
    { trades: trades.map((x) => ({ signature: x.signature, index: x.index })), markets: [], tokens: [], records: [] },
    opts,
  );
  return r.removed;
}

/** The stored trades of a token by identity: their record numbers. */
async function idsBySignature(app: TestApp, address: string): Promise<Map<string, number>> {
  const res = await app.http.get(`/v1/token/${address}/trades?limit=1000`);
  return new Map((res.body.trades as Removed[]).map((x) => [`${x.signature}:${x.index}`, x.id]));
}

const verify = (secret: string, header: string, body: string) => {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  return m !== null && createHmac('sha256', secret).update(`${m[1]}.${body}`).digest('hex') === m[2];
};

describe('trades_removed events', () => {
  it('gives each tenant registered to a token that lost trades one event naming them, ascending by id', async () => {
    t = makeTestApp();
    const app = t;
    const k1 = app.makeKey();
    const k2 = app.makeKey();
    const k3 = app.makeKey();
    const token = aToken();
    const other = aToken();
    app.ingest([...withMarket(token), ...withMarket(other)]);
    await register(app, k1.secret, token.address);
    await register(app, k2.secret, token.address);
    await register(app, k3.secret, other.address);
    const trades = [1, 2, 3, 4].map((i) => aTrade(token.address, { blockTime: 1_700_000_000 + i }));
    app.ingest([...trades, aTrade(other.address)]);
    await app.settled();
    const ids = await idsBySignature(app, token.address);
    app.clock.advance(60_000);

    // Given in another order than their ids: the event lists them by id.
    expect(await retract(app, [trades[3]!, trades[1]!])).toBe(2);
    const removed = [trades[1]!, trades[3]!].map((x) => ({ id: ids.get(`${x.signature}:${x.index}`)!, signature: x.signature, index: x.index }));
    for (const k of [k1, k2]) {
      const events = await eventsOf(app, k.secret);
      expect(events.map((e) => e.type)).toEqual(['trades', 'trades_removed']);
      expect(events[1]).toEqual({
        id: expect.stringMatching(/^evt_\d+$/),
        type: 'trades_removed',
        token: token.address,
        createdAt: app.clock.seconds(),
        data: { trades: removed },
      });
      expect(Object.keys(events[1]!)).toEqual(['id', 'type', 'token', 'createdAt', 'data']);
      expect(Number(events[1]!.id.slice(4))).toBeGreaterThan(Number(events[0]!.id.slice(4)));
    }
    // The other token lost nothing: its tenant has its trades event only.
    expect((await eventsOf(app, k3.secret)).map((e) => e.type)).toEqual(['trades']);
  });

  it('names the trades of a token deleted whole (first seen in the orphaned blocks), its registration kept', async () => {
    t = makeTestApp();
    const app = t;
    const k = app.makeKey();
    const token = aToken();
    app.ingest(withMarket(token));
    await register(app, k.secret, token.address);
    const trades = [aTrade(token.address, { blockTime: 1_700_000_001 }), aTrade(token.address, { blockTime: 1_700_000_002 })];
    app.ingest(trades);
    await app.settled();
    const ids = await idsBySignature(app, token.address);
    const r = await app.services.ingest.retract({ trades: [], markets: [], tokens: [token.address], records: [] });
    expect(r.removed).toBe(2);
    const events = await eventsOf(app, k.secret);
    expect(events.map((e) => e.type)).toEqual(['trades', 'trades_removed']);
    expect(events[1]!.data.trades).toEqual(trades.map((x) => ({ id: ids.get(`${x.signature}:${x.index}`), signature: x.signature, index: x.index })));
    expect((await app.http.get('/v1/tokens/registered').set('x-api-key', k.secret)).body.subscriptions.map((s: { address: string }) => s.address)).toEqual([
      token.address,
    ]);
  });

  it('makes one event per 1000 removed trades', async () => {
    t = makeTestApp();
    const app = t;
    const k = app.makeKey();
    const token = aToken();
    app.ingest(withMarket(token));
    await register(app, k.secret, token.address);
    const trades = Array.from({ length: 1001 }, (_, i) => aTrade(token.address, { blockTime: 1_700_000_000 + i }));
    app.ingest(trades);
    expect(await retract(app, trades)).toBe(1001);
    const events = (await eventsOf(app, k.secret)).filter((e) => e.type === 'trades_removed');
    expect(events.map((e) => e.data.trades.length)).toEqual([1000, 1]);
    const ids = events.flatMap((e) => e.data.trades.map((x) => x.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(1001);
    // A retraction of 1001 trades takes PostgreSQL tens of seconds today (statements per trade).
  }, 300_000);

  it('writes no event when the retraction rolls back', async () => {
    t = makeTestApp();
    const app = t;
    const k = app.makeKey();
    const token = aToken();
    app.ingest(withMarket(token));
    await register(app, k.secret, token.address);
    const trade = aTrade(token.address);
    app.ingest([trade]);
    await expect(
      retract(app, [trade], {
        within: () => {
          throw new Error('the position could not be written');
        },
      }),
    ).rejects.toThrow('the position could not be written');
    expect((await eventsOf(app, k.secret)).map((e) => e.type)).toEqual(['trades']);
    expect((await app.http.get(`/v1/token/${token.address}/trades`)).body.trades).toHaveLength(1);
  });

  it('is delivered to the webhook signed, with the body the feed shows, and retried until a 2xx', async () => {
    t = makeTestApp();
    const app = t;
    receiver = await startReceiver([204, 500, 204]);
    const k = app.makeKey();
    const token = aToken();
    app.ingest(withMarket(token));
    const res = await register(app, k.secret, token.address, receiver.url());
    expect(res.status).toBe(201);
    const secret = res.body.webhookSecret as string;
    const trade = aTrade(token.address);
    app.ingest([trade]);
    worker = startWebhookWorker({ services: app.services, store: app.store, clock: app.clock, config: app.config, loop: false });
    expect(await worker.runOnce()).toBe(1); // the trades event, 204

    expect(await retract(app, [trade])).toBe(1);
    expect(await worker.runOnce()).toBe(1); // 500: retried in 1 s
    app.clock.advance(1000);
    expect(await worker.runOnce()).toBe(1);
    app.clock.advance(3_600_000);
    expect(await worker.runOnce()).toBe(0);

    const [, removedEvent] = await eventsOf(app, k.secret);
    expect(removedEvent!.type).toBe('trades_removed');
    const attempts = receiver.received.slice(1);
    expect(attempts).toHaveLength(2);
    for (const r of attempts) {
      expect(r.headers['svc-event-id']).toBe(removedEvent!.id);
      expect(JSON.parse(r.body)).toEqual(removedEvent);
      expect(verify(secret, String(r.headers['svc-signature']), r.body)).toBe(true);
    }
    // Every attempt sends the same bytes.
    expect(attempts[0]!.body).toBe(attempts[1]!.body);
    expect(attempts[0]!.body).toBe(
      `{"id":"${removedEvent!.id}","type":"trades_removed","token":"${token.address}","createdAt":${removedEvent!.createdAt},"data":{"trades":[{"id":${removedEvent!.data.trades[0]!.id},"signature":"${trade.signature}","index":${trade.index}}]}}`,
    );
  });
});

describe('how an event is kept in its row', () => {
  it('reads a trades row as it always was, and a trades_removed row back byte for byte', () => {
    const trades = '{"trades":[{"id":1}]}';
    expect(storedData('trades', trades)).toBe(trades);
    expect(typeAndData(trades)).toEqual({ type: 'trades', data: trades });
    const removed = '{"trades":[{"id":7,"signature":"sig","index":0}]}';
    const stored = storedData('trades_removed', removed);
    expect(stored).toBe(`{"type":"trades_removed","data":${removed}}`);
    expect(typeAndData(stored)).toEqual({ type: 'trades_removed', data: removed });
    expect(eventJson({ id: 9, token: 'tok', createdAt: 5, data: stored })).toBe(
      `{"id":"evt_9","type":"trades_removed","token":"tok","createdAt":5,"data":${removed}}`,
    );
    expect(() => typeAndData('{"type":"other","data":{}}')).toThrow('an event of unknown type "other" is stored');
  });
});
