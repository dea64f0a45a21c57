/**
 * The Redis wiring of src/coord/wiring.ts on a real Redis, with two apps in this process, each
 * on a store of its own, so nothing but the bus can carry a change between them: B's store is
 * written with its change notice held back (as if another instance had written a shared
 * store), and only A's notice, heard through Redis, tells B's caches, key cache and stream hub.
 * A notice heard is applied, never published again; a commit is published before its request
 * answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { aToken, aTrade, withMarket } from '../helpers/builders.js';
import { Client, startLive, type Live } from '../stream/support.js';
import { channelPrefix } from '../../src/coord/wiring.js';
import { redisUrl } from './support.js';

// Pub/sub channels ignore the database number, so the wiring names it in the channel: a
// database of its own keeps other test files' instances off this file's channel.
const url = (() => {
  const u = new URL(redisUrl());
  u.pathname = '/11';
  return u.toString();
})();

const lives: Live[] = [];
afterEach(async () => {
  for (const l of lives.splice(0)) {
    await l.app.deps.coord.close();
    await l.stop();
  }
});

async function instance(id: string): Promise<Live> {
  const l = await startLive({ env: { INSTANCE_ID: id, REDIS_URL: url } });
  lives.push(l);
  expect(await l.app.deps.coord.ready(10_000)).toBe('up');
  return l;
}

/** Runs `write` on `l` with its change notice held back: its own listeners hear nothing and nothing is published. */
async function quietly<T>(l: Live, write: () => T | Promise<T>): Promise<T> {
  const notify = l.store.notifyChange;
  l.store.notifyChange = () => {};
  try {
    return await write();
  } finally {
    l.store.notifyChange = notify;
  }
}

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

const overviewName = async (l: Live, address: string): Promise<string> => (await l.http.get(`/v1/token/${address}/overview`)).body.name as string;
const tokenId = (l: Live, address: string) => l.store.db.prepare('SELECT id FROM tokens WHERE address = ?').pluck().get(address) as number;
const rename = (l: Live, address: string, name: string) => l.store.db.prepare('UPDATE tokens SET name = ? WHERE address = ?').run(name, address);

