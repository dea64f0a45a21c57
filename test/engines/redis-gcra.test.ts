/**
 * The Redis GCRA limiter against a real Redis: the same decisions and headers as the in-memory
 * limiter for the same request times (property test), an exact global limit when two connections
 * (two instances) hammer one bucket at once, and keys that expire when their bucket is full again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createClient } from 'redis';
import { createLimiter } from '../../src/limiter/limiter.js';
import { createRedisLimiter, GCRA_SHA, ipBucketKey, tenantBucketKey } from '../../src/limiter/redis-gcra.js';
import type { Rate } from '../../src/limiter/gcra.js';
import { redisPrefix, redisUrl } from './support.js';

const connect = async () => {
  const c = createClient({ url: redisUrl() });
  c.on('error', () => undefined);
  await c.connect();
  return c;
};

type Client = Awaited<ReturnType<typeof connect>>;

describe('Redis GCRA limiter', () => {
  const prefix = redisPrefix('gcra');
  let a: Client;
  let b: Client;

  beforeAll(async () => {
    a = await connect();
    b = await connect();
  });
  afterAll(async () => {
    const keys: string[] = [];
    for await (const batch of a.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
    if (keys.length) await a.del(keys);
    await a.quit();
    await b.quit();
  });

  it('answers exactly as the in-memory limiter for random request times, rates and peeks', async () => {
    const rate = fc.record({ limit: fc.integer({ min: 1, max: 12 }), windowSeconds: fc.constantFrom(1, 7, 60, 3600) });
    const step = fc.record({
      // Gaps from nothing to several windows, in whole microseconds.
      gapUs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2_000_000 }), fc.integer({ min: 1, max: 200_000_000 })),
      // Mostly counted requests, some peeks (the /healthz and preflight path).
      consume: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      // Mostly one rate per bucket; sometimes the plan changes between two requests.
      rateIndex: fc.nat({ max: 9 }),
      ip: fc.boolean(),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(rate, { minLength: 2, maxLength: 2 }), fc.array(step, { minLength: 1, maxLength: 60 }), async (rates, steps) => {
        run++;
        let nowUs = 1_750_000_000_000_000 + run * 1_000_003;
        const clock = { now: () => nowUs / 1000 };
        const memory = createLimiter({ clock, seed: 1 });
        const redis = createRedisLimiter({ client: a, prefix, clock });
        const tenant = `tenant-${run}`;
        const ip = { hi: run >>> 0, lo: (2 << 24) >>> 0 };
        for (const s of steps) {
          nowUs += s.gapUs;
          const r: Rate = s.rateIndex === 9 ? rates[1]! : rates[0]!;
          const want = s.ip ? memory.ip(ip, r, s.consume) : memory.tenant(tenant, r, s.consume);
          const got = await (s.ip ? redis.ip(ip, r, s.consume) : redis.tenant(tenant, r, s.consume));
          expect(got).toEqual(want);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('never allows more than one bucket in total when two instances hammer it at once', async () => {
    // 40 requests an hour: nothing is regained while the test runs, so the count is exact.
    const rate: Rate = { limit: 40, windowSeconds: 3600 };
    const one = createRedisLimiter({ client: a, prefix });
    const two = createRedisLimiter({ client: b, prefix });
    const id = 'hammered';
    const calls = Array.from({ length: 150 }, (_, i) => (i % 2 === 0 ? one : two).tenant(id, rate, true));
    const decisions = await Promise.all(calls);
    const allowed = decisions.filter((d) => d.allowed);
    expect(allowed).toHaveLength(40);
    // Each allowed request saw the bucket one lower than the one before it, whichever instance answered.
    expect(allowed.map((d) => d.remaining).sort((x, y) => y - x)).toEqual(Array.from({ length: 40 }, (_, i) => 39 - i));
    const refused = decisions.filter((d) => !d.allowed);
    expect(refused).toHaveLength(110);
    expect(refused.every((d) => d.remaining === 0 && d.retryAfterSeconds! >= 80 && d.retryAfterSeconds! <= 90)).toBe(true);
    // A peek from either instance sees the same exhausted bucket.
    expect(await two.tenant(id, rate, false)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 3600 });
  });

  it('lets a key live until its bucket is full again, and no longer', async () => {
    // The decisions at one frozen instant (so none depends on how fast the machine is); the key's
    // TTL is relative to that instant, and Redis expires it in real time.
    let nowMs = Date.now();
    const limiter = createRedisLimiter({ client: a, prefix, clock: { now: () => nowMs } });
    const rate: Rate = { limit: 4, windowSeconds: 1 };
    const ip = { hi: 0x7f000001, lo: (2 << 24) >>> 0 };
    const key = ipBucketKey(prefix, ip);

    // A peek writes nothing.
    expect(await limiter.ip(ip, rate, false)).toMatchObject({ remaining: 4, resetSeconds: 0 });
    expect(await a.exists(key)).toBe(0);

    await limiter.ip(ip, rate, true);
    const afterOne = await a.pTTL(key);
    expect(afterOne).toBeGreaterThan(0);
    expect(afterOne).toBeLessThanOrEqual(250);
    for (let i = 0; i < 3; i++) await limiter.ip(ip, rate, true);
    const full = await a.pTTL(key);
    expect(full).toBeGreaterThan(250);
    expect(full).toBeLessThanOrEqual(1000);
    // Refused requests consume nothing and do not extend the key's life.
    expect(await limiter.ip(ip, rate, true)).toMatchObject({ allowed: false });
    expect(await a.pTTL(key)).toBeLessThanOrEqual(full);

    await new Promise((r) => setTimeout(r, full + 50));
    expect(await a.exists(key)).toBe(0);
    nowMs += 1000;
    expect(await limiter.ip(ip, rate, false)).toMatchObject({ remaining: 4, resetSeconds: 0 });
  });

  it('keeps no key of a bucket that is full: every live key has a TTL within its window', async () => {
    const limiter = createRedisLimiter({ client: a, prefix });
    const rate: Rate = { limit: 3, windowSeconds: 60 };
    for (let i = 0; i < 30; i++) await limiter.tenant(`ttl-${i % 10}`, rate, true);
    for (let i = 0; i < 10; i++) {
      const ttl = await a.pTTL(tenantBucketKey(prefix, `ttl-${i}`));
      expect(ttl).toBeGreaterThan(59_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
  });

  it('loads the script again when Redis has forgotten it (NOSCRIPT)', async () => {
    await a.scriptFlush();
    expect(await a.scriptExists([GCRA_SHA])).toEqual([0]);
    const limiter = createRedisLimiter({ client: b, prefix });
    expect(await limiter.tenant('after-flush', { limit: 2, windowSeconds: 60 }, true)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await a.scriptExists([GCRA_SHA])).toEqual([1]);
  });
});
