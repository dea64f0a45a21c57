import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeTestApp, type TestApp } from '../helpers/make-test-app.js';
import { aMarket, aToken, aTrade, homeMarket, ndjson, withMarket } from '../helpers/builders.js';
import { createEvents } from '../../src/services/events.js';
import { testEngine } from '../helpers/pg-test-store.js';
import { PG_INGEST_SLICE } from '../../src/store/pg/ingest-repo.js';
import { readRawTrades, readTokenId } from '../v1/naive.js';

let t: TestApp;
afterEach(() => t?.close());

const register = (secret: string, address: string, webhookUrl?: string) =>
  t.http
    .post('/v1/tokens/register')
    .set('x-api-key', secret)
    .send({ address, ...(webhookUrl ? { webhookUrl } : {}) });
const events = (secret: string, query = '') => t.http.get(`/v1/events${query}`).set('x-api-key', secret);

/** A fresh app with a tenant's read key and a stored token that tenant registered. */
async function aRegisteredToken() {
  t = makeTestApp();
  return aTenantWithToken();
}

/** In the current app, a new tenant's read key and a new stored token that tenant registered. */
async function aTenantWithToken() {
  const { secret, tenantId } = t.makeKey();
  const token = aToken();
  t.ingest(withMarket(token));
  await register(secret, token.address);
  return { secret, tenantId, token };
}

type E = { id: string; type: string; token: string; createdAt: number; data: { trades: { id: number }[] } };

