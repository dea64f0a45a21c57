/**
 * Port contract: the subscriptions, events and webhook outbox repos, and the events the ingest
 * writes through the services for a subscribed token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A, B, D, MA1, NOW, openPortStore, W1, type PortStore } from './fixture.js';

let t: PortStore;
beforeAll(async () => {
  t = await openPortStore();
  await t.repos.accounts.insertTenant({ id: 'ta', name: 'A', plan: 'free', email: null, createdAt: D });
  await t.repos.accounts.insertTenant({ id: 'tb', name: 'B', plan: 'pro', email: null, createdAt: D });
});
afterAll(async () => {
  await t.close();
});

describe('subscriptions', () => {
  it('insert, find, list, count, any, subscribers, setWebhook, remove, plan limit and secret', async () => {
    expect(await t.repos.subscriptions.any()).toBe(false);
    await t.repos.subscriptions.insert({ id: 's1', tenantId: 'ta', address: A, webhookUrl: null, createdAt: D + 1 });
    await t.repos.subscriptions.insert({ id: 's2', tenantId: 'tb', address: A, webhookUrl: 'https://hook.example/b', createdAt: D + 2 });
    await t.repos.subscriptions.insert({ id: 's3', tenantId: 'ta', address: B, webhookUrl: null, createdAt: D + 3 });
    expect(await t.repos.subscriptions.any()).toBe(true);
    expect(await t.repos.subscriptions.find('ta', A)).toEqual({ id: 's1', address: A, webhookUrl: null, createdAt: D + 1 });
    expect(await t.repos.subscriptions.find('tb', B)).toBeUndefined();
    expect((await t.repos.subscriptions.list('ta')).map((s) => s.id)).toEqual(['s1', 's3']);
    expect(await t.repos.subscriptions.count('ta')).toBe(2);
    expect(await t.repos.subscriptions.subscribers(A)).toEqual([
      { subscriptionId: 's1', tenantId: 'ta', webhookUrl: null },
      { subscriptionId: 's2', tenantId: 'tb', webhookUrl: 'https://hook.example/b' },
    ]);
    await t.repos.subscriptions.setWebhook('s1', 'https://hook.example/a');
    expect((await t.repos.subscriptions.find('ta', A))?.webhookUrl).toBe('https://hook.example/a');
    expect(await t.repos.subscriptions.remove('s3')).toBe(true);
    expect(await t.repos.subscriptions.remove('s3')).toBe(false);
    expect(await t.repos.subscriptions.maxSubscriptions('ta')).toBe(10);
    expect(await t.repos.subscriptions.maxSubscriptions('tb')).toBe(500);
    expect(await t.repos.subscriptions.webhookSecret('ta')).toBeUndefined();
    await t.repos.subscriptions.insertWebhookSecret('ta', 'whsec_a', D);
    expect(await t.repos.subscriptions.webhookSecret('ta')).toBe('whsec_a');
  });
});

describe('events', () => {
  it('insert, page after an id and since a time, count and prune', async () => {
    const e1 = await t.repos.events.insert('tb', 'tok-x', D + 1, '{"n":1}');
    const e2 = await t.repos.events.insert('tb', 'tok-x', D + 5, '{"n":2}');
    expect(e2).toBeGreaterThan(e1);
    expect(await t.repos.events.page('tb', 0, D, 10)).toEqual([
      { id: e1, tenantId: 'tb', token: 'tok-x', createdAt: D + 1, data: '{"n":1}' },
      { id: e2, tenantId: 'tb', token: 'tok-x', createdAt: D + 5, data: '{"n":2}' },
    ]);
    expect((await t.repos.events.page('tb', e1, 0, 10)).map((e) => e.id)).toEqual([e2]);
    expect((await t.repos.events.page('tb', 0, D + 2, 10)).map((e) => e.id)).toEqual([e2]);
    expect(await t.repos.events.count('tb')).toBe(2);
    expect(await t.repos.events.prune(D + 2, 10)).toBe(1);
    expect(await t.repos.events.count('tb')).toBe(1);
  });

  it('the ingest writes one event per subscribing tenant for a trade of a subscribed token', async () => {
    const before = { ta: await t.repos.events.count('ta'), tb: await t.repos.events.count('tb') };
    await t.ingest([
      {
        type: 'trade',
        token: A,
        market: MA1,
        signature: 'portsig-event',
        index: 0,
        blockTime: D + 200,
        side: 'buy',
        priceUsd: 4,
        amount: 10,
        quoteAmount: 0.4,
        volumeUsd: 40,
        wallet: W1,
      },
    ]);
    expect((await t.repos.events.count('ta')) - before.ta).toBe(1);
    expect((await t.repos.events.count('tb')) - before.tb).toBe(1);
    const [event] = (await t.repos.events.page('ta', 0, 0, 100)).slice(-1);
    expect(event).toMatchObject({ tenantId: 'ta', token: A, createdAt: NOW });
    expect(JSON.parse(event!.data)).toEqual({
      trades: [
        {
          id: 5,
          signature: 'portsig-event',
          index: 0,
          blockTime: D + 200,
          side: 'buy',
          priceUsd: 4,
          amount: 10,
          quoteAmount: 0.4,
          volumeUsd: 40,
          wallet: W1,
          market: MA1,
          dex: 'raydium',
        },
      ],
    });
  });
});

describe('outbox', () => {
  it('enqueue, due, claim, retry, delivered, finish, byEvent and pendingCount', async () => {
    const ev = await t.repos.events.insert('tb', A, D + 10, '{"x":1}');
    await t.repos.outbox.enqueue(ev, 's2', D + 20, D + 1000);
    const pending = await t.repos.outbox.pendingCount();
    const due = (await t.repos.outbox.due(D + 20, 100)).filter((d) => d.eventId === ev);
    expect(due).toEqual([
      {
        id: due[0]!.id,
        attempts: 0,
        dueAt: D + 20,
        deadlineAt: D + 1000,
        eventId: ev,
        tenantId: 'tb',
        token: A,
        createdAt: D + 10,
        data: '{"x":1}',
        webhookUrl: 'https://hook.example/b',
        secret: null,
      },
    ]);
    const id = due[0]!.id;
    expect((await t.repos.outbox.due(D + 19, 100)).some((d) => d.id === id)).toBe(false);
    expect((await t.repos.outbox.due(D + 20, 100, ['tb'])).some((d) => d.id === id)).toBe(false);
    expect(await t.repos.outbox.claim(id, D + 20, D + 50)).toBe(true);
    expect(await t.repos.outbox.claim(id, D + 20, D + 50)).toBe(false);
    await t.repos.outbox.retry({ id, attempts: 1, lastStatus: 500, lastError: 'HTTP 500', dueAt: D + 80 });
    expect(await t.repos.outbox.byEvent(ev)).toEqual([
      {
        id,
        eventId: ev,
        subscriptionId: 's2',
        status: 'pending',
        attempts: 1,
        dueAt: D + 80,
        deadlineAt: D + 1000,
        lastStatus: 500,
        lastError: 'HTTP 500',
        doneAt: null,
      },
    ]);
    await t.repos.outbox.delivered({ id, attempts: 2, lastStatus: 200, lastError: null, now: D + 81 });
    expect(await t.repos.outbox.byEvent(ev)).toMatchObject([{ status: 'delivered', attempts: 2, lastStatus: 200, lastError: null, doneAt: D + 81 }]);
    expect(await t.repos.outbox.pendingCount()).toBe(pending - 1);
    await t.repos.outbox.finish({ id, attempts: 3, lastStatus: null, lastError: 'late', status: 'failed', now: D + 90 });
    expect(await t.repos.outbox.byEvent(ev)).toMatchObject([{ status: 'delivered', attempts: 2 }]);
    await t.repos.outbox.enqueue(ev, 's1', D + 20, D + 1000);
    const [, second] = await t.repos.outbox.byEvent(ev);
    await t.repos.outbox.finish({ id: second!.id, attempts: 1, lastStatus: null, lastError: 'gone', status: 'cancelled', now: D + 30 });
    expect((await t.repos.outbox.byEvent(ev))[1]).toMatchObject({ status: 'cancelled', attempts: 1, lastError: 'gone', doneAt: D + 30 });
  });
});
