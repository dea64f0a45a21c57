/**
 * Rate limits and stream connection caps shared by two real instances (server child processes on
 * one SQLite file and a Redis of the test's own; docs/operations.md, Many instances): requests
 * spread over both, even at once, are allowed exactly as one bucket allows them, RateLimit-Remaining
 * falls by one whichever instance answers, a plan edit shows on both, the stream's cap counts both
 * instances' connections; with Redis stopped each instance limits on its own, and once Redis is
 * back the limits are shared again. Last, B is killed: its connections stop counting when their
 * leases end (a minute at most, so that test takes about one).
 *
 * TRUST_PROXY=1, so each test picks its own anonymous bucket with X-Forwarded-For. The anonymous
 * limit is 20 an hour: a request is regained every 3 minutes, so the counts below are exact on a
 * loaded machine, and the stream's anonymous cap (10) is reached before the rate limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { openStore, type Store } from '../../src/store/sqlite/db.js';
import { createServices } from '../../src/services/index.js';
import { systemClock } from '../../src/domain/clock.js';
import { Client } from '../stream/support.js';
import { health, ownRedis, startInstance, until, type Instance, type OwnRedis } from './instances.js';

const LIMIT = 20;
let dir: string;
let redis: OwnRedis;
let a: Instance;
let b: Instance;
let store: Store;
let services: ReturnType<typeof createServices>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'shared-limits-'));
  const dbPath = join(dir, 'shared.db');
  redis = await ownRedis();
  await redis.start();
  const env = { TRUST_PROXY: '1', RATE_LIMIT_ANON: `${LIMIT}/3600` };
  a = await startInstance('lim-a', dbPath, redis.url, env);
  b = await startInstance('lim-b', dbPath, redis.url, env);
  store = openStore(dbPath);
  services = createServices({ store, clock: systemClock });
  await bothRedis('up');
}, 120_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  store?.close();
  redis?.kill();
  rmSync(dir, { recursive: true, force: true });
});

async function bothRedis(state: 'up' | 'down'): Promise<void> {
  for (const i of [a, b]) {
    await until(
      () => health(i),
      (h) => h.body.redis === state,
      `${i.id} sees Redis ${state}`,
    );
  }
}

let lastIp = 0;
/** A client address no other test uses: a fresh anonymous bucket. */
const freshIp = () => `198.51.100.${++lastIp}`;

const get = (i: Instance, ip: string, path = '/udf/time', headers: Record<string, string> = {}) =>
  fetch(`${i.base}${path}`, { headers: { 'x-forwarded-for': ip, ...headers } });
const remaining = (r: Response) => Number(r.headers.get('ratelimit-remaining'));
const statuses = (rs: Response[]) => ({ ok: rs.filter((r) => r.status === 200).length, limited: rs.filter((r) => r.status === 429).length });
const at = (i: number) => (i % 2 === 0 ? a : b);

/** `n` requests at once, alternating between the instances. */
const burst = (n: number, ip: string) => Promise.all(Array.from({ length: n }, (_, k) => get(at(k), ip)));

type Upgrade = { status: number; client?: Client; message?: string };

/** A stream upgrade on `i`: the open client (101), or the refusal's status and error message. */
function upgrade(i: Instance, headers: Record<string, string>): Promise<Upgrade> {
  const ws = new WebSocket(`ws://127.0.0.1:${i.port}/v1/stream`, { headers });
  return new Promise((resolve, reject) => {
    ws.on('error', reject);
    ws.once('open', () => resolve({ status: 101, client: new Client(ws) }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, message: (JSON.parse(body) as { error: { message: string } }).error.message }));
    });
  });
}

async function open(i: Instance, headers: Record<string, string>): Promise<Client> {
  const u = await upgrade(i, headers);
  expect(u.status).toBe(101);
  return u.client!;
}

const capMessage = (cap: number) => `at most ${cap} open stream connections for this caller`;

