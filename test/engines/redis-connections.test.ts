/**
 * Connection caps shared through Redis: two instances (separate connections) never hold more
 * than the cap of a group together, even admitting at once; a released connection frees its slot
 * for either; a live instance's leases are renewed (written again when Redis lost them, as are
 * connections admitted while it was away), and a dead instance's stop counting when their leases end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { createRedisConnectionCounter, type ConnectionCounter } from '../../src/limiter/redis-connections.js';
import { redisPrefix, redisUrl } from './support.js';

const connect = async () => {
  const c = createClient({ url: redisUrl() });
  c.on('error', () => undefined);
  await c.connect();
  return c;
};
type Client = Awaited<ReturnType<typeof connect>>;

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe('shared connection caps', () => {
  const prefix = redisPrefix('conn');
  let a: Client;
  let b: Client;
  const counters: ConnectionCounter[] = [];
  const counter = (client: Client, instanceId: string, leaseMs?: number) => {
    const c = createRedisConnectionCounter({ client, instanceId, prefix, leaseMs });
    counters.push(c);
    return c;
  };

  beforeAll(async () => {
    a = await connect();
    b = await connect();
  });
  afterAll(async () => {
    for (const c of counters) c.stop();
    const keys: string[] = [];
    for await (const batch of a.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
    if (keys.length) await a.del(keys);
    await a.quit();
    await b.quit();
  });

  it('admits no more than the cap across instances, and a released slot goes to either', async () => {
    const one = counter(a, 'one');
    const two = counter(b, 'two');
    const t1 = await one.acquire('203.0.113.7', 3);
    const t2 = await one.acquire('203.0.113.7', 3);
    expect(await two.acquire('203.0.113.7', 3)).not.toBeNull();
    expect(await two.acquire('203.0.113.7', 3)).toBeNull();
    expect(await one.acquire('203.0.113.7', 3)).toBeNull();
    // Another group has its own count.
    expect(await two.acquire('198.51.100.1', 3)).not.toBeNull();
    await one.release(t1!);
    expect(await two.acquire('203.0.113.7', 3)).not.toBeNull();
    expect(await one.acquire('203.0.113.7', 3)).toBeNull();
    await one.release(t2!);
    expect(one.held()).toBe(0);
    expect(await a.zCard(`${prefix}203.0.113.7`)).toBe(2);
  });

  it('never passes the cap when both instances admit at once', async () => {
    const one = counter(a, 'one');
    const two = counter(b, 'two');
    const tries = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? one : two).acquire('burst', 5));
    const tickets = await Promise.all(tries);
    expect(tickets.filter((t) => t !== null)).toHaveLength(5);
    expect(one.held() + two.held()).toBe(5);
    expect(await a.zCard(`${prefix}burst`)).toBe(5);
  });

  it('writes again at the next renewal a lease Redis lost and a connection adopted while Redis was away', async () => {
    const one = counter(a, 'one', 900);
    const held = await one.acquire('lost', 5);
    const adopted = one.adopt('lost');
    expect(await a.zRange(`${prefix}lost`, 0, -1)).toEqual([held]);
    await a.del(`${prefix}lost`); // as a Redis restarted empty
    await until(async () => (await a.zCard(`${prefix}lost`)) === 2, 'both leases are written again');
    expect((await a.zRange(`${prefix}lost`, 0, -1)).sort()).toEqual([held, adopted].sort());
    await one.release(adopted);
    expect(await a.zRange(`${prefix}lost`, 0, -1)).toEqual([held]);
    expect(one.held()).toBe(1);
  });

  it("renews a live instance's leases and lets a dead instance's lapse", async () => {
    const live = counter(a, 'live', 1500);
    const dead = counter(b, 'dead', 1500);
    expect(await live.acquire('lease', 2)).not.toBeNull();
    expect(await dead.acquire('lease', 2)).not.toBeNull();
    dead.stop(); // the instance dies: nothing renews its lease any more
    const other = counter(b, 'other', 1500);
    expect(await other.acquire('lease', 2)).toBeNull();
    // Within a little more than one lease the dead one's slot is free, and the live one's is still held.
    let got: string | null = null;
    await until(async () => (got = await other.acquire('lease', 2)) !== null, "the dead instance's slot is free");
    expect(got).toMatch(/^other:/);
    // Several leases later the live instance's connection still counts.
    await new Promise((r) => setTimeout(r, 3500));
    const members = await a.zRange(`${prefix}lease`, 0, -1);
    expect(members.map((m) => m.split(':')[0]).sort()).toEqual(['live', 'other']);
  });
});
