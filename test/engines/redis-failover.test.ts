/**
 * The failover limiter against a Redis of its own (a redis-server child process, so it can be
 * killed, stalled and restarted without touching the shared test Redis): shared buckets while
 * Redis answers, in-memory buckets while it is gone or stalled, shared again once it is back; a
 * process too busy to read Redis's answer in time still takes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createClient } from 'redis';
import { createLimiter } from '../../src/limiter/limiter.js';
import { createRedisLimiter, tenantBucketKey } from '../../src/limiter/redis-gcra.js';
import { createFailoverLimiter, type RedisState } from '../../src/limiter/redis-failover.js';
import type { Rate } from '../../src/limiter/gcra.js';

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe('failover limiter', () => {
  let port: number;
  let server: ChildProcess | null = null;
  const startRedis = async () => {
    server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
  };
  const connect = () =>
    createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: () => 50, connectTimeout: 1000 } }).on('error', () => undefined);
  let client: ReturnType<typeof connect>;

  beforeAll(async () => {
    port = await freePort();
    await startRedis();
    client = connect();
    await until(async () => {
      try {
        if (!client.isOpen) await client.connect();
        return client.isReady;
      } catch {
        return false;
      }
    }, 'the private Redis answers');
  });
  afterAll(async () => {
    client?.destroy();
    server?.kill('SIGKILL');
  });

  it('uses Redis while it answers, memory while it is gone or stalled, and Redis again once it is back', async () => {
    const prefix = 'fo:';
    const changes: RedisState[] = [];
    const limiter = createFailoverLimiter({
      redis: createRedisLimiter({ client, prefix }),
      ready: () => client.isReady,
      memory: createLimiter({ clock: { now: () => Date.now() } }),
      // Generous, so a loaded machine never makes a healthy Redis look stalled; the pause below is longer.
      timeoutMs: 1000,
      onStateChange: (s) => changes.push(s),
    });
    const rate: Rate = { limit: 3, windowSeconds: 3600 };
    const key = tenantBucketKey(prefix, 'acme');

    expect(await limiter.tenant('acme', rate, true)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await limiter.tenant('acme', rate, true)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await client.exists(key)).toBe(1);
    expect(limiter.redisState()).toBe('up');

    // Stalled: the server holds every client's commands (CLIENT PAUSE answers once the pause is
    // in force); the call is answered from this instance's fresh bucket.
    const blocker = connect();
    await blocker.connect();
    await blocker.sendCommand(['CLIENT', 'PAUSE', '2500', 'ALL']);
    expect(await limiter.tenant('acme', rate, true)).toMatchObject({ allowed: true, remaining: 2 });
    expect(limiter.redisState()).toBe('down');
    // The blocker's own commands wait out the pause too: this returns once it is over.
    await blocker.ping();
    blocker.destroy();

    // Back: the shared bucket answers again (the stalled call also counted there, once).
    expect(await limiter.tenant('acme', rate, false)).toMatchObject({ remaining: 0 });
    expect(limiter.redisState()).toBe('up');

    // Gone: killed; calls go to memory at once, never queue behind the reconnect.
    server!.kill('SIGKILL');
    await until(() => !client.isReady, 'the client sees Redis gone');
    expect(await limiter.tenant('acme', rate, true)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limiter.tenant('acme', rate, true)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.tenant('acme', rate, true)).toMatchObject({ allowed: false });
    expect(limiter.redisState()).toBe('down');

    // Restarted (empty, no persistence): shared buckets again.
    await startRedis();
    await until(() => client.isReady, 'the client reconnects');
    expect(await limiter.tenant('acme', rate, true)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await client.exists(key)).toBe(1);
    expect(limiter.redisState()).toBe('up');
    expect(changes).toEqual(['down', 'up', 'down', 'up']);
  });

  it('takes the answer Redis gave while this process, not Redis, was busy past the timeout', async () => {
    const memory = createLimiter({ clock: { now: () => Date.now() } });
    const limiter = createFailoverLimiter({ redis: createRedisLimiter({ client, prefix: 'busy:' }), ready: () => client.isReady, memory, timeoutMs: 50 });
    const rate: Rate = { limit: 3, windowSeconds: 3600 };
    await limiter.tenant('warm-up', rate, true); // the script is loaded: one round trip from here on
    const decided = limiter.tenant('acme', rate, true);
    await new Promise((r) => setImmediate(r)); // node-redis writes the command
    // The event loop held for six times the timeout: Redis answers meanwhile, and the timeout falls due.
    const until = Date.now() + 300;
    while (Date.now() < until);
    expect(await decided).toMatchObject({ allowed: true, remaining: 2 });
    expect(limiter.redisState()).toBe('up');
    expect(await client.exists(tenantBucketKey('busy:', 'acme'))).toBe(1);
    // This instance's own bucket was not used.
    expect(memory.tenant('acme', rate, false).remaining).toBe(3);
  });
});