describe('rate limits shared by two instances', () => {
  it('allows exactly the limit across both instances when 40 requests arrive at once', async () => {
    const answers = await burst(40, freshIp());
    expect(statuses(answers)).toEqual({ ok: LIMIT, limited: 40 - LIMIT });
    // Each allowed request took one slot of the one bucket: every count from 19 down to 0, once.
    const left = answers.filter((r) => r.status === 200).map(remaining);
    expect(left.sort((x, y) => x - y)).toEqual(Array.from({ length: LIMIT }, (_, k) => k));
    for (const r of answers) expect(r.headers.get('ratelimit-policy')).toBe(`${LIMIT};w=3600`);
    for (const r of answers.filter((x) => x.status === 429)) expect(remaining(r)).toBe(0);
  });

  it('lowers RateLimit-Remaining by one per request whichever instance answers, and both refuse past the limit', async () => {
    const ip = freshIp();
    const seen: [number, number][] = [];
    for (let k = 0; k < LIMIT; k++) {
      const r = await get(at(k), ip);
      seen.push([r.status, remaining(r)]);
    }
    expect(seen).toEqual(Array.from({ length: LIMIT }, (_, k) => [200, LIMIT - 1 - k]));
    for (const i of [a, b]) {
      const r = await get(i, ip);
      expect(r.status).toBe(429);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(3600 / LIMIT);
    }
    // The same headers from either instance (/healthz reads the bucket without counting).
    const [ha, hb] = [await get(a, ip, '/healthz'), await get(b, ip, '/healthz')];
    for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-policy']) expect(ha.headers.get(h)).toBe(hb.headers.get(h));
    expect(Math.abs(Number(ha.headers.get('ratelimit-reset')) - Number(hb.headers.get('ratelimit-reset')))).toBeLessThanOrEqual(1);
  });

  it("shares a tenant's bucket between the instances, and a plan edited in the store shows on both", async () => {
    store.db.prepare("INSERT INTO plans (name, requests_per_minute, max_keys, max_subscriptions) VALUES ('trial', 5, 3, 10)").run();
    const tenant = await services.accounts.createTenant({ name: 'Trial', plan: 'trial' });
    const { secret } = await services.accounts.createKey(tenant.id, { scopes: ['read'] });
    const key = { 'x-api-key': secret };
    const seen: [number, number][] = [];
    for (let k = 0; k < 6; k++) {
      const r = await get(at(k), freshIp(), '/udf/time', key);
      seen.push([r.status, remaining(r)]);
    }
    // Five a minute, whatever the client address, then refused.
    expect(seen).toEqual([
      [200, 4],
      [200, 3],
      [200, 2],
      [200, 1],
      [200, 0],
      [429, 0],
    ]);
    store.db.prepare("UPDATE plans SET requests_per_minute = 600 WHERE name = 'trial'").run();
    for (const i of [a, b]) {
      const r = await get(i, freshIp(), '/udf/time', key);
      expect([r.headers.get('ratelimit-limit'), r.headers.get('ratelimit-policy')]).toEqual(['600', '600;w=60']);
    }
  });
});