describe('the Redis wiring between two instances', () => {
  it("drops exactly the named token's cached answers on the other instance, and publishes a heard notice no further", async () => {
    const [a, b] = [await instance('wire-a'), await instance('wire-b')];
    const one = aToken({ name: 'One' });
    const two = aToken({ name: 'Two' });
    for (const l of [a, b]) await quietly(l, () => l.ingest([one, two]));
    expect([await overviewName(b, one.address), await overviewName(b, two.address)]).toEqual(['One', 'Two']);
    rename(b, one.address, 'One renamed');
    rename(b, two.address, 'Two renamed');
    // Cached: B's caches were told nothing.
    expect(await overviewName(b, one.address)).toBe('One');

    const heard: string[] = [];
    const spy = createClient({ url });
    await spy.connect();
    await spy.subscribe(`${channelPrefix(url)}notices`, (m) => void heard.push(m));
    try {
      a.store.notifyChange({ tokens: new Set([tokenId(a, one.address)]) });
      expect(
        await until(
          () => overviewName(b, one.address),
          (n) => n === 'One renamed',
          'B drops the answer',
        ),
      ).toBe('One renamed');
      // Only the named token's answers went.
      expect(await overviewName(b, two.address)).toBe('Two');
      await new Promise((r) => setTimeout(r, 200));
      expect(heard.map((m) => JSON.parse(m))).toEqual([{ from: 'wire-a', notice: { type: 'change', tokens: [tokenId(a, one.address)], accounts: false } }]);
    } finally {
      await spy.close();
    }
  });

  it('ignores a message on the channel that is not a notice: no cache dropped, counted in bus_notices_malformed_total', async () => {
    const b = await instance('wire-g');
    const one = aToken({ name: 'Kept' });
    await quietly(b, () => b.ingest([one]));
    expect(await overviewName(b, one.address)).toBe('Kept');
    rename(b, one.address, 'Kept renamed');
    const raw = createClient({ url });
    await raw.connect();
    try {
      for (const junk of ['not json', '\u0000', JSON.stringify({ from: 'x', notice: { type: 'change', tokens: 'everything' } })]) {
        await raw.publish(`${channelPrefix(url)}notices`, junk);
      }
    } finally {
      await raw.close();
    }
    await until(
      async () => ((await b.http.get('/metrics')).text.match(/bus_notices_malformed_total\{instance="wire-g"\} (\d+)/) ?? [])[1],
      (n) => n === '3',
      'B counted the three',
    );
    // Still the cached answer: garbage is not "everything changed".
    expect(await overviewName(b, one.address)).toBe('Kept');
    expect((await b.http.get('/healthz')).body.redis).toBe('up');
  });

  it('makes a key revoked elsewhere 401 at the next request once the accounts notice is heard', async () => {
    const [a, b] = [await instance('wire-c'), await instance('wire-d')];
    const { secret, keyId } = b.makeKey();
    expect((await b.http.get('/v1/tokens/registered').set('x-api-key', secret)).status).toBe(200);
    await quietly(b, () => b.services.accounts.revokeKey(keyId));
    // B's key cache still holds the key: only a notice can tell it.
    expect((await b.http.get('/v1/tokens/registered').set('x-api-key', secret)).status).toBe(200);
    a.store.notifyChange({ tokens: new Set(), accounts: true });
    const res = await until(
      () => b.http.get('/v1/tokens/registered').set('x-api-key', secret),
      (r) => r.status === 401,
      'B refuses the key',
    );
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('publishes a revocation as a revoke notice naming the key before answering, and the other instance drops its cached keys', async () => {
    const [a, b] = [await instance('wire-i'), await instance('wire-j')];
    // Made quietly: B hears nothing from A before the revocation.
    const admin = await quietly(a, () => a.makeKey());
    const doomed = await quietly(a, () => a.services.accounts.createKey(admin.tenantId));
    const { secret, keyId } = b.makeKey();
    expect((await b.http.get('/v1/tokens/registered').set('x-api-key', secret)).status).toBe(200);
    await quietly(b, () => b.services.accounts.revokeKey(keyId));
    expect((await b.http.get('/v1/tokens/registered').set('x-api-key', secret)).status).toBe(200);
    const heard: string[] = [];
    const spy = createClient({ url });
    await spy.connect();
    await spy.subscribe(`${channelPrefix(url)}notices`, (m) => void heard.push(m));
    try {
      expect((await a.http.delete(`/v1/keys/${doomed.key.id}`).set('x-api-key', admin.secret)).status).toBe(200);
      await spy.ping();
      expect(heard.map((m) => JSON.parse(m))).toEqual([{ from: 'wire-i', notice: { type: 'revoke', keyIds: [doomed.key.id] } }]);
      const res = await until(
        () => b.http.get('/v1/tokens/registered').set('x-api-key', secret),
        (r) => r.status === 401,
        'B refuses the key',
      );
      expect(res.body.error.message).toBe('the API key was revoked');
    } finally {
      await spy.close();
    }
  });

  it("hands the other instance's stream subscribers the trades a notice names, with their exact ids", async () => {
    const [a, b] = [await instance('wire-e'), await instance('wire-f')];
    const token = aToken();
    for (const l of [a, b]) await quietly(l, () => l.ingest(withMarket(token)));
    const c = await Client.open(`${b.wsBase}/v1/stream`);
    const sub = await c.request({ op: 'subscribe', channel: 'trades', token: token.address });
    expect(sub.op).toBe('subscribed');
    await quietly(b, () => b.ingest([aTrade(token.address, { blockTime: 1_700_000_100 }), aTrade(token.address, { blockTime: 1_700_000_101 })]));
    const ids = b.store.db.prepare('SELECT id FROM trades ORDER BY id').pluck().all() as number[];
    expect(ids).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 400));
    // The hub was told nothing: no trades went out.
    expect(c.of(sub.sub, 'trades')).toEqual([]);
    a.store.notifyChange({ tokens: new Set([tokenId(a, token.address)]) });
    const got = await c.waitFor((m) => m.op === 'trades');
    expect(got.trades.map((t: { id: number }) => t.id)).toEqual(ids);
    c.close();
  });

  it('answers a write only after its notice is out', async () => {
    const [a, b] = [await instance('wire-g'), await instance('wire-h')];
    const { secret } = a.makeKey();
    const heard: string[] = [];
    const spy = createClient({ url });
    await spy.connect();
    await spy.subscribe(`${channelPrefix(url)}notices`, (m) => void heard.push(m));
    try {
      const res = await a.http.post('/v1/keys').set('x-api-key', secret).send({ name: 'second' });
      expect(res.status).toBe(201);
      // Published before the answer: Redis hands it to the subscriber in order, so a round trip on it shows it.
      await spy.ping();
      expect(heard.map((m) => JSON.parse(m).notice)).toContainEqual({ type: 'change', tokens: [], accounts: true });
      expect(b.app.deps.coord.redis()).toBe('up');
    } finally {
      await spy.close();
    }
  });
});
