/**
 * Two real instances (server child processes) on one SQLite file and one Redis of the test's own
 * (docs/operations.md, Many instances): an ingest on A reaches a trades subscriber on B with the
 * exact trade ids; a key revoked on A is 401 on B at the next request and B's stream of that key
 * closes with 4401; with Redis stopped both stay correct and say degraded / "redis":"down" on
 * /healthz, and once Redis is back they say "up" and the stream flows again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../src/store/sqlite/db.js';
import { createServices } from '../../src/services/index.js';
import { systemClock } from '../../src/domain/clock.js';
import { aMarket, aToken, aTrade, ndjson } from '../helpers/builders.js';
import { Client } from '../stream/support.js';
import { health, ownRedis, startInstance, until, type Instance, type OwnRedis } from './instances.js';

let dir: string;
let redis: OwnRedis;
let a: Instance;
let b: Instance;
let store: Store;
let ingestKey: string;
let tenantId: string;
const token = aToken({ name: 'Shared' });
const market = aMarket(token.address);
let blockTime = 1_700_000_300;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'two-instances-'));
  const dbPath = join(dir, 'shared.db');
  redis = await ownRedis();
  await redis.start();
  // A first: it migrates the new file; B then opens a migrated store.
  a = await startInstance('inst-a', dbPath, redis.url);
  b = await startInstance('inst-b', dbPath, redis.url);
  store = openStore(dbPath);
  const services = createServices({ store, clock: systemClock });
  tenantId = (await services.accounts.createTenant({ name: 'Two instances', plan: 'enterprise' })).id;
  ingestKey = (await services.accounts.createKey(tenantId, { scopes: ['read', 'manage', 'ingest'] })).secret;
  await until(
    async () => [(await health(a)).body.redis, (await health(b)).body.redis],
    (s) => s.every((r) => r === 'up'),
    'both buses are up',
  );
}, 120_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  store?.close();
  redis?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const get = (i: Instance, path: string, key?: string) => fetch(`${i.base}${path}`, { headers: key ? { 'x-api-key': key } : {} });

async function ingest(i: Instance, records: unknown[]): Promise<void> {
  const res = await fetch(`${i.base}/v1/ingest`, {
    method: 'POST',
    headers: { 'x-api-key': ingestKey, 'content-type': 'application/x-ndjson' },
    body: ndjson(records as never),
  });
  expect(res.status).toBe(200);
}

const trades = (n: number) => Array.from({ length: n }, () => aTrade(token.address, { market: market.address, blockTime: blockTime++ }));
const tradeIdsAfter = (id: number) => store.db.prepare('SELECT id FROM trades WHERE id > ? ORDER BY id').pluck().all(id) as number[];
const maxTradeId = () => (store.db.prepare('SELECT coalesce(max(id), 0) FROM trades').pluck().get() as number) ?? 0;

/** A key of the shared tenant, made on `i` over HTTP. */
async function newKey(i: Instance): Promise<{ id: string; secret: string }> {
  const res = await fetch(`${i.base}/v1/keys`, {
    method: 'POST',
    headers: { 'x-api-key': ingestKey, 'content-type': 'application/json' },
    body: '{"name":"k"}',
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { key: { id: string }; secret: string };
  return { id: body.key.id, secret: body.secret };
}

const revoke = async (i: Instance, id: string) =>
  expect((await fetch(`${i.base}/v1/keys/${id}`, { method: 'DELETE', headers: { 'x-api-key': ingestKey } })).status).toBe(200);

/** Subscribes a client on `i` to the token's trades; resolves once subscribed. */
async function tradesSubscriber(i: Instance, key?: string): Promise<{ c: Client; sub: string }> {
  const c = await Client.open(`ws://127.0.0.1:${i.port}/v1/stream`, key ? { 'x-api-key': key } : {});
  const ok = await c.request({ op: 'subscribe', channel: 'trades', token: token.address });
  expect(ok.op).toBe('subscribed');
  return { c, sub: ok.sub as string };
}

const streamedIds = (c: Client, sub: string) => c.of(sub, 'trades').flatMap((m) => (m.trades as { id: number }[]).map((t) => t.id));

describe('two instances on one store and one Redis', () => {
  it('both report themselves up on /healthz', async () => {
    expect(await health(a)).toEqual({ code: 200, body: { status: 'ok', instance: 'inst-a', store: { kind: 'sqlite', state: 'up' }, redis: 'up' } });
    expect(await health(b)).toEqual({ code: 200, body: { status: 'ok', instance: 'inst-b', store: { kind: 'sqlite', state: 'up' }, redis: 'up' } });
  });

  it("hands an ingest on A to B's trades subscribers, with the exact trade ids", async () => {
    await ingest(a, [token, market]);
    const { c, sub } = await tradesSubscriber(b);
    const before = maxTradeId();
    await ingest(a, trades(3));
    const ids = tradeIdsAfter(before);
    expect(ids).toHaveLength(3);
    await until(
      async () => streamedIds(c, sub),
      (got) => got.length >= 3,
      'B streams the three trades',
    );
    expect(streamedIds(c, sub)).toEqual(ids);
    c.close();
  });

  it('makes a key revoked on A 401 on B at the next request, and closes its stream on B with 4401 within a second', async () => {
    const key = await newKey(a);
    expect((await get(b, '/v1/tokens/registered', key.secret)).status).toBe(200);
    const { c } = await tradesSubscriber(b, key.secret);
    await revoke(a, key.id);
    const res = await get(b, '/v1/tokens/registered', key.secret);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect(await c.closed(1000)).toBe(4401);
  });

  it('stays correct with Redis stopped, says degraded and "redis":"down", and "up" again once Redis is back', async () => {
    const { c, sub } = await tradesSubscriber(b);
    redis.stop();
    for (const i of [a, b]) {
      const h = await until(
        () => health(i),
        (x) => x.body.redis === 'down',
        `${i.id} sees Redis down`,
      );
      expect(h).toEqual({ code: 200, body: { status: 'degraded', instance: i.id, store: { kind: 'sqlite', state: 'up' }, redis: 'down' } });
    }
    // Reads on B see A's ingest at once: B serves no cached answer.
    const overview = async () => ((await (await get(b, `/v1/token/${token.address}/overview`)).json()) as { lastTradeAt: number }).lastTradeAt;
    const seen = await overview();
    const before = maxTradeId();
    await ingest(a, trades(2));
    expect(await overview()).toBe(blockTime - 1);
    expect(seen).toBeLessThan(blockTime - 1);
    await until(
      async () => streamedIds(c, sub),
      (got) => got.length >= 2,
      'B streams the trades without Redis',
    );
    expect(streamedIds(c, sub)).toEqual(tradeIdsAfter(before));
    // Revocation stays immediate: keys are checked in the store.
    const key = await newKey(b);
    expect((await get(b, '/v1/tokens/registered', key.secret)).status).toBe(200);
    await revoke(a, key.id);
    expect((await get(b, '/v1/tokens/registered', key.secret)).status).toBe(401);

    await redis.start();
    for (const i of [a, b]) {
      const h = await until(
        () => health(i),
        (x) => x.body.redis === 'up',
        `${i.id} sees Redis up`,
      );
      expect(h).toEqual({ code: 200, body: { status: 'ok', instance: i.id, store: { kind: 'sqlite', state: 'up' }, redis: 'up' } });
    }
    const again = maxTradeId();
    await ingest(a, trades(1));
    await until(
      async () => streamedIds(c, sub).filter((id) => id > again),
      (got) => got.length >= 1,
      'B streams after Redis is back',
    );
    expect(streamedIds(c, sub).filter((id) => id > again)).toEqual(tradeIdsAfter(again));
    c.close();
    // The warning was logged, and the return.
    expect(a.stderr()).toMatch(/"instance":"inst-a".*"redis":"down".*redis is down/);
    expect(b.stderr()).toMatch(/"instance":"inst-b".*"redis":"up".*redis is up/);
  });
});