/** Every event of a tenant, page by page; also the cursors seen. */
async function walk(secret: string, limit: number): Promise<{ events: E[]; cursor: string }> {
  const all: E[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 10_000; guard++) {
    const res = await events(secret, `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    expect(typeof res.body.nextCursor).toBe('string');
    cursor = res.body.nextCursor as string;
    if (res.body.events.length === 0) return { events: all, cursor };
    all.push(...res.body.events);
  }
  throw new Error('walk did not end');
}

describe('events from ingest', () => {
  it('makes one event per registered token and tenant, with the trades in the shape of section 5', async () => {
    t = makeTestApp();
    const k1 = t.makeKey();
    const k2 = t.makeKey();
    const token = aToken();
    const other = aToken();
    const market = aMarket(token.address, { dex: 'orca' });
    const second = aMarket(token.address, { dex: 'raydium' });
    t.ingest([token, other, market, second, homeMarket(other.address)]);
    await register(k1.secret, token.address);
    await register(k2.secret, token.address);
    const late = aTrade(token.address, { market: market.address, blockTime: 1_700_000_500, side: 'sell', priceUsd: 2.5 });
    const early = aTrade(token.address, { market: second.address, blockTime: 1_700_000_400 });
    t.clock.advance(3000);
    await t.ingest([late, early, aTrade(other.address)]);

    const page = await events(k1.secret);
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body.events).toHaveLength(1);
    const e = page.body.events[0] as E;
    const raw = await readRawTrades(t.store, await readTokenId(t.store, token.address));
    expect(raw.map((r) => r.wallet)).toEqual([early.wallet, late.wallet]);
    const ids = raw.map((r) => r.id);
    expect(e).toEqual({
      id: expect.stringMatching(/^evt_\d+$/),
      type: 'trades',
      token: token.address,
      createdAt: t.clock.seconds(),
      data: {
        trades: [
          {
            id: ids[0],
            signature: early.signature,
            index: 0,
            blockTime: 1_700_000_400,
            side: 'buy',
            priceUsd: 1,
            amount: 10,
            quoteAmount: 0.1,
            volumeUsd: 10,
            wallet: early.wallet,
            market: second.address,
            dex: 'raydium',
          },
          {
            id: ids[1],
            signature: late.signature,
            index: 0,
            blockTime: 1_700_000_500,
            side: 'sell',
            priceUsd: 2.5,
            amount: 10,
            quoteAmount: 0.1,
            volumeUsd: 10,
            wallet: late.wallet,
            market: market.address,
            dex: 'orca',
          },
        ],
      },
    });
    const page2 = await events(k2.secret);
    expect(page2.body.events).toHaveLength(1);
    expect(page2.body.events[0].id).not.toBe(e.id);
    expect(page2.body.events[0].data).toEqual(e.data);
  });

  it('makes no event for duplicates, holders, markets or unregistered tokens', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const token = aToken();
    const trade = aTrade(token.address);
    t.ingest([...withMarket(token), trade]);
    await register(secret, token.address);
    t.ingest([trade, aMarket(token.address)]);
    const page = await events(secret);
    expect(page.body.events).toEqual([]);
  });

  it('splits more than 1000 trades of one batch into events of at most 1000, in trade order', async () => {
    const { secret, token } = await aRegisteredToken();
    // Out of time order on purpose: events follow trade order (blockTime, id), not arrival. The
    // block times are all different (7919 is prime to 2500), so trade order is blockTime order.
    const trades = Array.from({ length: 2500 }, (_, i) => aTrade(token.address, { blockTime: 1_700_000_000 + ((i * 7919) % 2500) }));
    await t.ingest(trades);
    const { events: all } = await walk(secret, 1000);
    // The events hook orders the trades of each call: the helper's SQLite ingest is one write()
    // and one call for the whole batch, PostgreSQL's ingest calls it once per slice of
    // PG_INGEST_SLICE records (docs/operations.md), so there each slice makes its own events.
    const slice = testEngine() === 'postgres' ? PG_INGEST_SLICE : trades.length;
    const expected: string[][] = [];
    for (let i = 0; i < trades.length; i += slice) {
      const sorted = trades.slice(i, i + slice).sort((a, b) => a.blockTime - b.blockTime);
      for (let j = 0; j < sorted.length; j += 1000) expected.push(sorted.slice(j, j + 1000).map((x) => x.signature));
    }
    expect(expected.map((e) => e.length)).toEqual([1000, 1000, 500]);
    const got = all.map((e) => (e.data.trades as unknown as { signature: string }[]).map((x) => x.signature));
    expect(got).toEqual(expected);
    expect(new Set(all.flatMap((e) => e.data.trades.map((x) => x.id))).size).toBe(2500);
  });

  it('makes events for trades that arrive through POST /v1/ingest too', async () => {
    t = makeTestApp();
    const { secret } = t.makeKey({ scopes: ['read', 'manage', 'ingest'] });
    const token = aToken();
    await register(secret, token.address);
    const res = await t.http
      .post('/v1/ingest')
      .set('x-api-key', secret)
      .set('Content-Type', 'application/x-ndjson')
      .send(ndjson([...withMarket(token), aTrade(token.address), aTrade(token.address)]));
    expect(res.status).toBe(200);
    const page = await events(secret);
    expect(page.body.events).toHaveLength(1);
    expect(page.body.events[0].data.trades).toHaveLength(2);
  });

  it('stops making events once the subscription is removed', async () => {
    const { secret, token } = await aRegisteredToken();
    t.ingest([aTrade(token.address)]);
    await t.http.delete(`/v1/tokens/registered/${token.address}`).set('x-api-key', secret);
    t.ingest([aTrade(token.address)]);
    const { events: all } = await walk(secret, 100);
    expect(all).toHaveLength(1);
  });
});

describe('GET /v1/events', () => {
  it('pages oldest first with a cursor that never skips or repeats, and an empty page when caught up', async () => {
    const { secret, token } = await aRegisteredToken();
    for (let i = 0; i < 7; i++) t.ingest([aTrade(token.address)]);
    const first = await events(secret, '?limit=3');
    expect(first.body.events).toHaveLength(3);
    const second = await events(secret, `?limit=3&cursor=${first.body.nextCursor}`);
    const third = await events(secret, `?limit=3&cursor=${second.body.nextCursor}`);
    expect(third.body.events).toHaveLength(1);
    const caughtUp = await events(secret, `?limit=3&cursor=${third.body.nextCursor}`);
    expect(caughtUp.body.events).toEqual([]);
    expect(caughtUp.body.nextCursor).toBe(third.body.nextCursor);
    const ids = [...first.body.events, ...second.body.events, ...third.body.events].map((e: E) => Number(e.id.slice(4)));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(7);
    // New events appear after the cursor of the caught-up page.
    t.ingest([aTrade(token.address)]);
    const resumed = await events(secret, `?cursor=${caughtUp.body.nextCursor}`);
    expect(resumed.body.events).toHaveLength(1);
    expect(Number(resumed.body.events[0].id.slice(4))).toBeGreaterThan(ids.at(-1)!);
  });

  it('gives a usable cursor even when the tenant has no events yet', async () => {
    const { secret, token } = await aRegisteredToken();
    const empty = await events(secret);
    expect(empty.body).toEqual({ events: [], nextCursor: expect.any(String) });
    t.ingest([aTrade(token.address)]);
    const later = await events(secret, `?cursor=${empty.body.nextCursor}`);
    expect(later.body.events).toHaveLength(1);
  });

  it('never shows one tenant the events of another', async () => {
    t = makeTestApp();
    const k1 = t.makeKey();
    const k2 = t.makeKey();
    const a = aToken();
    const b = aToken();
    t.ingest([...withMarket(a), ...withMarket(b)]);
    await register(k1.secret, a.address);
    await register(k2.secret, b.address);
    t.ingest([aTrade(a.address), aTrade(b.address)]);
    const p1 = await events(k1.secret);
    const p2 = await events(k2.secret);
    expect(p1.body.events.map((e: E) => e.token)).toEqual([a.address]);
    expect(p2.body.events.map((e: E) => e.token)).toEqual([b.address]);
  });

  // Up to 1,875 ingests of a transaction each: on PostgreSQL that takes longer than the default timeout.
  it('holds to exactly-once delivery of every event under ingests interleaved with the walk (property)', async () => {
    t = makeTestApp();
    await fc.assert(
      // Each run walks the events of a tenant of its own, so the runs share one store.
      fc.asyncProperty(fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 5 })), { minLength: 1, maxLength: 25 }), async (steps) => {
        const { secret, token } = await aTenantWithToken();
        const seen: string[] = [];
        let cursor: string | undefined;
        let made = 0;
        for (const [ingests, limit] of steps) {
          for (let i = 0; i < ingests; i++) t.ingest([aTrade(token.address)]);
          made += ingests;
          const res = await events(secret, `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
          seen.push(...res.body.events.map((e: E) => e.id));
          cursor = res.body.nextCursor;
        }
        const rest = cursor ? await walkFrom(secret, cursor) : [];
        seen.push(...rest);
        expect(seen).toHaveLength(made);
        expect(new Set(seen).size).toBe(made);
      }),
      { numRuns: 25 },
    );
  }, 60_000);

  it('keeps 7 days: older events are not returned, and the worker prunes them', async () => {
    const { secret, tenantId, token } = await aRegisteredToken();
    t.ingest([aTrade(token.address)]);
    t.clock.advance(6 * 86_400_000);
    t.ingest([aTrade(token.address)]);
    expect((await events(secret)).body.events).toHaveLength(2);
    t.clock.advance(86_400_000 + 1000);
    const page = await events(secret);
    expect(page.body.events).toHaveLength(1);
    expect(await t.services.repos.events.count(tenantId)).toBe(2);
    expect(await createEvents({ clock: t.clock, repos: t.services.repos }).prune()).toBe(1);
    expect(await t.services.repos.events.count(tenantId)).toBe(1);
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=1001', 'limit'],
    ['?limit=1e3', 'limit'],
    ['?limit=0x10', 'limit'],
    ['?limit=-1', 'limit'],
    ['?limit=010', 'limit'],
    ['?limit=1.5', 'limit'],
    ['?limit=abc', 'limit'],
    ['?limit=99999999999999999999', 'limit'],
    ['?limit=1&limit=2', 'limit'],
    ['?limit=%201', 'limit'],
  ])('answers %s with 400 invalid_parameter', async (query, param) => {
    t = makeTestApp();
    const { secret } = t.makeKey();
    const res = await events(secret, query);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('refuses any cursor it did not issue to this tenant with 400 invalid_cursor', async () => {
    t = makeTestApp();
    const k1 = t.makeKey();
    const k2 = t.makeKey();
    const token = aToken();
    t.ingest(withMarket(token));
    await register(k1.secret, token.address);
    t.ingest([aTrade(token.address)]);
    const issued = (await events(k1.secret)).body.nextCursor as string;
    expect((await events(k1.secret, `?cursor=${issued}`)).status).toBe(200);
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const bad = [
      'garbage',
      flip(issued, 0),
      flip(issued, issued.length - 1),
      flip(issued, issued.indexOf('.') + 1),
      issued.slice(0, -1),
      issued + 'A',
      `${issued}.x`,
      Buffer.from('e1:1').toString('base64url'),
      "' OR 1=1 --",
      'x'.repeat(5000),
    ];
    for (const cursor of bad) {
      const res = await events(k1.secret, `?cursor=${encodeURIComponent(cursor)}`);
      expect(res.status, cursor).toBe(400);
      expect(res.body.error.code).toBe('invalid_cursor');
    }
    const replayed = await events(k2.secret, `?cursor=${issued}`);
    expect(replayed.status).toBe(400);
    expect(replayed.body.error.code).toBe('invalid_cursor');
    expect((await events(k1.secret, `?cursor=${issued}&cursor=${issued}`)).status).toBe(400);
  });

  it('refuses any mutation of an issued cursor (property)', async () => {
    const { secret, token } = await aRegisteredToken();
    t.ingest([aTrade(token.address)]);
    const issued = (await events(secret)).body.nextCursor as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: issued.length - 1 }), fc.constantFrom(...alphabet), async (i, c) => {
        fc.pre(issued[i] !== c);
        const mutated = issued.slice(0, i) + c + issued.slice(i + 1);
        const res = await events(secret, `?cursor=${mutated}`);
        expect(res.status).toBe(400);
      }),
      { numRuns: 60 },
    );
  });

  it('needs a key with the read scope', async () => {
    t = makeTestApp();
    expect((await t.http.get('/v1/events')).status).toBe(401);
    const ingestOnly = t.makeKey({ scopes: ['ingest'] });
    expect((await events(ingestOnly.secret)).status).toBe(403);
  });
});

async function walkFrom(secret: string, cursor: string): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const res = await events(secret, `?limit=2&cursor=${cursor}`);
    if (res.body.events.length === 0) return ids;
    ids.push(...res.body.events.map((e: E) => e.id));
    cursor = res.body.nextCursor;
  }
}
