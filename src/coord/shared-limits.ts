/**
 * Rate limits and stream connection caps shared by the instances of a deployment
 * (docs/operations.md, Many instances), made by createCoord with REDIS_URL only. The Redis part
 * (redis-limits.ts) is imported in the background, so createApp stays synchronous; until it has
 * loaded (the first milliseconds of a start, before the server listens) every decision is this
 * instance's own, as while Redis is away.
 *
 * The log: a limiter that falls back while connected (Redis slow or failing) is logged at most
 * once a minute; Redis away altogether is the bus's "redis is down" warning (wiring.ts).
 */
import type { Logger } from 'pino';
import type { Limiter } from '../limiter/limiter.js';
import type { AsyncLimiter } from '../limiter/redis-gcra.js';
import type { FailoverLimiter, RedisState } from '../limiter/redis-failover.js';
import type { ConnectionCaps, Lease } from '../limiter/connection-caps.js';
import type { RedisLimits } from './redis-limits.js';

export type SharedLimits = {
  /** `memory`'s interface on buckets under `prefix` in Redis (this instance's own while Redis is away). */
  limiter(memory: Limiter, prefix: string): AsyncLimiter;
  caps: ConnectionCaps;
  /** Whether the limits' Redis connection is up. */
  ready(): boolean;
  /** Resolves once the Redis part is loaded (connected or still trying). */
  loaded: Promise<void>;
  close(): Promise<void>;
};

const WARN_EVERY_MS = 60_000;

export function createSharedLimits(opts: { url: string; instanceId: string; logger: Logger }): SharedLimits {
  const { logger } = opts;
  let closed = false;
  let lastWarn = -Infinity;
  let warned = false;
  const onLimiterState = (state: RedisState, err: unknown, connected: boolean) => {
    if (state === 'up') {
      if (warned) logger.info({ redis: 'up' }, 'rate limits are shared through redis again');
      warned = false;
      return;
    }
    if (!connected || Date.now() - lastWarn < WARN_EVERY_MS) return;
    lastWarn = Date.now();
    warned = true;
    logger.warn({ redis: 'up', err }, "redis did not answer a rate-limit decision in time: this instance's own buckets meanwhile");
  };

  let redis: RedisLimits | null = null;
  const loaded = import('./redis-limits.js').then(({ createRedisLimits }) => {
    if (!closed) redis = createRedisLimits({ url: opts.url, instanceId: opts.instanceId, onLimiterState });
  });

  return {
    limiter(memory, prefix) {
      let shared: FailoverLimiter | null = null;
      const over = (): FailoverLimiter | null => (shared ??= redis?.limiter(memory, prefix) ?? null);
      return {
        ip: (key, rate, consume) => over()?.ip(key, rate, consume) ?? Promise.resolve(memory.ip(key, rate, consume)),
        tenant: (id, rate, consume) => over()?.tenant(id, rate, consume) ?? Promise.resolve(memory.tenant(id, rate, consume)),
        sweep: async () => memory.sweep(),
        size: async () => memory.size(),
        ipTableBytes: async () => memory.ipTableBytes(),
      };
    },
    caps: {
      // The server listens only once this has loaded (coord.ready()); after close() nothing is admitted.
      async admit(group, cap): Promise<Lease | null> {
        await loaded;
        return redis === null ? null : redis.caps.admit(group, cap);
      },
    },
    ready: () => redis?.ready() ?? false,
    loaded,
    async close() {
      closed = true;
      await loaded.catch(() => undefined);
      await redis?.close();
    },
  };
}