describe('stream connection caps shared by two instances', () => {
  it("refuses the anonymous caller's 11th connection on either instance", async () => {
    const headers = { 'x-forwarded-for': freshIp() };
    const clients: Client[] = [];
    for (let k = 0; k < 10; k++) clients.push(await open(at(k), headers));
    for (const i of [a, b]) expect(await upgrade(i, headers)).toEqual({ status: 429, message: capMessage(10) });
    // Another address has its own cap.
    const other = await open(b, { 'x-forwarded-for': freshIp() });
    for (const c of [...clients, other]) c.close();
  });

  it("caps a tenant's connections across instances, and a closed one frees its slot for the other instance", async () => {
    const tenant = await services.accounts.createTenant({ name: 'Free streams', plan: 'free' });
    const { secret } = await services.accounts.createKey(tenant.id, { scopes: ['read'] });
    // Each from another address: the tenant's cap, not an address's, is what counts.
    const key = () => ({ 'x-api-key': secret, 'x-forwarded-for': freshIp() });
    const clients: Client[] = [];
    for (let k = 0; k < 10; k++) clients.push(await open(at(k), key()));
    expect(await upgrade(b, key())).toEqual({ status: 429, message: capMessage(10) });
    clients.shift()!.close(); // one of A's
    const admitted = await until(
      () => upgrade(b, key()),
      (u) => u.status === 101,
      "B admits once A's connection is gone",
      100,
    );
    clients.push(admitted.client!);
    expect(await upgrade(a, key())).toEqual({ status: 429, message: capMessage(10) });
    for (const c of clients) c.close();
  });
});

describe('with Redis stopped', () => {
  it('limits per instance while Redis is away, and shares the limits again once it is back', async () => {
    redis.stop();
    await bothRedis('down');
    for (const i of [a, b]) expect((await health(i)).body.status).toBe('degraded');

    // Each instance counts on its own: the whole limit on each, nothing unlimited, nothing failed.
    const ip = freshIp();
    for (const i of [a, b]) {
      const answers = await Promise.all(Array.from({ length: LIMIT + 5 }, () => get(i, ip)));
      expect(statuses(answers)).toEqual({ ok: LIMIT, limited: 5 });
    }
    // And so does the stream's cap: ten on A, the eleventh refused there, yet ten more on B.
    const headers = { 'x-forwarded-for': freshIp() };
    const clients: Client[] = [];
    for (let k = 0; k < 10; k++) clients.push(await open(a, headers));
    expect(await upgrade(a, headers)).toEqual({ status: 429, message: capMessage(10) });
    for (let k = 0; k < 10; k++) clients.push(await open(b, headers));
    for (const c of clients) c.close();

    await redis.start();
    await bothRedis('up');
    const answers = await burst(40, freshIp());
    expect(statuses(answers)).toEqual({ ok: LIMIT, limited: 40 - LIMIT });
    expect(a.stderr()).toMatch(/"instance":"lim-a".*"redis":"down".*rate limits and stream connection caps are per instance/);
  });
});

describe('an instance that dies', () => {
  it('stops counting its stream connections once their leases end (within 60 s)', async () => {
    const tenant = await services.accounts.createTenant({ name: 'Dying streams', plan: 'free' });
    const { secret } = await services.accounts.createKey(tenant.id, { scopes: ['read'] });
    const key = () => ({ 'x-api-key': secret, 'x-forwarded-for': freshIp() });
    const onA: Client[] = [];
    for (let k = 0; k < 3; k++) onA.push(await open(a, key()));
    for (let k = 0; k < 7; k++) await open(b, key());
    expect(await upgrade(a, key())).toEqual({ status: 429, message: capMessage(10) });
    b.child.kill('SIGKILL'); // nothing releases or renews B's seven leases any more
    await b.exit;
    expect(await upgrade(a, key())).toEqual({ status: 429, message: capMessage(10) });
    // Polled once a second: a refused upgrade costs a request of the tenant's 300 a minute.
    const polls: number[] = [];
    const admitted = await until(
      async () => {
        await new Promise((r) => setTimeout(r, 1000));
        const u = await upgrade(a, key());
        polls.push(u.status);
        return u;
      },
      (u) => u.status === 101,
      "A admits once the dead instance's leases have ended",
      75,
    );
    onA.push(admitted.client!);
    // A's own four still count: six more fit, not seven.
    for (let k = 0; k < 6; k++) onA.push(await open(a, key()));
    expect(await upgrade(a, key())).toEqual({ status: 429, message: capMessage(10) });
    expect(polls.length).toBeGreaterThan(1);
    for (const c of onA) c.close();
  }, 120_000);
});
