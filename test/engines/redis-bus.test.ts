/**
 * The instance-to-instance bus on a real Redis: a notice published by one instance reaches the
 * others (not itself), exactly as sent; an unreadable message is ignored and counted (never "everything changed");
 * and when Redis restarts, a subscriber reports 'down' at once, then 'up' with a flush once its
 * subscription is back, after which notices flow again (a Redis of its own, a redis-server child).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createClient } from 'redis';
import { createRedisBus, type BusState, type Notice, type RedisBus } from '../../src/coord/redis-bus.js';
import { redisPrefix, redisUrl } from './support.js';

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

type Heard = { notices: [Notice, string][]; states: [BusState, boolean][] };

describe('Redis bus', () => {
  const buses: RedisBus[] = [];
  const children: ChildProcess[] = [];
  const bus = (url: string, instanceId: string, prefix: string): { bus: RedisBus; heard: Heard } => {
    const heard: Heard = { notices: [], states: [] };
    const b = createRedisBus({
      url,
      instanceId,
      prefix,
      reconnectMs: 50,
      onNotice: (n, from) => heard.notices.push([n, from]),
      onState: (s, info) => heard.states.push([s, info.flush]),
    });
    buses.push(b);
    return { bus: b, heard };
  };
  afterEach(async () => {
    for (const b of buses.splice(0)) await b.close();
  });
  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
  });

  it('hands each notice published on one instance to the others, not back to itself', async () => {
    const prefix = redisPrefix('bus');
    const a = bus(redisUrl(), 'a', prefix);
    const b = bus(redisUrl(), 'b', prefix);
    const c = bus(redisUrl(), 'c', prefix);
    await until(() => [a, b, c].every((x) => x.bus.state() === 'up'), 'all three are subscribed');
    expect(b.heard.states).toEqual([['up', true]]);
    const sent: Notice[] = [
      { type: 'change', tokens: [3, 7], accounts: false },
      { type: 'change', tokens: 'all', accounts: true },
      { type: 'revoke', keyIds: ['key_1'] },
      { type: 'change', tokens: [7], accounts: false },
    ];
    for (const n of sent) expect(await a.bus.publish(n)).toBe(true);
    await until(() => b.heard.notices.length === 4 && c.heard.notices.length === 4, 'b and c heard all four');
    expect(b.heard.notices).toEqual(sent.map((n) => [n, 'a']));
    expect(c.heard.notices).toEqual(sent.map((n) => [n, 'a']));
    expect(await b.bus.publish({ type: 'revoke', keyIds: ['key_2'] })).toBe(true);
    await until(() => a.heard.notices.length === 1 && c.heard.notices.length === 5, 'a and c heard b');
    // Nobody heard its own notices.
    expect(a.heard.notices).toEqual([[{ type: 'revoke', keyIds: ['key_2'] }, 'b']]);
    // Another deployment's prefix is another channel.
    const other = bus(redisUrl(), 'x', redisPrefix('bus_other'));
    await until(() => other.bus.state() === 'up', 'the other deployment is subscribed');
    await a.bus.publish({ type: 'change', tokens: [1], accounts: false });
    await until(() => c.heard.notices.length === 6, 'c heard the last one');
    expect(other.heard.notices).toEqual([]);
  });

  it('ignores and counts a message it cannot understand, then hears the next notice', async () => {
    const prefix = redisPrefix('bus_garbled');
    let malformed = 0;
    const heard: [Notice, string][] = [];
    const b = createRedisBus({
      url: redisUrl(),
      instanceId: 'b',
      prefix,
      reconnectMs: 50,
      onNotice: (n, from) => heard.push([n, from]),
      onMalformed: () => malformed++,
    });
    buses.push(b);
    await until(() => b.state() === 'up', 'b is subscribed');
    const raw = createClient({ url: redisUrl() });
    await raw.connect();
    try {
      await raw.publish(`${prefix}notices`, 'not json');
      await raw.publish(`${prefix}notices`, JSON.stringify({ from: 'v9', notice: { type: 'compact', tokens: [1] } }));
      await raw.publish(`${prefix}notices`, JSON.stringify({ from: 'a', notice: { type: 'change', tokens: [4], accounts: false } }));
    } finally {
      await raw.close();
    }
    await until(() => heard.length === 1, 'b heard the readable one');
    expect(heard).toEqual([[{ type: 'change', tokens: [4], accounts: false }, 'a']]);
    expect(malformed).toBe(2);
  });

  it('reports a lost subscription at once and a flush when Redis is back, then hears notices again', async () => {
    const port = await freePort();
    const start = () => {
      const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      children.push(child);
      return child;
    };
    const url = `redis://127.0.0.1:${port}`;
    let server = start();
    const a = bus(url, 'a', 'p:');
    const b = bus(url, 'b', 'p:');
    await until(() => a.bus.state() === 'up' && b.bus.state() === 'up', 'both are subscribed');
    expect(await a.bus.publish({ type: 'change', tokens: [1], accounts: false })).toBe(true);
    await until(() => b.heard.notices.length === 1, 'b heard the first notice');

    server.kill('SIGKILL');
    await until(() => b.bus.state() === 'down' && a.bus.state() === 'down', 'both saw Redis go');
    expect(b.heard.states).toEqual([
      ['up', true],
      ['down', false],
    ]);
    // Nothing waits for Redis to come back: a notice it cannot take is refused at once.
    expect(await a.bus.publish({ type: 'change', tokens: [2], accounts: false })).toBe(false);

    server = start();
    await until(() => a.bus.state() === 'up' && b.bus.state() === 'up', 'both are subscribed again');
    expect(b.heard.states).toEqual([
      ['up', true],
      ['down', false],
      ['up', true],
    ]);
    // The subscription is live when 'up' is reported: the next notice arrives (once a's own
    // publishing connection is back too).
    let published = false;
    for (let i = 0; i < 200 && !published; i++) {
      published = await a.bus.publish({ type: 'change', tokens: [5], accounts: false });
      if (!published) await new Promise((r) => setTimeout(r, 25));
    }
    expect(published).toBe(true);
    await until(() => b.heard.notices.length === 2, 'b heard the notice after the restart');
    expect(b.heard.notices.map(([n]) => n)).toEqual([
      { type: 'change', tokens: [1], accounts: false },
      { type: 'change', tokens: [5], accounts: false },
    ]);
  });

  it('starts while Redis is away and reports up, with a flush, when it arrives', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const a = bus(url, 'a', 'q:');
    const b = bus(url, 'b', 'q:');
    await new Promise((r) => setTimeout(r, 300));
    expect([a.bus.state(), b.bus.state()]).toEqual(['down', 'down']);
    expect(await a.bus.publish({ type: 'change', tokens: [1], accounts: false })).toBe(false);
    children.push(spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }));
    await until(() => a.bus.state() === 'up' && b.bus.state() === 'up', 'both are subscribed');
    expect(b.heard.states).toEqual([['up', true]]);
    let published = false;
    for (let i = 0; i < 200 && !published; i++) {
      published = await a.bus.publish({ type: 'change', tokens: [2], accounts: false });
      if (!published) await new Promise((r) => setTimeout(r, 25));
    }
    await until(() => b.heard.notices.length === 1, 'b heard a');
    expect(b.heard.notices).toEqual([[{ type: 'change', tokens: [2], accounts: false }, 'a']]);
  });
});
